"""Invisible and misleading characters, derived from Unicode properties (issue 6 §5), and widths
measured in terminal cells as Rich measures them (§6)."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from rich.cells import cell_len

from quiz.bank import terminal
from quiz.bank.load import load_bank_text
from quiz.bank.terminal import cell_width, flagged_characters, terminal_safe

from .helpers import bank, found, question


def test_the_flagged_set_is_every_control_format_and_separator_character() -> None:
    everything = {chr(c) for c in range(sys.maxunicode + 1)
                  if unicodedata.category(chr(c)) in terminal.FLAGGED_CATEGORIES} - {"\t", "\n"}
    pattern = terminal.flagged_pattern()
    assert {c for c in everything if pattern.fullmatch(c)} == everything
    assert all(pattern.fullmatch(c) is None for c in "aé漢 \t\n\u00a0😀")
    # Every Bidi_Control character is in it; the hand-made list used to miss U+061C.
    for bidi in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert pattern.fullmatch(bidi)


@pytest.mark.parametrize(("char", "name", "kind"), [
    ("\u061c", "U+061C ARABIC LETTER MARK", "a bidirectional control: it changes the order in "
                                            "which the text around it is shown"),
    ("\u200b", "U+200B ZERO WIDTH SPACE", "an invisible character"),
    ("\u2060", "U+2060 WORD JOINER", "an invisible character"),
    ("\u00ad", "U+00AD SOFT HYPHEN", "an invisible character"),
])
def test_invisible_characters_are_warned_at_their_place(char: str, name: str, kind: str,
                                                        pure: bool) -> None:
    report = load_bank_text(bank(question(stem=f"What is{char} stored?")), pure_python=pure)
    assert found(report) == [(8, 22, "warning", f"{name} is {kind}; the app shows it as '\ufffd' "
                                                "(delete it unless you meant it)")]
    assert report.ok and report.library.questions[0].stem == f"What is{char} stored?"


def test_each_occurrence_is_warned_and_the_list_is_capped(pure: bool) -> None:
    report = load_bank_text(bank(question(stem="a\u200bb\u200bc")), pure_python=pure)
    assert [(d.line, d.column) for d in report.diagnostics] == [(8, 16), (8, 18)]
    many = load_bank_text(bank(question(stem="x\u200b" * 30)), pure_python=pure)
    assert len(many.diagnostics) == 21
    assert many.diagnostics[-1].message == ("10 more control or invisible characters in this file "
                                            "are not listed")


def test_joiners_that_spell_words_and_emoji_are_not_flagged() -> None:
    assert flagged_characters("👩\u200d💻 and मित्र\u200dता and a\u200db") == [(22, "\u200d")]
    flag = "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
    assert flagged_characters(flag) == []
    assert flagged_characters("x\U000E0067") == [(1, "\U000E0067")]


def test_terminal_safe_shows_every_flagged_character_visibly() -> None:
    assert terminal_safe("a\u061cb\u200bc\x1bd\x7f\u2069") == "a\ufffdb\ufffdc\u241bd\u2421\ufffd"
    assert terminal_safe("plain\ttext") == "plain   text"
    assert terminal_safe("👩\u200d💻") == "👩\u200d💻"


# --- widths in terminal cells -------------------------------------------------------------------

SAMPLES = ["plain ASCII", "漢字かなカナ한국어", "e\u0301" * 5, "ｆｕｌｌｗｉｄｔｈ", "😀👍🚀",
           "Ελληνικά кириллица", "→ ≈ × ÷ ─│┌", "\u200b\u200d", "ﾊﾝｶｸ", "가\u1161\u11a8"]


@pytest.mark.parametrize("text", SAMPLES)
def test_cell_width_agrees_with_rich(text: str) -> None:
    assert cell_width(text) == cell_len(text)


def test_cell_width_agrees_with_rich_on_every_bmp_letter_mark_and_punctuation() -> None:
    # Symbols (So) are left out: newer Unicode versions than this Python's made some of them
    # wide (hexagrams, trigrams), and Rich has the newer tables.
    known = [chr(c) for c in range(0x20, 0x10000) if not 0xD800 <= c < 0xE000
             and unicodedata.category(chr(c))[0] in "LMNPZC"
             and unicodedata.category(chr(c)) != "Cn"]
    assert [c for c in known if cell_width(c) != cell_len(c)] == []


def diagram(line: str) -> str:
    return "    infographic:\n      text: |\n        " + line + "\n"


def test_a_wide_cjk_diagram_is_warned(pure: bool) -> None:
    # 45 CJK characters are 90 columns: they wrap into two lines at 80.
    report = load_bank_text(bank(question(extra=diagram("漢" * 45))), pure_python=pure)
    assert found(report) == [(16, 9, "warning", "this diagram has lines 90 columns wide: on an "
                              "80-column terminal lines over 76 wrap, which breaks its columns; "
                              "keep them to 76 or fewer")]


def test_combining_accents_take_no_column(pure: bool) -> None:
    # 40 letters built from combining marks: 80 code points, 40 columns.
    report = load_bank_text(bank(question(extra=diagram("e\u0301" * 40))), pure_python=pure)
    assert report.diagnostics == []


def test_tabs_are_expanded_before_measuring(pure: bool) -> None:
    # The tab after 74 letters reaches column 76; the "b" makes the line 77 columns wide.
    report = load_bank_text(bank(question(extra=diagram("a" * 74 + "\tb"))), pure_python=pure)
    assert [d.message.split(":")[0] for d in report.diagnostics] == [
        "this diagram has lines 77 columns wide"]


def test_the_ascii_shortcut_flags_what_the_full_set_flags() -> None:
    every_ascii = "".join(map(chr, range(128)))
    assert flagged_characters(every_ascii) == [
        (i, chr(i)) for i in range(128) if terminal.flagged_pattern().fullmatch(chr(i))]


def test_tabs_reach_the_next_multiple_of_four_cells_not_characters() -> None:
    # 漢字 is 2 characters but 4 cells: its tab reaches cell 8, as "col1"'s does, so the
    # columns after the tabs line up on screen (str.expandtabs would put x at cell 6).
    from quiz.bank.terminal import expand_tabs

    assert terminal_safe("col1\tcol2\tc\n漢字\tx\ty") == "col1    col2    c\n漢字    x   y"
    assert expand_tabs("e\u0301\tx") == "e\u0301   x"  # the accent takes no cell
    assert expand_tabs("no tabs 漢字") == "no tabs 漢字"
