"""Human messages for everything that can be wrong in a bank file, each with its line:column.

The YAML side of the problems is translated here:

- YAML syntax errors (:func:`syntax_problem`): libyaml and the pure-Python parser word the same
  error differently; both are mapped to one message. Where the likely cause is unquoted text that
  YAML reads as syntax (``*args``, ``@property``, ``!= 5``, ``key: value`` or `` #`` inside a
  value), the message ends with the line rewritten with the value quoted and points at the value.
- other reading problems: tags, anchors, aliases, nesting, comments that cut a value short,
  escapes that are no character.

Validation errors are located and worded by :mod:`quiz.bank.validation_messages`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from quiz.bank.problems import Problem, line_col, mark_position
from quiz.bank.terminal import character_name
from quiz.yamlio import BAD_ESCAPE

_ITEM = re.compile(r"(?P<lead> *(?:- +)*)(?:(?P<key>[\w.-]+): +)?(?P<value>.*?) *$")
_PLAIN_TROUBLE = re.compile(r"^[*&!@`%]|: |:$| #")


class _Mark(NamedTuple):
    line: int
    column: int


# --- Quoting hints -----------------------------------------------------------------------------

def quoted(value: str) -> str:
    """``value`` as a double-quoted YAML string (backslashes and quotes escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote_hint(lines: Sequence[str], line: int) -> tuple[int, int, str] | None:
    """If 0-based ``line`` is ``key: value`` or ``- value`` with an unquoted value that YAML would
    read as syntax, return the value's 1-based (line, column) and the line rewritten with the value
    double-quoted (``key: "value"``)."""
    if not 0 <= line < len(lines):
        return None
    match = _ITEM.fullmatch(lines[line])
    if match is None or not (match["key"] or match["lead"].strip()):
        return None
    value = match["value"]
    if not value or value[0] in "\"'|>[{#" or not _PLAIN_TROUBLE.search(value):
        return None
    prefix = f"{match['key']}:" if match["key"] else "-"
    return line + 1, match.start("value") + 1, f"{prefix} {quoted(value)}"


def _flow_comment_hint(lines: Sequence[str], mark: Any) -> tuple[int, int, str] | None:
    """A `` #`` inside ``{...}``/``[...]`` on one line: the rest of the line became a comment."""
    if mark is None or not 0 <= mark.line < len(lines):
        return None
    text = lines[mark.line]
    hash_at = text.find(" #", mark.column)
    if hash_at == -1:
        return None
    start = max(text.rfind(c, mark.column, hash_at) for c in "{[,") + 1
    match = re.match(r" *(?:([\w.-]+): +)?", text[start:hash_at])
    key = match[1] if match else None
    value_at = start + (match.end() if match else 0)
    end = min((i for i in (text.find(c, hash_at) for c in ",]}") if i != -1), default=len(text))
    value = text[value_at:end].rstrip()
    close = "}" if text[mark.column] == "{" else "]"
    prefix = f"{key}: " if key else ""
    return mark.line + 1, value_at + 1, (
        f"the text after ' #' on line {mark.line + 1} was dropped as a comment (and with it the "
        f"closing '{close}'); quote this value: {prefix}{quoted(value)}")


def _with_hint(message: str, lines: Sequence[str], mark: Any,
               scalar: bool = True) -> tuple[int, int, str]:
    if not scalar:
        return mark.line + 1, mark.column + 1, f"{message}; remove it"
    hint = quote_hint(lines, mark.line)
    if hint is not None and hint[1] == mark.column + 1:  # the node is the whole value
        return hint[0], hint[1], f"{message}; quote the value if it is text: {hint[2]}"
    return mark.line + 1, mark.column + 1, f"{message}; quote the value if it is text"


def tag_message(tag: str, lines: Sequence[str], mark: Any, scalar: bool = True) -> str:
    """Message for an explicit tag (``!!binary``, ``!!python/object:...``, ``!= 5``); the
    "quote the value" hint is for scalars only."""
    shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
    return _with_hint(f"tags are not allowed (found '{shown}')", lines, mark, scalar)[2]


def anchor_message(anchor: str, lines: Sequence[str], mark: Any, scalar: bool = True) -> str:
    """Message for an anchor (``&name``); the "quote the value" hint is for scalars only."""
    return _with_hint(f"anchors are not allowed (found '&{anchor}')", lines, mark, scalar)[2]


def alias_message(anchor: str, lines: Sequence[str], mark: Any) -> str:
    """Message for an alias (``*name``), which YAML would read as a reference to an anchor."""
    return _with_hint(f"'*{anchor}' is read as an alias, and aliases are not allowed",
                      lines, mark)[2]


def depth_message(limit: int) -> str:
    """Message for nesting deeper than ``limit`` levels."""
    return (f"nesting deeper than {limit} levels: a bank never needs that (is a bracket left "
            "open, or is this not a bank file?)")


def comment_message(lines: Sequence[str], start: Any, end: Any) -> str:
    """Error for a free-text value cut short by `` #`` (the rest became a comment); ``start``
    and ``end`` are the value's marks (the comment follows ``end`` on its line)."""
    comment = lines[end.line][end.column:].strip()
    hint = quote_hint(lines, start.line) if start.line == end.line else None
    fix = f"; quote this value to keep it: {hint[2]}" if hint else "; quote the value to keep it"
    return (f"the text after ' #' was dropped as a comment ({comment!r}): a ' #' in unquoted "
            f"text starts a comment{fix}")


# --- YAML syntax errors ------------------------------------------------------------------------

def syntax_problem(exc: Any, lines: Sequence[str], *, keys: Collection[str] = (),
                   last: Any = None) -> Problem:
    """Translate a ``yaml.MarkedYAMLError`` into one located :class:`Problem`.

    ``keys`` are the key names a bank may use: ``': '`` on a line that starts with one of them is
    explained as a key indented too far. ``last`` is the last event read before the error: a
    quoted value that ran on over lines that look like ``key:`` lines is a quote never closed,
    reported at the opening quote.
    """
    mark = exc.problem_mark or exc.context_mark
    unclosed = _unclosed_quote(lines, last, mark)
    if unclosed is not None:
        return unclosed
    problem, context = exc.problem or "", exc.context or ""
    ctx = exc.context_mark
    ctx_line = ctx.line + 1 if ctx is not None else mark.line + 1
    char = ""
    if 0 <= mark.line < len(lines) and mark.column < len(lines[mark.line]):
        char = lines[mark.line][mark.column]
    if "flow" in context and (flow := _flow_comment_hint(lines, ctx)) is not None:
        return Problem(*flow)
    if "mapping values are not allowed" in problem and \
            (indented := _indented_key(lines, mark, keys)) is not None:
        return indented
    if "mapping values are not allowed" in problem:
        message = "': ' inside unquoted text starts a new key"
    elif "cannot start any token" in problem:
        message = f"'{char}' cannot start an unquoted value (YAML reserves it)"
    elif "nesting depth" in problem:
        message = depth_message(1000)
    elif "block mapping" in context and _after_quote(lines, mark):
        message = ("text goes on after the closing quote: inside '...' write '' for a quote "
                   "(it''s), or use the other kind of quotes (\"it's\")")
    elif "block mapping" in context:
        message = (f"this does not fit the mapping that starts on line {ctx_line}: check the "
                   "indentation, and quote any value that contains quotes or ': '")
    elif "block collection" in context:
        message = (f"this does not fit the list that starts on line {ctx_line}: check the "
                   "indentation (each item starts with '- ')")
    elif (m := re.search(r"expected ',' or '(.)'", problem)) is not None:
        opened = "[" if m[1] == "]" else "{"
        message = (f"the '{opened}' opened on line {ctx_line} is not closed: expected ',' or "
                   f"'{m[1]}'")
    elif BAD_ESCAPE in problem and ctx is not None:
        return Problem(ctx.line + 1, ctx.column + 1, _bad_escape_message(lines, ctx, mark))
    elif "quoted scalar" in context and "escape" in problem:
        message = ("unknown escape in a double-quoted value: write '\\\\' for a backslash, or use "
                   "single quotes")
        if mark.column > 0 and lines[mark.line][mark.column - 1:mark.column] == "\\":
            mark = _Mark(mark.line, mark.column - 1)  # libyaml points at the '\\', PyYAML after it
    elif "quoted scalar" in context and "end of stream" in problem and ctx is not None:
        return Problem(ctx.line + 1, ctx.column + 1, "this quoted value is never closed: add the "
                       "closing quote")
    elif "quoted scalar" in context:
        message = f"bad quoted value: {problem}"
    elif "block scalar" in context:
        message = ("after '|' or '>' the text starts on the next line (only a comment may follow "
                   "on the same line)")
    elif "simple key" in context:
        message = f"the key on line {ctx_line} has no ':' after it"
    elif "node content" in problem:
        message = "a value is missing here"
    elif "alias" in context or "anchor" in context:
        message = "anchors and aliases are not allowed"
    elif "tag" in context or "tag" in problem:
        message = "tags are not allowed"
    else:
        message = f"YAML syntax error: {problem}" + (f" ({context}, line {ctx_line})"
                                                     if context else "")
    hint = quote_hint(lines, mark.line)
    if hint is not None and hint[1] <= mark.column + 1:
        return Problem(hint[0], hint[1], f"{message}; quote this value: {hint[2]}")
    return Problem(mark.line + 1, mark.column + 1, message)


_KEY_LINE = re.compile(r"(?P<lead> *(?:- +)*)(?P<key>[\w.-]+):(?: |$)")


def _unclosed_quote(lines: Sequence[str], last: Any, mark: Any) -> Problem | None:
    """A quoted value that ran on from its line to the line of the error, over lines that look
    like ``key: ...``: its closing quote is missing (YAML took the following lines as more text,
    up to the next quote character)."""
    if last is None or getattr(last, "style", None) not in ('"', "'") or mark is None:
        return None
    start, end = last.start_mark, last.end_mark
    if start.line == end.line or not start.line < mark.line <= end.line + 1:
        return None
    taken = [n for n in range(start.line + 1, min(end.line + 1, len(lines)))
             if _KEY_LINE.match(lines[n])]
    if not taken:
        return None
    return Problem(start.line + 1, start.column + 1, (
        f"the {last.style} opened here is never closed: YAML reads lines {start.line + 2}-"
        f"{end.line + 1} as more of this value; add the closing {last.style} on line "
        f"{start.line + 1}"))


def _indented_key(lines: Sequence[str], mark: Any, keys: Collection[str]) -> Problem | None:
    """``key: value`` where ``key`` is a known key but the line is indented under a plain value
    above it, so YAML read ``key`` as more text of that value."""
    if not 0 <= mark.line < len(lines):
        return None
    here = _KEY_LINE.match(lines[mark.line])
    if here is None or here["key"] not in keys or here.end("key") != mark.column:
        return None
    column = here.start("key")
    for above in range(mark.line - 1, -1, -1):
        text = lines[above]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        owner = _KEY_LINE.match(text)
        if owner is not None and owner.start("key") < column:
            return Problem(mark.line + 1, column + 1, (
                f"'{here['key']}' is indented too far: YAML reads it as more text of "
                f"'{owner['key']}' on line {above + 1}; start it in column "
                f"{owner.start('key') + 1}, like '{owner['key']}'"))
        if owner is None and len(text) - len(text.lstrip(" -")) < column:
            break
    return Problem(mark.line + 1, column + 1, (
        f"'{here['key']}' is indented too far: YAML reads it as more text of the value above; "
        "line it up with the keys beside it"))


_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|.)")


