"""How bank prose is laid out (issue 7 items 5–7): paragraphs reflow, indented lines stay,
continuations hang under the text, numbers keep their units."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from quiz.tui.app import make_app
from quiz.tui.text_layout import layout, reflow, wrap_line
from quiz.tui.widgets.question_view import MARKER_WIDTH
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import shown, start

EXPLANATION = """\
Training keeps far more in memory than inference:
the weights, their gradients, the optimizer states
and the activations of every layer.

The model states alone:
    16 bytes/param × 7B params = 112 GB
which no single 80 GB GPU holds.
- ZeRO stage 3 shards all of them
  over the data-parallel GPUs.
- Activations are not sharded."""


def test_single_line_breaks_inside_a_paragraph_are_spaces() -> None:
    assert reflow(EXPLANATION).split("\n")[:2] == [
        "Training keeps far more in memory than inference: the weights, their gradients, the "
        "optimizer states and the activations of every layer.",
        "",
    ]


def test_indented_lines_stay_as_written_and_list_items_reflow() -> None:
    # Issue 23: a list item's lines indented under its text are reflowed with it.
    assert reflow(EXPLANATION).split("\n")[2:] == [
        "The model states alone:",
        "    16 bytes/param × 7B params = 112 GB",
        "which no single 80 GB GPU holds.",
        "- ZeRO stage 3 shards all of them over the data-parallel GPUs.",
        "- Activations are not sharded.",
    ]


def test_layout_fills_the_width_and_hangs_continuations() -> None:
    out = layout(EXPLANATION, 40).split("\n")
    assert out[:4] == ["Training keeps far more in memory than",
                       "inference: the weights, their gradients,",
                       "the optimizer states and the activations",
                       "of every layer."]
    assert all(len(line) <= 40 for line in out)
    assert layout("- a list item that is long enough to wrap twice at this width", 24) == (
        "- a list item that is\n  long enough to wrap\n  twice at this width")
    assert layout("Formula:\n    x = a formula much wider than the screen is", 24) == (
        "Formula:\n    x = a formula much\n      wider than the\n      screen is")


def test_a_number_never_parts_from_its_unit() -> None:
    step = ("training: total per device = 13.48 GB + 13.48 GB + 26.95 GB + 53.91 GB + "
            "30.60 GB = 138.42 GB")
    for width in range(20, 90):
        lines = wrap_line(step, width, 4)
        assert " ".join(part.strip() for part in lines) == step
        for line in lines:
            assert not re.search(r"\d$", line.rstrip()), (width, lines)
            assert not line.strip().startswith("GB"), (width, lines)


async def test_explanations_reflow_to_the_screen_and_reviews_hang_under_their_text() -> None:
    options = {"A": "Alpha", "B": "Bravo", "C": "Charlie is a long option whose text needs "
               "more than one line at eighty columns, so it must wrap under itself.",
               "D": "Delta"}
    q = question_data("q1", answer="B", options=options, full_explanation=EXPLANATION)
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        full = shown(screen, "full-explanation").split("\n")
        assert full[0].startswith("Training keeps far more in memory than inference: the ")
        assert "    16 bytes/param × 7B params = 112 GB" in full
        review = shown(screen, "distractor-review").split("\n")
        start_c = next(i for i, r in enumerate(review) if r.startswith("C  "))
        # The heading wraps under its text; the review (indented 3 too) follows it.
        end_c = next(i for i, r in enumerate(review) if r.startswith("   Charlie is a long"))
        c_lines = review[start_c:end_c]
        assert len(c_lines) >= 2
        assert all(line.startswith("   ") and line[3] != " " for line in c_lines[1:])
        # Option text wraps under itself too (beside the letter column).
        option = shown(screen, "option-C").split("\n")
        assert len(option) >= 2
        assert option[0][:MARKER_WIDTH].strip() == "C (•)"
        assert all(r[:MARKER_WIDTH] == " " * MARKER_WIDTH and r[MARKER_WIDTH] != " "
                   for r in option[1:])


def test_a_paragraph_that_is_all_table_stays_a_table() -> None:
    text = ("Per device:\n\n   weights      13.48 GB\n   KV cache      1.07 GB\n\n"
            "So it fits.")
    assert reflow(text) == text


def test_a_long_run_of_wide_characters_wraps_at_cells_and_keeps_every_character() -> None:
    from quiz.bank.terminal import cell_width

    cjk = "漢字テスト한국어中文" * 7  # 70 characters, 140 cells, no space to break at
    lines = wrap_line(cjk + " end?", 78, 0)
    assert lines == [cjk[:39], cjk[39:] + " end?"]
    assert [cell_width(x) for x in lines] == [78, 67]
    emoji = wrap_line("A  " + "😀" * 45 + " review", 78, 3)
    assert "".join(emoji).replace(" ", "").count("😀") == 45
    assert max(cell_width(x) for x in emoji) <= 78


def test_a_cut_never_parts_a_letter_from_its_accent_or_an_emoji_sequence() -> None:
    from quiz.tui.text_layout import cut_cells

    accented = "e\u0301" * 50  # 50 cells
    lines = wrap_line(accented, 40, 6)
    assert lines == ["e\u0301" * 40, " " * 6 + "e\u0301" * 10]
    family = "👨\u200d👩\u200d👧"
    assert cut_cells(family + "x", 2) == (family, "x")
    assert cut_cells("漢字", 1) == ("漢", "字")  # a wide one that does not fit still moves on


_ALPHABET = "ab 漢字😀é\u0301\u200d"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=_ALPHABET, max_size=120), width=st.integers(10, 40),
       hang=st.integers(0, 8))
# A 6-cell cluster (wide characters joined by ZWJ) after a 5-cell hanging indent at width 10:
# the indent made the line 11 cells.
@example(text="a字字字\u200d字\u200d字", width=10, hang=5)
def test_wrapping_keeps_every_character_in_order_within_the_width(text: str, width: int,
                                                                   hang: int) -> None:
    from quiz.bank.terminal import cell_width

    lines = wrap_line(text, width, hang)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    if len(text) - len(text.lstrip(" ")) < width // 2:  # an indent wider than the line aside
        assert max((cell_width(row) for row in lines), default=0) <= width


def test_a_diagram_folds_at_whole_characters() -> None:
    from rich.style import Style

    from quiz.tui.widgets.document import fold

    row = "ab" + "一二三四五六七八九十" * 5 + "END"  # 105 cells
    strips = fold(row, 78, Style())
    texts = ["".join(seg.text for seg in strip).rstrip(" ") for strip in strips]
    assert texts == ["ab" + row[2:40], row[40:]]  # 九 would straddle cell 78: it moves down
    assert [strip.cell_length for strip in strips] == [78, 78]


def test_an_option_tab_expands_alike_in_its_row_and_in_the_distractor_review() -> None:
    from quiz.study.shown import DistractorNote, ShownOption
    from quiz.tui.widgets.reveal import note_heading

    option = ShownOption(letter="E", key="E", text="tab\there\tand")
    heading = note_heading(DistractorNote(option=option, review="r", chosen=False))
    assert heading == "E  tab here    and"


def test_a_numbered_list_item_reflows_like_the_prose_around_it() -> None:
    text = ("Steps:\n1. Shard the optimizer states\n   over the data-parallel\n   GPUs.\n"
            "2. Then the gradients.")
    assert layout(text, 80).split("\n") == [
        "Steps:", "1. Shard the optimizer states over the data-parallel GPUs.",
        "2. Then the gradients."]
    assert layout(text, 30).split("\n") == [
        "Steps:", "1. Shard the optimizer states", "   over the data-parallel", "   GPUs.",
        "2. Then the gradients."]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ab -1.\n\tGB中😀e\u0301\u200d", max_size=80),
       width=st.integers(min_value=1, max_value=40), per_line=st.booleans())
@example(text="x" * 50 + " y", width=20, per_line=False)
@example(text="a\tb", width=20, per_line=False)
def test_a_prose_widget_is_as_tall_as_textual_would_draw_it(text: str, width: int,
                                                            per_line: bool) -> None:
    """Prose counts its laid-out lines itself when each fits the width (Textual's wrap would
    keep them as they are); its height is always the one Textual measures."""
    from textual.geometry import Size

    from quiz.tui.widgets.prose import Prose

    prose = Prose(text, lines=per_line)
    height = prose.get_content_height(Size(width, 99), Size(width, 99), width)
    assert height == prose.visual.get_height(prose.styles, width)
