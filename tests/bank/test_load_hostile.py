"""Input on which libyaml and the pure parser natively disagree (tabs, stray byte-order marks) gives
one result; hostile or broken input gives diagnostics quickly, never a crash or a traceback."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import quiz.bank.load as load_module
from quiz import yamlio
from quiz.bank.load import load_bank_text, load_library
from quiz.bank.model import BankFile
from quiz.bank.yaml_reader import MAX_DEPTH

from .helpers import HEAD, bank, found, only_error, question

INDENT = "use spaces to indent, not tabs"
BOM = ("a byte-order mark (U+FEFF) in the middle of the file: delete it (it is invisible in most "
       "editors)")

# (text, expected diagnostics as (line, column, message), expected stem or None)
SAME_BOTH_WAYS: dict[str, tuple[str, list[tuple[int, int, str]], str | None]] = {
    "tab-after-key": (bank(question()).replace("question: ", "question:\t"), [],
                      "What is stored?"),
    "tab-before-comment": (bank(question(answer="B\t# right")), [], "What is stored?"),
    "tab-after-value": (bank(question(stem="What?\t")), [], "What?"),
    "tab-after-dash": (bank(question()).replace("  - id", "  -\tid"), [], "What is stored?"),
    "tab-in-flow": (bank(question(options="{A: Alpha,\tB: Bravo}")), [], "What is stored?"),
    "tab-blank-line": (bank(question(extra="\t\n\t# note\n")), [], "What is stored?"),
    "tab-in-double-quotes": (bank(question(stem='"a\tb"')), [], "a\tb"),
    "tab-in-single-quotes": (bank(question(stem="'a\tb'")), [], "a\tb"),
    "tab-in-block": (bank(question(stem="|\n      x\n      \ty")), [], "x\n\ty\n"),
    "tab-on-block-header": (bank(question(stem="|\t\n      x")), [], "x\n"),
    "tab-indent": (bank(question()).replace("    topic:", "\ttopic:"), [(7, 1, INDENT)], None),
    "tab-indent-after-spaces": (bank(question()).replace("    topic:", "  \t topic:"),
                                [(7, 3, INDENT)], None),
    "tab-indent-in-block": (bank(question(stem="|\n      x\n    \ty")), [(10, 5, INDENT)], None),
    "tab-first-block-line": (bank(question(stem="|\n     \tx")), [(9, 6, INDENT)], None),
    "tab-continuation-line": (bank(question(stem="What\n\tis stored?")), [(9, 1, INDENT)],
                              None),
    "tab-inside-plain-text": (bank(question(stem="a\tb")), [
        (8, 16, 'a tab inside unquoted text: quote the value ("...") to keep the tab, or use a '
                'space')], None),
    "bom-at-start": ("\ufeff" + bank(), [], "What is stored?"),
    "bom-line-start": (bank(question()).replace("    topic:", "\ufeff    topic:"),
                       [(7, 1, BOM)], None),
    "bom-in-plain-text": (bank(question(stem="a\ufeffb")), [(8, 16, BOM)], None),
    "bom-in-quotes": (bank(question(stem='"a\ufeffb"')), [(8, 17, BOM)], None),
    "bom-twice": ("\ufeff" + bank() + "\ufeff", [(14, 1, BOM)], None),
}


@pytest.mark.parametrize("case", list(SAME_BOTH_WAYS))
def test_tabs_and_byte_order_marks_give_one_result(case: str) -> None:
    text, expected, stem = SAME_BOTH_WAYS[case]
    fast = load_bank_text(text, "f.yaml", pure_python=False)
    slow = load_bank_text(text, "f.yaml", pure_python=True)
    assert [str(d) for d in fast.diagnostics] == [str(d) for d in slow.diagnostics]
    assert [(d.line, d.column, d.message) for d in fast.diagnostics] == expected
    if stem is None:
        assert fast.library is None and slow.library is None
    else:
        assert fast.library is not None and slow.library is not None
        assert fast.library.questions[0].stem == stem
        assert ([q.model_dump() for q in fast.library.questions]
                == [q.model_dump() for q in slow.library.questions])


def test_bytes_with_byte_order_marks(pure: bool) -> None:
    assert load_bank_text(b"\xef\xbb\xbf" + bank().encode(), pure_python=pure).ok
    report = load_bank_text(bank().encode().replace(b"  - id", b"\xef\xbb\xbf  - id"),
                            pure_python=pure)
    assert only_error(report) == (6, 1, BOM)


@pytest.mark.parametrize(("char", "name"), [
    ("\x85", "U+0085 NEXT LINE"), ("\u2028", "U+2028 LINE SEPARATOR"),
    ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
])
def test_unicode_line_breaks_are_errors(char: str, name: str, pure: bool) -> None:
    report = load_bank_text(bank(question(stem=f"a{char}b")), pure_python=pure)
    assert only_error(report) == (8, 16, f"{name}: YAML reads it as a line break; use a plain "
                                         "newline")


# --- hostile input: diagnostics in bounded memory ----------------------------------------

PEAK_LIMIT_BYTES = 32_000_000
"""Most memory Python may hold while one hostile text is read. Each text below is read with a
peak under 7 MB; one that expanded its aliases (the billion laughs: 9**8 strings), recursed
into its nesting or copied a 10 MB line around would take hundreds of MB. Memory, not time:
a bound on wall time is a timed unit test, and it fails on a busy machine, not on slow code
(speed targets live in benchmarks/)."""


def bounded(text: str, pure: bool) -> Any:
    """The load report of ``text``, asserting the read stayed under :data:`PEAK_LIMIT_BYTES`."""
    tracemalloc.start()
    try:
        report = load_bank_text(text, "f.yaml", pure_python=pure)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_LIMIT_BYTES
    return report


BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_billion_laughs(pure: bool) -> None:
    report = bounded(BILLION_LAUGHS, pure)
    assert report.library is None
    messages = found(report)
    assert (1, 4, "error", "anchors are not allowed (found '&a'); remove it") in messages
    assert (2, 8, "error", "'*a' is read as an alias, and aliases are not allowed; quote the "
                           "value if it is text") in messages
    assert len(messages) < 120


def test_many_aliases_stop_at_a_hundred_problems(pure: bool) -> None:
    report = bounded("a: [\n" + ",\n".join(["*x"] * 100_000) + "]\n", pure)
    assert len(report.diagnostics) == 101
    assert report.diagnostics[-1].message == ("more than 100 problems: stopped reading this "
                                              "file here")


@pytest.mark.parametrize("opening", ["[", "{a: "])
def test_deep_nesting_is_rejected_before_any_recursion(opening: str, pure: bool) -> None:
    # 100,000 levels, one per line: no line is long, so only the depth check stops it.
    report = bounded((opening + "\n") * 100_000, pure)
    line, column, message = only_error(report)
    assert (line, column) == (MAX_DEPTH + 1, 1)
    assert message.startswith(f"nesting deeper than {MAX_DEPTH} levels")


def test_deep_block_nesting(pure: bool) -> None:
    report = bounded("- " * 9_000, pure)  # nested block lists: "- - - - ..."
    assert only_error(report)[:2] == (1, 2 * MAX_DEPTH + 1)


def test_deep_nesting_beyond_libyamls_own_limit_on_one_line(pure: bool) -> None:
    # libyaml stops at 1,000 levels with its own error before this loader sees the 33rd: the
    # loader then reads the text with the pure parser, so both report the same place.
    report = bounded("[" * 5_000, pure)
    assert only_error(report)[:2] == (1, MAX_DEPTH + 1)


def test_depth_inside_a_real_bank(pure: bool) -> None:
    deep = "{k: " * 40 + "x" + "}" * 40
    report = bounded(bank(question(extra=f"    worked_example: {{footprint: {deep}}}\n")), pure)
    # Levels: the root, questions, the question, worked_example's mapping (which holds the
    # footprint key); so the 33rd level is the 29th "{k: ", and the first one is at column 33.
    assert only_error(report)[:2] == (14, 33 + 4 * 28)


def test_ten_megabyte_line(pure: bool) -> None:
    report = bounded(HEAD.replace("Demo bank", "x" * 10_000_000), pure)
    assert only_error(report) == (
        3, 1, "line 3 is 10,000,009 characters long; a bank line may have at most 20,000 "
              "(break long text over several lines, e.g. in a '|' block)")


def test_many_tab_errors_stop_early(pure: bool) -> None:
    report = bounded("a:\n" + "\tb: 1\n" * 100_000, pure)
    assert len(report.diagnostics) == 20
    assert report.diagnostics[0].message == INDENT


# --- never a traceback, never a paused garbage collector ----------------------------------------

def test_unexpected_exception_becomes_an_internal_error(monkeypatch: pytest.MonkeyPatch,
                                                        pure: bool) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(BankFile, "model_validate", boom)
    report = load_bank_text(bank(), "broken.yaml", pure_python=pure)
    assert report.library is None
    assert [str(d) for d in report.diagnostics] == [
        "broken.yaml: error: internal error while loading this file (RecursionError: maximum "
        "recursion depth exceeded); please report it (set QUIZ_DEBUG=1 to see the traceback)"]
    assert gc.isenabled()


def test_quiz_debug_shows_the_traceback_behind_an_internal_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pure: bool) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(BankFile, "model_validate", boom)
    monkeypatch.delenv("QUIZ_DEBUG", raising=False)
    load_bank_text(bank(), "broken.yaml", pure_python=pure)
    assert "Traceback" not in capsys.readouterr().err
    monkeypatch.setenv("QUIZ_DEBUG", "1")
    report = load_bank_text(bank(), "broken.yaml", pure_python=pure)
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in boom" in err
    assert report.diagnostics[0].message.startswith("internal error while loading this file")


def test_parser_crash_becomes_an_internal_error(monkeypatch: pytest.MonkeyPatch,
                                                pure: bool) -> None:
    def broken_parser(text: str, *, pure_python: bool = False) -> Any:
        raise MemoryError("out of memory")

    monkeypatch.setattr(yamlio, "parser", broken_parser)
    report = load_bank_text(bank(), "f.yaml", pure_python=pure)
    assert report.diagnostics[0].message.startswith("internal error while loading this file "
                                                    "(MemoryError: out of memory)")
    assert gc.isenabled()


def test_garbage_collector_state_is_restored(pure: bool) -> None:
    gc.disable()
    try:
        load_bank_text(bank(), pure_python=pure)
        assert not gc.isenabled()
    finally:
        gc.enable()
    load_bank_text(bank(), pure_python=pure)
    assert gc.isenabled()


# --- escapes that are no character: one located error from both parsers ------------------------

LONE = ("is a lone UTF-16 surrogate, not a character: write the character itself, or a "
        "\\U00XXXXXX escape")
BAD_ESCAPES = {
    # option B's value starts at line 9, column 28 (its opening quote)
    "lone-high": (r'"\uD800 lone"', "\\uD800 " + LONE),
    "lone-low-lowercase": (r'"ok \udc00"', "\\uDC00 " + LONE),
    "long-form": (r'"\U0000DBFF"', "\\uDBFF " + LONE),
    "after-other-escapes": (r'"\\ \" \u00e9 \uDFFF"', "\\uDFFF " + LONE),
    "pair": (r'"\uD83D\uDE00"', "\\uD83D\\uDE00 is a UTF-16 surrogate pair, which YAML does "
                                "not read as one character: write the character itself, or "
                                "\\U0001F600"),
    "beyond-unicode": (r'"\U00110000"', "\\U00110000 is not a character: Unicode ends at "
                                        "U+10FFFF (write \\U0010FFFF or less)"),
    "far-beyond": (r'"\UFFFFFFFF"', "\\UFFFFFFFF is not a character: Unicode ends at U+10FFFF "
                                    "(write \\U0010FFFF or less)"),
}


@pytest.mark.parametrize("case", list(BAD_ESCAPES))
def test_escape_that_is_no_character_gives_one_error_both_ways(case: str) -> None:
    value, message = BAD_ESCAPES[case]
    text = bank(question(options=f"{{A: Alpha, B: {value}}}"))
    fast = load_bank_text(text, "f.yaml", pure_python=False)
    slow = load_bank_text(text, "f.yaml", pure_python=True)
    assert [str(d) for d in fast.diagnostics] == [str(d) for d in slow.diagnostics]
    assert only_error(slow) == (9, 28, message)


def test_escape_that_is_no_character_in_a_multi_line_value(pure: bool) -> None:
    text = bank(question(stem='"first line\n      second \\uD800 line"'))
    assert only_error(load_bank_text(text, pure_python=pure)) == (8, 15, "\\uD800 " + LONE)


def test_escaped_backslash_before_u_is_plain_text(pure: bool) -> None:
    report = load_bank_text(bank(question(stem=r'"C:\\uD800"')), pure_python=pure)
    assert report.diagnostics == []
    assert report.library.questions[0].stem == "C:\\uD800"


def test_lone_surrogate_in_text_given_as_str(pure: bool) -> None:
    # Only a str can hold one (UTF-8 cannot); libyaml used to fail with an internal error.
    report = load_bank_text(bank(question(stem="a\ud800b")), pure_python=pure)
    assert only_error(report) == (8, 16, "U+D800 is a lone UTF-16 surrogate, not a character; "
                                         "save the file as UTF-8")


# --- paths that are not regular files: refused before they are opened ------------------------

ROOT = Path(__file__).resolve().parents[2]
NOT_REGULAR = "error: not a regular file ({}): give a bank file or a folder of them"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def load_elsewhere(*paths: Path | str, pure: bool = False, before: str = "") -> list[str]:
    """``load_library(paths)`` in a child process with a 30 s timeout and a 2 GiB memory cap, so
    a loader that blocks on a named pipe or reads a device forever fails the test (the timeout
    raises) instead of hanging it or eating the machine's memory. ``before`` is code run in the
    child before loading."""
    script = ("import json, os, resource, sys\n"
              "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
              "from quiz.bank.load import load_library\n"
              f"{before}\n"
              "report = load_library(sys.argv[2:], pure_python=sys.argv[1] == '1')\n"
              "print(json.dumps([str(d) for d in report.diagnostics]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(int(pure)), *map(str, paths)],
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout))


@needs_fifo
def test_named_pipe_given_by_name_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert load_elsewhere(fifo) == [f"{fifo}: " + NOT_REGULAR.format("a named pipe")]


@needs_fifo
def test_named_pipe_in_a_folder_is_refused_without_blocking(tmp_path: Path, pure: bool) -> None:
    (tmp_path / "a.yaml").write_text(bank())
    os.mkfifo(tmp_path / "b.yaml")
    assert load_elsewhere(tmp_path, pure=pure) == [
        f"{tmp_path / 'b.yaml'}: " + NOT_REGULAR.format("a named pipe")]


@needs_fifo
def test_file_that_becomes_a_named_pipe_after_the_check_does_not_block(tmp_path: Path) -> None:
    # The stat says "regular file"; what is opened is a pipe: opening must not wait for a writer.
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    (tmp_path / "real.yaml").write_text(bank())
    lie = ("real_stat = os.stat\n"
           f"os.stat = lambda p, *a, **k: real_stat({str(tmp_path / 'real.yaml')!r}) "
           f"if str(p) == {str(fifo)!r} else real_stat(p, *a, **k)\n")
    assert load_elsewhere(fifo, before=lie) == [f"{fifo}: " + NOT_REGULAR.format("a named pipe")]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_device_is_refused_without_reading_it() -> None:
    assert load_elsewhere("/dev/zero") == ["/dev/zero: " + NOT_REGULAR.format("a character device")]


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="no /proc here")
def test_reading_is_capped_whatever_the_file_size_says(monkeypatch: pytest.MonkeyPatch) -> None:
    # Files in /proc are regular files whose size is 0 however much they hold.
    monkeypatch.setattr(load_module, "MAX_FILE_BYTES", 100)
    report = load_library(["/proc/self/maps"])
    assert [str(d) for d in report.diagnostics] == [
        "/proc/self/maps: error: this file has more than 100 bytes; a bank file may have at most "
        "100 bytes"]
