"""Checks on a bank file's text before the YAML parser sees it.

These make the result independent of which YAML parser runs (libyaml or PyYAML's pure-Python one
disagree on byte-order marks and tabs) and keep hostile input cheap: everything here is a C-speed
string search, plus a short Python loop over the few places found.

- :func:`decode`: bytes → text; invalid UTF-8 is an error naming the byte offset and line:column.
- :func:`normalise`: strips a leading byte-order mark, turns CR LF and CR into LF, and reports a
  byte-order mark elsewhere, the YAML 1.1 line breaks U+0085/U+2028/U+2029 and over-long lines.
- :func:`resolve_tabs`: decides, for every tab, whether it is content (inside a quoted or block
  value), harmless separation (replaced by a space) or an error (indentation, unquoted text).
- :func:`flagged_problems`: after parsing, a warning at the line:column of each control,
  invisible or bidirectional character in a value (inside block and multi-line values too).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from quiz.bank.problems import MAX_REPORTED, Problem, Span, line_col, value_positions
from quiz.bank.terminal import character_name, flagged_characters, terminal_safe

MAX_LINE_LENGTH = 20_000
"""Longest line a bank file may have, in characters (a generous paragraph is a few hundred)."""

def decode(data: bytes) -> tuple[str | None, Problem | None]:
    """Decode a bank file's bytes as UTF-8 (a leading UTF-8 byte-order mark is dropped).

    Returns ``(text, None)``, or ``(None, problem)`` when the bytes are not UTF-8: the problem names
    the first bad byte, its byte offset and its line:column, and says to save the file as UTF-8.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, Problem(1, 1, "the file is UTF-16 or UTF-32 encoded (it starts with that "
                                   "byte-order mark); save the file as UTF-8")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        start = exc.start
        line_start = data.rfind(b"\n", 0, start) + 1
        line = data.count(b"\n", 0, start) + 1
        column = len(data[line_start:start].decode("utf-8", "replace")) + 1
        return None, Problem(
            line, column,
            f"this file is not valid UTF-8: byte 0x{data[start]:02X} at byte offset {start} "
            f"(line {line}, column {column}) cannot be decoded; save the file as UTF-8")


