"""The place named is the place of the fault: quotes left open, keys indented too far, characters
inside block and multi-line values, and every parser exception, on both parsers (issue 6 §2);
hidden files in folders (§7)."""

from __future__ import annotations

from pathlib import Path

import pytest

import quiz.bank.load as load_module
from quiz import yamlio
from quiz.bank.load import load_bank_text, load_library
from quiz.bank.problems import value_positions

from .helpers import HEAD, bank, found, only_error, question

# --- a quote never closed: at the opening quote ---------------------------------------------------

def test_unclosed_double_quote_is_reported_at_the_opening_quote(pure: bool) -> None:
    # The title's quote runs on to the stem's opening quote on line 8; YAML then fails there.
    head = HEAD.replace("Demo bank", '"Serving LLMs: the KV cache')
    report = load_bank_text(bank(question(stem='"What is stored?"'), head=head), pure_python=pure)
    assert only_error(report) == (
        3, 10, 'the " opened here is never closed: YAML reads lines 4-8 as more of this value; '
               'add the closing " on line 3')


def test_unclosed_single_quote_is_reported_at_the_opening_quote(pure: bool) -> None:
    report = load_bank_text(bank(question(stem="'What is stored?", short="'Because.'")),
                            pure_python=pure)
    assert only_error(report) == (
        8, 15, "the ' opened here is never closed: YAML reads lines 9-11 as more of this value; "
               "add the closing ' on line 8")


def test_unclosed_quote_at_the_end_of_the_file(pure: bool) -> None:
    report = load_bank_text(bank(question(stem='"What is stored?')), pure_python=pure)
    assert only_error(report) == (8, 15, "this quoted value is never closed: add the closing quote")


def test_a_multi_line_quoted_value_is_not_mistaken_for_an_open_quote(pure: bool) -> None:
    report = load_bank_text(bank(question(stem='"What is\n      stored?"')), pure_python=pure)
    assert report.ok and report.library.questions[0].stem == "What is stored?"


# --- a key indented too far ----------------------------------------------------------------------

def test_key_indented_under_a_value_says_it_is_indented_too_far(pure: bool) -> None:
    report = load_bank_text(bank(question(topic="memory\n      difficulty: easy")),
                            pure_python=pure)
    assert only_error(report) == (
        8, 7, "'difficulty' is indented too far: YAML reads it as more text of 'topic' on line "
              "7; start it in column 5, like 'topic'")


def test_key_indented_too_far_in_the_header(pure: bool) -> None:
    head = HEAD.replace("  title: Demo bank\n", "  title: Demo bank\n     version: 2\n")
    assert only_error(load_bank_text(bank(head=head), pure_python=pure)) == (
        4, 6, "'version' is indented too far: YAML reads it as more text of 'title' on line 3; "
              "start it in column 3, like 'title'")


def test_unknown_word_before_a_colon_keeps_the_quoting_hint(pure: bool) -> None:
    report = load_bank_text(bank(question(topic="memory\n      note: easy")), pure_python=pure)
    assert only_error(report)[2].startswith("': ' inside unquoted text starts a new key")


# --- characters inside block and multi-line values: at the character ----------------------------

def test_character_on_the_sixth_line_of_a_block_is_reported_there(pure: bool) -> None:
    full = "|\n" + "".join(f"      line {n}\n" for n in range(1, 6)) + "      six\u202eth"
    report = load_bank_text(bank(question(full=full)), pure_python=pure)
    assert [(d.line, d.column) for d in report.diagnostics] == [(18, 10)]
    assert report.diagnostics[0].message.startswith("U+202E RIGHT-TO-LEFT OVERRIDE is a "
                                                    "bidirectional control")


def test_characters_in_folded_and_multi_line_values(pure: bool) -> None:
    report = load_bank_text(bank(question(
        stem='"first line\n      then \\e here"', short=">\n      a\n\n      b\u200bc",
        full="plain text\n      goes on\u061c")), pure_python=pure)
    assert [(d.line, d.column, d.message.split(" is ")[0]) for d in report.diagnostics] == [
        (9, 12, "U+001B ESCAPE"),
        (15, 8, "U+200B ZERO WIDTH SPACE"),
        (17, 14, "U+061C ARABIC LETTER MARK"),
    ]


