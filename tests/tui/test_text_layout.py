"""How bank prose is laid out (issue 7 items 5–7): paragraphs reflow, indented lines stay,
continuations hang under the text, numbers keep their units."""

from __future__ import annotations

import re

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


def test_indented_lines_and_list_items_stay_as_written() -> None:
    assert reflow(EXPLANATION).split("\n")[2:] == [
        "The model states alone:",
        "    16 bytes/param × 7B params = 112 GB",
        "which no single 80 GB GPU holds.",
        "- ZeRO stage 3 shards all of them",
        "  over the data-parallel GPUs.",
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
