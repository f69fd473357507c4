"""YAML-level problems: syntax errors, unsafe or surprising syntax in unquoted text, tags, anchors,
aliases, duplicate keys, comments that cut text short, and control characters."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.bank.load import load_bank_text

from .helpers import bank, found, only_error, question

# --- "quote this value" hints, located at the value ----------------------------------------------

HINTS = [
    ("*args do what?",
     "'*args' is read as an alias, and aliases are not allowed; quote the value if it is text: "
     'question: "*args do what?"'),
    ("*args",
     "'*args' is read as an alias, and aliases are not allowed; quote the value if it is text: "
     'question: "*args"'),
    ("@property is what?",
     "'@' cannot start an unquoted value (YAML reserves it); quote this value: "
     'question: "@property is what?"'),
    ("`x` is what?",
     "'`' cannot start an unquoted value (YAML reserves it); quote this value: "
     'question: "`x` is what?"'),
    ("!= 5",
     "tags are not allowed (found '!='); quote the value if it is text: question: \"!= 5\""),
    ("What is this: a test?",
     "': ' inside unquoted text starts a new key; quote this value: "
     'question: "What is this: a test?"'),
    ("&x marks the spot",
     "anchors are not allowed (found '&x'); quote the value if it is text: "
     'question: "&x marks the spot"'),
]


@pytest.mark.parametrize(("stem", "message"), HINTS,
                         ids=["alias-then-text", "alias", "at", "backtick", "tag", "colon",
                              "anchor"])
def test_unquoted_text_that_yaml_reads_as_syntax(stem: str, message: str, pure: bool) -> None:
    report = load_bank_text(bank(question(stem=stem)), pure_python=pure)
    assert only_error(report) == (8, 15, message)


def test_hint_escapes_quotes_and_backslashes(pure: bool) -> None:
    report = load_bank_text(bank(question(stem='@a "b" \\c')), pure_python=pure)
    assert only_error(report)[2].endswith('quote this value: question: "@a \\"b\\" \\\\c"')


def test_hint_in_a_list_item(pure: bool) -> None:
    report = load_bank_text(bank(question(extra="    references:\n      - @Rajbhandari\n")),
                            pure_python=pure)
    assert only_error(report) == (
        15, 9, "'@' cannot start an unquoted value (YAML reserves it); quote this value: "
               '- "@Rajbhandari"')


# --- " #" cutting free text short ---------------------------------------------------------------

def test_comment_cutting_a_plain_text_value(pure: bool) -> None:
    report = load_bank_text(bank(question(short="Costs 2 # bytes")), pure_python=pure)
    assert only_error(report) == (
        11, 24, "the text after ' #' was dropped as a comment ('# bytes'): a ' #' in unquoted "
                'text starts a comment; quote this value to keep it: '
                'short_explanation: "Costs 2 # bytes"')


def test_comment_cutting_a_flow_mapping(pure: bool) -> None:
    report = load_bank_text(bank(question(options="{A: Use C # the sharp one, B: Bravo}")),
                            pure_python=pure)
    assert only_error(report) == (
        9, 18, "the text after ' #' on line 9 was dropped as a comment (and with it the closing "
               "'}'); quote this value: A: \"Use C # the sharp one\"")


def test_comment_cutting_a_review_in_block_style(pure: bool) -> None:
    report = load_bank_text(bank(question(review="\n      A: Not alpha   # really")),
                            pure_python=pure)
    assert only_error(report) == (
        14, 10, "the text after ' #' was dropped as a comment ('# really'): a ' #' in unquoted "
                "text starts a comment; quote this value to keep it: A: \"Not alpha   # really\"")


def test_comments_elsewhere_are_fine(pure: bool) -> None:
    text = bank(question(stem="What?  # a note", answer="B # right")).replace(
        "  id: demo\n", "  id: demo  # slug\n")
    report = load_bank_text(text, pure_python=pure)
    # The stem is free text: flagged. The id and the answer are not.
    assert [(d.line, d.column) for d in report.diagnostics] == [(8, 15)]


# --- tags: never constructed, always an error ----------------------------------------------------

def test_python_object_tag_is_rejected_and_never_run(tmp_path: Path, pure: bool) -> None:
    marker = tmp_path / "pwned"
    stem = f'!!python/object/apply:os.system ["touch {marker}"]'
    report = load_bank_text(bank(question(stem=stem)), pure_python=pure)
    assert only_error(report) == (
        8, 15, "tags are not allowed (found '!!python/object/apply:os.system'); remove it")
    assert not marker.exists()


@pytest.mark.parametrize(("value", "tag"), [
    ("!!binary aGVsbG8=", "!!binary"), ("!custom x", "!custom"), ("!!str 8", "!!str"),
    ("!!python/name:os.system ''", "!!python/name:os.system"),
])
def test_scalar_tags_are_rejected(value: str, tag: str, pure: bool) -> None:
    line, column, message = only_error(load_bank_text(bank(question(stem=value)),
                                                      pure_python=pure))
    assert (line, column) == (8, 15)
    assert message.startswith(f"tags are not allowed (found '{tag}'); quote the value if it "
                              "is text: question: ")


def test_tag_on_a_mapping(pure: bool) -> None:
    report = load_bank_text(bank(question(options="!!map {A: a, B: b}")), pure_python=pure)
    assert only_error(report) == (9, 14, "tags are not allowed (found '!!map'); remove it")


# --- anchors and aliases -------------------------------------------------------------------------

def test_anchor_and_alias_on_collections(pure: bool) -> None:
    text = bank(question(options="&opts {A: a, B: b}"), question("q2", options="*opts"))
    report = load_bank_text(text, pure_python=pure)
    assert found(report) == [
        (9, 14, "error", "anchors are not allowed (found '&opts'); remove it"),
        (17, 14, "error", "'*opts' is read as an alias, and aliases are not allowed; quote the "
                          'value if it is text: options: "*opts"'),
    ]


# --- duplicate keys ------------------------------------------------------------------------------

def test_duplicate_key_names_both_lines(pure: bool) -> None:
    report = load_bank_text(bank(question(extra="    answer: A\n")), pure_python=pure)
    assert only_error(report) == (
        14, 5, "duplicate key 'answer' on line 14: it is already on line 10 (a key may appear "
               "once per mapping)")
    # The first value is the one kept while checking the rest: no cascade of other errors.


def test_duplicate_key_at_top_level_and_in_flow(pure: bool) -> None:
    text = bank(question(options="{A: a, B: b, B: c}")) + "bank: {id: x, title: y}\n"
    report = load_bank_text(text, pure_python=pure)
    assert found(report) == [
        # Both on line 9: the columns say which is which (it read "on line 9: it is already
        # on line 9").
        (9, 27, "error", "duplicate key 'B' at 9:27: it is already at 9:21 (a key may "
                         "appear once per mapping)"),
        (14, 1, "error", "duplicate key 'bank' on line 14: it is already on line 1 (a key may "
                         "appear once per mapping)"),
    ]


def test_key_that_is_a_list(pure: bool) -> None:
    report = load_bank_text(bank(question(extra="    [a, b]: x\n")), pure_python=pure)
    assert only_error(report) == (
        14, 5, "a key must be text, not a list or mapping (a '?' or a key in brackets makes one)")


# --- syntax errors -------------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"stem": '"never closed'},
     (8, 15, "this quoted value is never closed: add the closing quote")),
    ({"options": "[a, b"},
     (10, 11, "the '[' opened on line 9 is not closed: expected ',' or ']'")),
    ({"extra": "   bad: 1\n"},
     (14, 4, "this does not fit the list that starts on line 6: check the indentation (each "
             "item starts with '- ')")),
    ({"stem": "'it's here'"},
     (8, 19, "text goes on after the closing quote: inside '...' write '' for a quote (it''s), "
             "or use the other kind of quotes (\"it's\")")),
    ({"stem": "|x"},
     (8, 16, "after '|' or '>' the text starts on the next line (only a comment may follow on "
             "the same line)")),
    ({"stem": '"C:\\q"'},
     (8, 18, "unknown escape in a double-quoted value: write '\\\\' for a backslash, or use "
             "single quotes")),
    ({"extra": "     wrong: 1\n"},
     (14, 6, "this does not fit the mapping that starts on line 6: check the indentation, and "
             "quote any value that contains quotes or ': '")),
], ids=["quote", "bracket", "indent-list", "quote-in-quotes", "block-header", "escape",
        "indent-mapping"])
def test_syntax_errors_have_a_place_and_a_plain_message(kwargs: dict[str, str],
                                                        expected: tuple[int, int, str],
                                                        pure: bool) -> None:
    assert only_error(load_bank_text(bank(question(**kwargs)), pure_python=pure)) == expected


def test_raw_control_character_in_the_file(pure: bool) -> None:
    report = load_bank_text(bank(question(stem="a\x1bb")), pure_python=pure)
    assert only_error(report) == (
        8, 16, "character U+001B ESCAPE is not allowed in a YAML file (a control character); "
               "delete it, or write it as an escape in a double-quoted value")


# --- warnings: terminal control characters in text -----------------------------------------------

def test_control_characters_are_warnings_naming_them(pure: bool) -> None:
    text = bank(question(stem='"Press \\e[31mred\\e[0m"',
                         options='{A: "\\e]0;pwned\\a", B: "a\\0b"}',
                         review='{A: "a\\rb\\x9b"}',
                         extra="    references: [x\u202ey]\n"))
    report = load_bank_text(text, pure_python=pure)
    control = "is a terminal control character; the app shows it as '{}' (delete it unless " \
              "you meant it)"
    bidi = ("is a bidirectional control: it changes the order in which the text around it is "
            "shown; the app shows it as '\ufffd' (delete it unless you meant it)")
    # Each character at its own place: an escape at its backslash.
    assert found(report) == [
        (8, 22, "warning", "U+001B ESCAPE " + control.format("\u241b")),
        (8, 31, "warning", "U+001B ESCAPE " + control.format("\u241b")),
        (9, 19, "warning", "U+001B ESCAPE " + control.format("\u241b")),
        (9, 29, "warning", "U+0007 BELL " + control.format("\u2407")),
        (9, 39, "warning", "U+0000 NULL " + control.format("\u2400")),
        (13, 30, "warning", "U+000D CARRIAGE RETURN " + control.format("\u240d")),
        (13, 33, "warning", "U+009B CONTROL " + control.format("\ufffd")),
        (14, 19, "warning", "U+202E RIGHT-TO-LEFT OVERRIDE " + bidi),
    ]
    # Warnings only: the bank loads, and the text is kept exactly (the TUI makes it safe).
    assert report.ok
    q = report.library.questions[0]
    assert q.stem == "Press \x1b[31mred\x1b[0m"
    assert q.options == {"A": "\x1b]0;pwned\x07", "B": "a\x00b"}
    assert q.distractor_review == {"A": "a\rb\x9b"}
    assert q.references == ["x\u202ey"]


def test_clean_non_ascii_text_has_no_warning(pure: bool) -> None:
    report = load_bank_text(bank(question(stem="Qu’est-ce qu’un café — 7 × 10⁹ params?")),
                            pure_python=pure)
    assert report.diagnostics == []
    assert report.library.questions[0].stem == "Qu’est-ce qu’un café — 7 × 10⁹ params?"


def test_comment_cutting_a_multi_line_plain_value(pure: bool) -> None:
    report = load_bank_text(bank(question(short="Costs two\n      bytes # each")),
                            pure_python=pure)
    assert only_error(report) == (
        11, 24, "the text after ' #' was dropped as a comment ('# each'): a ' #' in unquoted "
                "text starts a comment; quote the value to keep it")
