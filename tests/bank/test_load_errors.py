"""Validation errors: each at the line and column of the value, key or mapping at fault, in the
words of the YAML file (never pydantic's), all reported at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

import quiz.bank.load as load_module
from quiz.bank import model
from quiz.bank.load import load_bank_text, load_library

from .helpers import HEAD, bank, found, only_error, question


def test_unknown_keys_suggest_the_yaml_name(pure: bool) -> None:
    text = bank(question(extra="    optoins: x\n    stem: y\n    zzz: 1\n"))
    report = load_bank_text(text, "f.yaml", pure_python=pure)
    assert report.library is None
    assert found(report)[:2] == [
        (14, 5, "error", "unknown key 'optoins'; did you mean 'options'?"),
        # The model calls it ``stem``; the file calls it ``question``.
        (15, 5, "error", "unknown key 'stem'; did you mean 'question'?"),
    ]
    line, column, _, message = found(report)[2]
    assert (line, column) == (16, 5)
    assert message.startswith("unknown key 'zzz' (allowed here: id, topic, difficulty, tags, "
                              "question, options, answer,")
    assert "stem" not in message


def test_unknown_key_in_bank_header(pure: bool) -> None:
    head = HEAD.replace("  title: Demo bank\n", "  title: Demo bank\n  titel: x\n")
    assert only_error(load_bank_text(bank(head=head), pure_python=pure)) == (
        4, 3, "unknown key 'titel'; did you mean 'title'?")


def test_missing_key_points_at_the_mapping_that_lacks_it(pure: bool) -> None:
    text = bank(question(), question("q2").replace("    short_explanation: Because.\n", ""))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        14, 5, "missing required key 'short_explanation' in question 2")


def test_missing_bank_and_empty_questions(pure: bool) -> None:
    report = load_bank_text("questions: []\n", pure_python=pure)
    assert found(report) == [
        (1, 1, "error", "missing required key 'bank'"),
        (1, 12, "error", "questions: a bank needs at least one question"),
    ]


def test_wrong_kinds_say_expected_and_found_in_yaml_words(pure: bool) -> None:
    text = bank(question(stem="[1, 2]", options="{A: {a: 1}, B: Bravo}",
                         extra="    tags: vram\n    infographic:\n    difficulty: medum\n"))
    report = load_bank_text(text, pure_python=pure)
    assert found(report) == [
        (8, 15, "error", "question: expected text, found a list"),
        (9, 18, "error", "options.A: expected text, found a mapping"),
        (14, 11, "error", "tags: expected a list, found 'vram'"),
        (15, 17, "error", "infographic: expected a mapping, found an empty value"),
        (16, 17, "error", "difficulty: expected one of easy, medium, hard, found 'medum'; "
                          "did you mean 'medium'?"),
    ]
    assert not any("Input should" in d.message for d in report.diagnostics)


def test_non_text_in_lists_of_text(pure: bool) -> None:
    text = bank(question(extra="    references: [[a, b], {c: d}]\n"))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (14, 18, "error", "references[0]: expected text, found a list"),
        (14, 26, "error", "references[1]: expected text, found a mapping"),
    ]


def test_answer_that_is_not_an_option(pure: bool) -> None:
    text = bank(question(options="{A: a, B: b, C: c}", answer="E", review="{A: x, B: y, C: z}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        10, 13, "the answer E is not one of the options (A, B, C)")


def test_answer_key_in_a_list_that_is_not_an_option(pure: bool) -> None:
    text = bank(question(options="{A: a, B: b, C: c}", answer="[A, Z]", review="{B: y, C: z}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        10, 17, "'Z' is not an option key: use a capital letter A–H")


def test_answer_of_the_wrong_kind_gets_one_message(pure: bool) -> None:
    text = bank(question(answer="{a: 1}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        10, 13, "answer: expected one option key (e.g. B) or a list of keys (e.g. [A, C]), "
                "found a mapping")


def test_distractor_review_for_the_right_option(pure: bool) -> None:
    text = bank(question(review="{A: Not alpha., B: Bravo is right.}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        13, 40, "B is a right answer: the distractor review is only for wrong options; "
                "remove this entry")


def test_missing_review_for_a_wrong_option(pure: bool) -> None:
    text = bank(question(options="{A: a, B: b, C: c}", review="{A: no}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        13, 24, "add a review for each wrong option: missing C")


def test_review_for_an_option_that_does_not_exist(pure: bool) -> None:
    text = bank(question(review="{A: no, D: what}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        13, 32, "there is no option D to review (options: A, B)")


def test_options_must_be_lettered_in_order(pure: bool) -> None:
    text = bank(question(options="{B: b, A: a}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        9, 14, "options must be lettered A, B in this order (found B, A)")


def test_bad_option_key_points_at_the_key(pure: bool) -> None:
    text = bank(question(options="{A: a, b: b}"))
    report = load_bank_text(text, pure_python=pure)
    assert found(report)[0] == (9, 21, "error",
                                "'b' is not an option key: use a capital letter A–H")


def test_invalid_id_and_numbers(pure: bool) -> None:
    head = HEAD.replace("  title: Demo bank\n",
                        "  title: Demo bank\n  version: two\n  pass_mark: 7\n")
    report = load_bank_text(bank(question("Q 1"), head=head), pure_python=pure)
    assert found(report) == [
        (4, 12, "error", "bank.version: expected a whole number, found 'two'"),
        (5, 14, "error", "bank.pass_mark: must be at most 1.0, found '7'"),
        (8, 9, "error", "id: 'Q 1' is not a valid id: use lowercase letters, digits, '.', '_' "
                        "and '-', starting with a letter or digit"),
    ]


def test_undeclared_topic(pure: bool) -> None:
    assert only_error(load_bank_text(bank(question(topic="storage")), pure_python=pure)) == (
        7, 12, "topic 'storage' is not declared in bank.topics (memory, precision)")


def test_blank_text(pure: bool) -> None:
    assert only_error(load_bank_text(bank(question(stem="'  '")), pure_python=pure)) == (
        8, 15, "question: must not be empty")


def test_all_errors_at_once_in_file_order(pure: bool) -> None:
    text = bank(question(answer="E", review="{A: x, B: y}"), question("q2", stem="[x]"),
                question("q3", short="{a: b}"))
    report = load_bank_text(text, pure_python=pure)
    assert [(d.line, d.column) for d in report.diagnostics] == [(10, 13), (16, 15), (27, 24)]


def test_duplicate_ids_in_one_file(pure: bool) -> None:
    text = bank(question("q1"), question("q1"))
    assert only_error(load_bank_text(text, "f.yaml", pure_python=pure)) == (
        14, 9, "duplicate question id 'q1': already used at f.yaml:6")


OTHER = HEAD.replace("id: demo", "id: other")
"""The standard header with another bank id (two files of a library need two)."""


def test_duplicate_ids_across_a_folder(tmp_path: Path, pure: bool) -> None:
    (tmp_path / "a.yaml").write_text(bank(question("shared"), question("only-a")))
    (tmp_path / "b.yaml").write_text(bank(question("only-b"), question("shared"), head=OTHER))
    report = load_library([tmp_path], pure_python=pure)
    assert report.library is None
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path / 'b.yaml'}:14:9: error: duplicate question id 'shared': already used at "
        f"{tmp_path / 'a.yaml'}:6"]


def test_duplicate_ids_are_found_even_in_files_with_other_errors(tmp_path: Path,
                                                                 pure: bool) -> None:
    (tmp_path / "a.yaml").write_text(bank(question("shared", stem="[broken]")))
    (tmp_path / "b.yaml").write_text(bank(question("shared"), head=OTHER))
    report = load_library([tmp_path], pure_python=pure)
    assert [(Path(d.path).name, d.line, d.column) for d in report.diagnostics] == [
        ("a.yaml", 8, 15), ("b.yaml", 6, 9)]


@pytest.mark.parametrize(("text", "expected"), [
    ("", (1, 1, "the file is empty: a bank file is a mapping with 'bank:' and 'questions:'")),
    ("# only a comment\n\n", (1, 1, "the file is empty: a bank file is a mapping with 'bank:' "
                                    "and 'questions:'")),
    ("---\n", (1, 1, "the file is empty: a bank file is a mapping with 'bank:' and "
                     "'questions:'")),
    ("# a list\n- id: q1\n- id: q2\n", (2, 1, "a bank file is a mapping with 'bank:' and "
                                              "'questions:' (this file is a list)")),
    ("\n  just some text\n", (2, 3, "a bank file is a mapping with 'bank:' and 'questions:' "
                                    "(this file is text)")),
], ids=["empty", "comments", "empty-document", "list", "scalar"])
def test_files_that_are_not_a_mapping(text: str, expected: tuple[int, int, str],
                                      pure: bool) -> None:
    assert only_error(load_bank_text(text, pure_python=pure)) == expected


def test_second_document_is_an_error(pure: bool) -> None:
    report = load_bank_text(bank() + "---\nmore: 1\n", pure_python=pure)
    assert only_error(report) == (
        14, 1, "a bank file holds one YAML document; this '---' starts a second one (split it "
               "into another file)")


def test_invalid_utf8_names_the_byte(pure: bool) -> None:
    data = bank(question(stem="Qu'est-ce qu'un café ?")).encode("latin-1")
    line, column, message = only_error(load_bank_text(data, "f.yaml", pure_python=pure))
    assert (line, column) == (8, 34)
    offset = data.index(b"\xe9")
    assert message == (f"this file is not valid UTF-8: byte 0xE9 at byte offset {offset} "
                       "(line 8, column 34) cannot be decoded; save the file as UTF-8")


def test_utf16_file(tmp_path: Path, pure: bool) -> None:
    path = tmp_path / "u16.yaml"
    path.write_bytes(bank().encode("utf-16"))
    report = load_library([path], pure_python=pure)
    assert [str(d) for d in report.diagnostics] == [
        f"{path}:1:1: error: the file is UTF-16 or UTF-32 encoded (it starts with that "
        "byte-order mark); save the file as UTF-8"]


def test_missing_paths_and_empty_folders(tmp_path: Path, pure: bool) -> None:
    (tmp_path / "empty").mkdir()
    report = load_library([tmp_path / "nope.yaml", tmp_path / "empty"], pure_python=pure)
    assert report.library is None
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path / 'nope.yaml'}: error: no such file or folder",
        f"{tmp_path / 'empty'}: error: this folder has no bank files (*.yaml, *.yml)",
    ]
    assert [(d.line, d.column) for d in report.diagnostics] == [(0, 0), (0, 0)]


def test_no_paths_at_all() -> None:
    report = load_library([])
    assert report.library is None
    assert [d.message for d in report.errors] == ["no bank file or folder given"]


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pure: bool) -> None:
    path = tmp_path / "locked.yaml"
    path.write_text(bank())

    real_open = os.open

    def refuse(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    report = load_library([path], pure_python=pure)
    assert [str(d) for d in report.diagnostics] == [
        f"{path}: error: cannot read this file: Permission denied"]


def test_too_large_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(bank())
    monkeypatch.setattr(load_module, "MAX_FILE_BYTES", 100)
    report = load_library([path])
    assert report.diagnostics[0].line == 0
    assert report.diagnostics[0].message.startswith(f"this file is {path.stat().st_size:,} bytes")


def test_misspelt_required_key_is_one_error_not_two(pure: bool) -> None:
    text = bank(question()).replace("    short_explanation:", "    short_explnation:")
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        11, 5, "unknown key 'short_explnation'; did you mean 'short_explanation'?")


# --- blank text: every text field, not only the stem and the explanations ---------------------

TOPICS = "{memory: Memory footprint, precision: Precision}"
BLANK_TEXT = {
    "option": (bank(question(options='{A: Alpha, B: "   "}')),
               (9, 28, "options.B: must not be empty")),
    "option-tab-and-no-break-space": (bank(question(options='{A: "\\t\\u00A0", B: Bravo}')),
                                      (9, 18, "options.A: must not be empty")),
    "review": (bank(question(review="{A: ' '}")), (13, 28, "distractor_review.A: must not be "
                                                           "empty")),
    "reference": (bank(question(extra="    references: [Paper, '  ']\n")),
                  (14, 25, "references[1]: must not be empty")),
    "table-column": (bank(question(extra="    infographic: {table: {columns: [Item, ' '], "
                                         "rows: [[a, b]]}}\n")),
                     (14, 43, "infographic.table.columns[1]: must not be empty")),
    "infographic-text": (bank(question(extra="    infographic:\n      text: |\n\n\n")),
                         (15, 13, "infographic.text: must not be empty")),
    "short-explanation": (bank(question(short='"\\n  "')),
                          (11, 24, "short_explanation: must not be empty")),
    "bank-title": (bank(head=HEAD.replace("Demo bank", "' '")),
                   (3, 10, "bank.title: must not be empty")),
    "topic-name": (bank(head=HEAD.replace(TOPICS, "{memory: ' ', precision: Precision}")),
                   (4, 20, "bank.topics.memory: must not be empty")),
}


@pytest.mark.parametrize("case", list(BLANK_TEXT))
def test_whitespace_is_not_text(case: str, pure: bool) -> None:
    text, expected = BLANK_TEXT[case]
    assert only_error(load_bank_text(text, pure_python=pure)) == expected


def test_blank_text_is_checked_by_the_text_type_itself() -> None:
    # One rule in one place: no field keeps its own blank check.
    assert not any(name.startswith("_check") for name in vars(model.Question))
    with pytest.raises(ValidationError, match="must not be empty"):
        TypeAdapter(model.Text).validate_python(" \n\t")
    assert TypeAdapter(model.Text).validate_python(" x ") == " x "


# --- folders: not searched recursively, and the message says so ------------------------------

def test_folder_with_banks_only_in_subfolders_says_they_are_not_searched(tmp_path: Path,
                                                                         pure: bool) -> None:
    (tmp_path / "basics").mkdir()
    (tmp_path / "basics" / "a.yaml").write_text(bank())
    (tmp_path / "advanced" / "deeper").mkdir(parents=True)
    (tmp_path / "advanced" / "deeper" / "b.yml").write_text(bank())
    report = load_library([tmp_path, tmp_path / "advanced"], pure_python=pure)
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path}: error: this folder has no bank files (*.yaml, *.yml) (subfolders are not "
        f"searched: name them too, e.g. {tmp_path / 'basics'})",
        f"{tmp_path / 'advanced'}: error: this folder has no bank files (*.yaml, *.yml) "
        f"(subfolders are not searched: name them too, e.g. {tmp_path / 'advanced' / 'deeper'})",
    ]


def test_folder_hint_ignores_hidden_folders_and_other_files(tmp_path: Path, pure: bool) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.md").write_text("write questions\n")
    report = load_library([tmp_path], pure_python=pure)
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path}: error: this folder has no bank files (*.yaml, *.yml)"]


# --- across files: bank ids are unique, a topic has one display name --------------------------

def test_bank_id_used_by_two_files(tmp_path: Path, pure: bool) -> None:
    (tmp_path / "a.yaml").write_text(bank(question("q1")))
    (tmp_path / "b.yaml").write_text(bank(question("q2")))
    (tmp_path / "c.yaml").write_text(bank(question("q3"), head=OTHER))
    report = load_library([tmp_path], pure_python=pure)
    assert report.library is None
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path / 'b.yaml'}:2:7: error: bank id 'demo' is already used by "
        f"{tmp_path / 'a.yaml'}"]


def test_bank_id_is_checked_across_paths_given_separately(tmp_path: Path, pure: bool) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "x.yaml").write_text(bank(question("q1")))
    (tmp_path / "two.yaml").write_text(bank(question("q2", stem="[broken]")))
    report = load_library([tmp_path / "one", tmp_path / "two.yaml"], pure_python=pure)
    assert [(Path(d.path).name, d.line, d.column, d.message) for d in report.diagnostics] == [
        ("two.yaml", 2, 7, f"bank id 'demo' is already used by {tmp_path / 'one' / 'x.yaml'}"),
        ("two.yaml", 8, 15, "question: expected text, found a list")]


def test_topic_named_differently_by_two_banks(tmp_path: Path, pure: bool) -> None:
    same = OTHER.replace(TOPICS, "{memory: Memory footprint}")
    renamed = OTHER.replace("id: other", "id: third").replace(TOPICS, "{memory: Other}")
    (tmp_path / "a.yaml").write_text(bank(question("q1")))
    (tmp_path / "b.yaml").write_text(bank(question("q2"), head=same))
    (tmp_path / "c.yaml").write_text(bank(question("q3"), head=renamed))
    report = load_library([tmp_path], pure_python=pure)
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path / 'c.yaml'}:4:20: warning: topic 'memory' is already named 'Memory "
        f"footprint' by {tmp_path / 'a.yaml'}; this bank's name 'Other' is not used"]
    assert report.ok
    assert report.library.topic_name("memory") == "Memory footprint"