@pytest.mark.parametrize(("source", "offsets", "expected"), [
    ('"a\\tb\\u200bc"', [3, 4], [5, 11]),    # an escape is one character, at its backslash
    ("'it''s x'", [2, 5], [3, 7]),          # '' is one quote
    ("|\n  ab\n  cd\n", [3, 4], [9, 10]),   # a block: past its header and the indentation
    ('"a \\\n  b"', [2], [7]),               # an escaped line break adds nothing
    ("plain", [0, 4], [0, 4]),
])
def test_value_positions(source: str, offsets: list[int], expected: list[int]) -> None:
    event = [e for e in iter(yamlio.parser("k: " + source).get_event, None)
             if isinstance(e, yamlio.ScalarEvent)][1]
    got = value_positions("k: " + source, event.start_mark.index, event.value, offsets)
    assert [i - 3 if i is not None else None for i in got] == expected


def test_value_positions_gives_up_when_the_source_does_not_match() -> None:
    assert value_positions("k: abc", 3, "xyz", [1]) == [None]


# --- every parser exception becomes a located problem -----------------------------------------

RAW_ESCAPE = ("character U+001B ESCAPE is not allowed in a YAML file (a control character); "
              "delete it, or write it as an escape in a double-quoted value")


def test_pure_parser_refusing_a_character_when_created(pure: bool) -> None:
    # A tab sends the text through the tab resolver first; the pure reader refuses the ESC as
    # soon as the parser is created.
    assert only_error(load_bank_text(b"a:\t\x1b", pure_python=pure)) == (1, 4, RAW_ESCAPE)


def test_without_libyaml_every_problem_is_located(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlio, "_CParser", None)
    assert only_error(load_bank_text(b"a:\t\x1b")) == (1, 4, RAW_ESCAPE)
    assert only_error(load_bank_text(bank(question(stem="a\x1bb")))) == (8, 16, RAW_ESCAPE)


# --- the size limit holds for text too ---------------------------------------------------------

def test_text_over_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch, pure: bool) -> None:
    monkeypatch.setattr(load_module, "MAX_FILE_BYTES", 100)
    text = bank()
    assert [str(d) for d in load_bank_text(text.encode(), "f.yaml", pure_python=pure)
            .diagnostics] == [f"f.yaml: error: this text is {len(text):,} bytes; a bank file "
                              "may have at most 100 bytes"]
    # A str is counted in UTF-8: 30 characters of 4 bytes each are 120 bytes.
    assert [d.message for d in load_bank_text("\U0001F600" * 30, pure_python=pure)
            .diagnostics] == ["this text is 120 bytes; a bank file may have at most 100 bytes"]
    assert load_bank_text("a: b\n", pure_python=pure).diagnostics[0].message != ""


# --- §7: folders skip hidden files ------------------------------------------------------------

def test_folder_skips_hidden_files_as_a_shell_glob_does(tmp_path: Path, pure: bool) -> None:
    (tmp_path / "bank.yaml").write_text(bank())
    (tmp_path / "._bank.yaml").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X\xff\xfe")
    (tmp_path / ".draft.yaml").write_text(bank(question("q2")).replace("demo", "draft"))
    report = load_library([tmp_path], pure_python=pure)
    assert report.diagnostics == []
    assert [b.path.name for b in report.library.banks] == ["bank.yaml"]


def test_hidden_file_named_explicitly_is_loaded(tmp_path: Path, pure: bool) -> None:
    draft = tmp_path / ".draft.yaml"
    draft.write_text(bank())
    report = load_library([draft], pure_python=pure)
    assert report.ok and [b.path.name for b in report.library.banks] == [".draft.yaml"]


def test_folder_with_only_hidden_banks_has_no_banks(tmp_path: Path, pure: bool) -> None:
    (tmp_path / ".draft.yaml").write_text(bank())
    assert found(load_library([tmp_path], pure_python=pure)) == [
        (0, 0, "error", "this folder has no bank files (*.yaml, *.yml)")]