def normalise(text: str, *, from_utf8: bool = False) -> tuple[str, list[Problem]]:
    """Prepare decoded text for the parser.

    Drops a byte-order mark at position 0 and turns CR LF and lone CR into LF (YAML reads them
    as line breaks anyway; columns are unchanged). Reports, each at its line:column: a U+FEFF
    anywhere else (invisible, and the two parsers disagree on it), the characters YAML 1.1 reads as
    line breaks but editors do not (U+0085, U+2028, U+2029), lone surrogates (only a ``str``
    given to :func:`quiz.bank.load.load_bank_text` can hold one), and lines longer than
    :data:`MAX_LINE_LENGTH`. Any problem here is fatal: the caller must not parse the text.
    ``from_utf8``: the text was decoded from UTF-8 (:func:`decode`), which cannot give a lone
    surrogate: none is looked for (a scan of every character: 80 ms of a 40 MB bank's load).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    problems: list[Problem] = []
    if not text.isascii():
        odd = {"\ufeff": "a byte-order mark (U+FEFF) in the middle of the file: delete it "
                         "(it is invisible in most editors)",
               "\x85": "U+0085 NEXT LINE: YAML reads it as a line break; use a plain newline",
               "\u2028": "U+2028 LINE SEPARATOR: YAML reads it as a line break; use a plain "
                         "newline",
               "\u2029": "U+2029 PARAGRAPH SEPARATOR: YAML reads it as a line break; use a plain "
                         "newline"}
        for char, message in odd.items():
            problems += _each(text, char, message)
        if not from_utf8:
            problems += _surrogates(text)
    problems += _long_lines(text)
    return text, problems


_SURROGATES = re.compile("[\ud800-\udfff]")


def _surrogates(text: str) -> list[Problem]:
    # Only text given as a str can hold one: UTF-8 cannot encode a surrogate.
    return [Problem(*line_col(text, found.start()), f"U+{ord(found[0]):04X} is a lone UTF-16 "
                    "surrogate, not a character; save the file as UTF-8")
            for _, found in zip(range(MAX_REPORTED), _SURROGATES.finditer(text), strict=False)]


def _each(text: str, char: str, message: str) -> list[Problem]:
    found: list[Problem] = []
    index = text.find(char)
    while index != -1 and len(found) < MAX_REPORTED:
        found.append(Problem(*line_col(text, index), message))
        index = text.find(char, index + 1)
    return found


def _long_lines(text: str) -> list[Problem]:
    # A line of MAX_LINE_LENGTH+1 characters or more fully contains an aligned block of half that
    # size with no line break, so looking at len/half blocks finds every candidate.
    half = MAX_LINE_LENGTH // 2
    found: list[Problem] = []
    start = 0
    while start < len(text) and len(found) < MAX_REPORTED:
        if text.find("\n", start, start + half) == -1 and len(text) - start >= half:
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start)
            line_end = len(text) if line_end == -1 else line_end
            if line_end - line_start > MAX_LINE_LENGTH:
                line, _ = line_col(text, line_start)
                found.append(Problem(line, 1, f"line {line} is {line_end - line_start:,} "
                                     f"characters long; a bank line may have at most "
                                     f"{MAX_LINE_LENGTH:,} (break long text over several lines, "
                                     f"e.g. in a '|' block)"))
            start = max(line_end, start + half)
        else:
            start += half
    return found


def resolve_tabs(text: str, spans: Iterable[Span]) -> tuple[str, list[Problem]]:
    """Decide what each tab in ``text`` is, the same way whichever parser runs next.

    ``spans`` are the scalars found by parsing ``text`` with every tab replaced by a space, in
    text order (possibly cut short by a syntax error); they are consumed lazily, so a file whose
    first tabs are errors is not parsed to its end. A tab is kept as content inside a quoted value,
    and inside a block value (``|``/``>``) past the block's indentation. A tab in a line's
    indentation, or inside an unquoted value, is an error. Any other tab (after ``key:``, after
    ``-``, before a comment, on a blank or comment line, inside flow brackets) only separates
    tokens: it becomes a space, as libyaml reads it (the pure-Python parser would reject it).

    Returns the text to parse (the same length, so every line:column still holds) and the errors;
    after :data:`MAX_REPORTED` errors it stops looking (the text must then not be parsed).
    """
    out = list(text)
    problems: list[Problem] = []
    upcoming = iter(spans)
    span: Span | None = next(upcoming, None)
    block: tuple[int, int, int] | None = None  # (span start, first content line end, indent)
    index = text.find("\t")
    while index != -1:
        while span is not None and span.end <= index:
            span = next(upcoming, None)
        inside = span if span is not None and span.start <= index else None
        line_start = text.rfind("\n", 0, index) + 1
        before = text[line_start:index]
        leading = not before.strip(" \t")
        message = None
        if inside is not None and inside.kind == "quoted":
            message = ""  # content
        elif inside is not None and inside.kind == "block" and line_start > inside.start:
            if block is None or block[0] != inside.start:
                block = (inside.start, *_block_indent(text, inside))
            if leading and (line_start <= block[1] or len(before) < block[2]):
                message = "use spaces to indent, not tabs"
            else:
                message = ""  # content: past the block's indentation
        elif inside is not None and inside.kind == "plain":
            message = ("use spaces to indent, not tabs" if leading else
                       "a tab inside unquoted text: quote the value (\"...\") to keep the tab, "
                       "or use a space")
        elif leading:
            line_end = text.find("\n", index)
            rest = text[index:len(text) if line_end == -1 else line_end].lstrip(" \t")
            if rest and not rest.startswith("#"):
                message = "use spaces to indent, not tabs"
        if message:
            problems.append(Problem(*line_col(text, index), message))
            if len(problems) >= MAX_REPORTED:
                break
        if message != "":
            out[index] = " "
        index = text.find("\t", index + 1)
    return "".join(out), problems


def _block_indent(text: str, span: Span) -> tuple[int, int]:
    """For a block scalar: the index where its first non-blank content line ends, and that line's
    indentation (leading spaces and tabs)."""
    pos = text.find("\n", span.start) + 1
    while 0 < pos < span.end:
        end = text.find("\n", pos)
        end = span.end if end == -1 else end
        line = text[pos:end]
        if line.strip(" \t"):
            return end, len(line) - len(line.lstrip(" \t"))
        pos = end + 1
    return span.end, 0


_BIDI_CLASSES = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


def _kind(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cc":
        return "a terminal control character"
    bidi = unicodedata.bidirectional(char)
    if bidi in _BIDI_CLASSES or (bidi in ("L", "R", "AL") and
                                 unicodedata.name(char, "").endswith(" MARK")):
        return "a bidirectional control: it changes the order in which the text around it is shown"
    if category in ("Zl", "Zp"):
        return "a line break that terminals do not show"
    return "an invisible character"


def flagged_problems(text: str, scalars: Iterable[tuple[int, str]]) -> list[Problem]:
    """A warning for each character of the values in ``scalars`` that never reaches the terminal
    as it is (see :func:`quiz.bank.terminal.flagged_characters`), at its own line:column.

    ``scalars`` are ``(index where the scalar starts in text, value)``, from
    :attr:`quiz.bank.yaml_reader.Document.flagged`. Each character is found where it was written,
    in a block or multi-line value too; an escape (``"\\e"``) is reported at its backslash.
    After :data:`MAX_REPORTED` warnings, one more says how many were left out."""
    problems: list[Problem] = []
    left_out = 0
    for start, value in scalars:
        found = flagged_characters(value)
        if len(problems) + len(found) > MAX_REPORTED:
            left_out += len(found) - max(0, MAX_REPORTED - len(problems))
            found = found[:max(0, MAX_REPORTED - len(problems))]
        places = value_positions(text, start, value, [offset for offset, _ in found])
        for (_, char), index in zip(found, places, strict=True):
            problems.append(Problem(
                *line_col(text, start if index is None else index),
                f"{character_name(char)} is {_kind(char)}; the app shows it as "
                f"'{terminal_safe(char)}' (delete it unless you meant it)", "warning"))
    if left_out:
        first = problems[-1]
        problems.append(Problem(first.line, first.column, f"{left_out} more control or invisible "
                                "characters in this file are not listed", "warning"))
    return problems