def _bad_escape_message(lines: Sequence[str], start: Any, end: Any) -> str:
    """Message for a ``\\u``/``\\U`` escape that is no character, found again in the text of the
    double-quoted value that starts at ``start`` (the parsers stop at it, near ``end``)."""
    text = "\n".join([lines[start.line][start.column + 1:]]
                     + list(lines[start.line + 1:end.line + 1]))
    escapes = list(_ESCAPE.finditer(text))
    for i, found in enumerate(escapes):
        digits = found[1] or found[2]
        if digits is None:
            continue
        code = int(digits, 16)
        after = escapes[i + 1] if i + 1 < len(escapes) else None
        low = int(after[1], 16) if after and after[1] and after.start() == found.end() else 0
        if 0xD800 <= code <= 0xDBFF and 0xDC00 <= low <= 0xDFFF:
            joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            return (f"\\u{code:04X}\\u{low:04X} is a UTF-16 surrogate pair, which YAML does not "
                    f"read as one character: write the character itself, or \\U{joined:08X}")
        if 0xD800 <= code <= 0xDFFF:
            return (f"\\u{code:04X} is a lone UTF-16 surrogate, not a character: write the "
                    "character itself, or a \\U00XXXXXX escape")
        if code > 0x10FFFF:
            return (f"\\U{code:08X} is not a character: Unicode ends at U+10FFFF (write "
                    "\\U0010FFFF or less)")
    return "an escape in this double-quoted value is not a character"  # pragma: no cover


_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd"
                            "\U00010000-\U0010ffff]")


def _after_quote(lines: Sequence[str], mark: Any) -> bool:
    """True when the error is on a ``key: 'quoted' more`` line, after the quoted part."""
    if not 0 <= mark.line < len(lines):
        return False
    match = _ITEM.fullmatch(lines[mark.line])
    return bool(match and match["value"][:1] in ("'", '"') and match.start("value") < mark.column)


def reader_problem(exc: Any, text: str) -> Problem:
    """Translate a ``yaml.reader.ReaderError`` (a character YAML does not allow in a file), or any
    other error either parser raises while reading characters, into a located problem.

    libyaml gives a byte offset and the pure reader a character index, so the character is
    looked up again here: both report the first one in the text."""
    found = _NON_PRINTABLE.search(text)
    if found is None:  # not a character problem after all: say what the parser said, where
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        return Problem(*mark_position(mark), f"YAML could not read this file: {exc}")
    line, column = line_col(text, found.start())
    shown = character_name(found.group())
    return Problem(line, column, f"character {shown} is not allowed in a YAML file (a control "
                   "character); delete it, or write it as an escape in a double-quoted value")
