"""Human messages for everything that can be wrong in a bank file, each with its line:column.

Two sources of problems are translated here:

- YAML syntax errors (:func:`syntax_problem`): libyaml and the pure-Python parser word the same
  error differently; both are mapped to one message. Where the likely cause is unquoted text that
  YAML reads as syntax (``*args``, ``@property``, ``!= 5``, ``key: value`` or `` #`` inside a
  value), the message ends with the line rewritten with the value quoted and points at the value.
- pydantic validation errors (:func:`validation_problems`): each error's ``loc`` is followed
  through the loaded values to the mark where that value (or key, or the mapping lacking a key)
  was written, and the message is said in YAML terms ("expected text, found a list", "unknown key
  'optoins'; did you mean 'options'?"), using the names written in the file (``question``, not
  the model's ``stem``).
"""

from __future__ import annotations

import re
import types
from collections.abc import Sequence
from difflib import get_close_matches
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from quiz.bank.model import BankFile
from quiz.bank.source import Problem, line_col
from quiz.bank.text import control_characters
from quiz.yamlio import BAD_ESCAPE

_ITEM = re.compile(r"(?P<lead> *(?:- +)*)(?:(?P<key>[\w.-]+): +)?(?P<value>.*?) *$")
_PLAIN_TROUBLE = re.compile(r"^[*&!@`%]|: |:$| #")
_TYPE_MISMATCH = {"string_type", "list_type", "dict_type", "model_type", "model_attributes_type"}
_KINDS = {"string_type": "text", "list_type": "a list", "dict_type": "a mapping",
          "model_type": "a mapping", "model_attributes_type": "a mapping"}


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


def control_message(names: Sequence[str]) -> str:
    """Warning for text holding terminal control characters, naming them."""
    return (f"text contains terminal control characters ({', '.join(names)}); quiz shows them as "
            "symbols and never sends them to the terminal")


def comment_message(lines: Sequence[str], start: Any, end: Any) -> str:
    """Error for a free-text value cut short by `` #`` (the rest became a comment); ``start``
    and ``end`` are the value's marks (the comment follows ``end`` on its line)."""
    comment = lines[end.line][end.column:].strip()
    hint = quote_hint(lines, start.line) if start.line == end.line else None
    fix = f"; quote this value to keep it: {hint[2]}" if hint else "; quote the value to keep it"
    return (f"the text after ' #' was dropped as a comment ({comment!r}): a ' #' in unquoted "
            f"text starts a comment{fix}")


# --- YAML syntax errors ------------------------------------------------------------------------

def syntax_problem(exc: Any, lines: Sequence[str]) -> Problem:
    """Translate a ``yaml.MarkedYAMLError`` into one located :class:`Problem`."""
    mark = exc.problem_mark or exc.context_mark
    problem, context = exc.problem or "", exc.context or ""
    ctx = exc.context_mark
    ctx_line = ctx.line + 1 if ctx is not None else mark.line + 1
    char = ""
    if 0 <= mark.line < len(lines) and mark.column < len(lines[mark.line]):
        char = lines[mark.line][mark.column]
    if "flow" in context and (flow := _flow_comment_hint(lines, ctx)) is not None:
        return Problem(*flow)
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
    """Translate a ``yaml.reader.ReaderError`` (a character YAML does not allow in a file).

    libyaml gives a byte offset and the pure reader a character index, so the character is
    looked up again here: both report the first one in the text."""
    found = _NON_PRINTABLE.search(text)
    index = found.start() if found else 0
    line, column = line_col(text, index)
    names = control_characters(found.group()) if found else []
    shown = names[0] if names else f"U+{ord(found.group()) if found else 0:04X}"
    return Problem(line, column, f"character {shown} is not allowed in a YAML file (a control "
                   "character); delete it, or write it as an escape in a double-quoted value")


# --- Validation errors -------------------------------------------------------------------------

def validation_problems(exc: ValidationError, data: Any,
                        marks: dict[int, tuple[Any, Any, Any]]) -> list[Problem]:
    """Translate every error of ``BankFile.model_validate(data)`` into a located Problem.

    ``marks`` maps ``id(container)`` to its marks (see :class:`quiz.bank.nodes.Document`).
    Errors of a union (``answer`` is a key or a list of keys) are reduced to those of the branch
    that fits the value's kind, or to one "expected X or Y" message when none does.
    """
    walked = [(_walk(err, data), err) for err in exc.errors(include_url=False)
              if err["type"] != "duplicate_id"]  # ids are checked across files by the loader
    groups: dict[tuple[Any, ...], list[tuple[str, _Walked, ErrorDetails]]] = {}
    for w, e in walked:
        if w.union is not None:
            groups.setdefault(w.union[0], []).append((w.union[1], w, e))
    dropped: set[int] = set()
    merged: list[Problem] = []
    for point, items in groups.items():
        fits = {branch for branch, w, e in items
                if not (e["type"] in _TYPE_MISMATCH and w.keys == point)}
        for branch, _, e in items:
            if branch not in fits:
                dropped.add(id(e))
        if not fits:
            _, w, _ = items[0]
            kinds = " or ".join(dict.fromkeys(_KINDS.get(x["type"], "text") for _, _, x in items))
            if point and point[-1] == "answer":
                kinds = "one option key (e.g. B) or a list of keys (e.g. [A, C])"
            merged.append(Problem(*_value_at(w, marks),
                                  f"{_label(w.keys)}: expected {kinds}, found {_describe(w.node)}"))
    # "unknown key 'optoins'; did you mean 'options'?" already explains the missing 'options'.
    suggested = {(id(w.steps[-1][0]), _suggestion(w)) for w, e in walked
                 if e["type"] == "extra_forbidden" and w.steps}
    out = [_problem(w, e, marks) for w, e in walked if id(e) not in dropped
           and not (e["type"] == "missing" and (id(w.node), w.missing) in suggested)]
    return out + merged


def _suggestion(w: _Walked) -> str | None:
    """For an unknown key, the allowed key it most likely meant (or None)."""
    key = str(w.keys[-1])
    renamed = _yaml_names(w.keys[:-1], python=key)
    close = renamed or get_close_matches(key, _yaml_names(w.keys[:-1]), n=1, cutoff=0.6)
    return close[0] if close else None


class _Mark(NamedTuple):
    line: int
    column: int


class _Walked:
    """Where a pydantic ``loc`` leads in the data: the containers and keys passed through."""

    def __init__(self) -> None:
        self.steps: list[tuple[Any, str | int]] = []
        self.node: Any = None
        self.union: tuple[tuple[Any, ...], str] | None = None
        self.at_key = False
        self.missing: str | None = None

    @property
    def keys(self) -> tuple[str | int, ...]:
        """The path of keys and indices that the data actually has."""
        return tuple(k for _, k in self.steps)


def _walk(err: ErrorDetails, data: Any) -> _Walked:
    w = _Walked()
    node = data
    loc = err["loc"]
    for i, part in enumerate(loc):
        if part == "[key]":
            w.at_key = True
        elif isinstance(node, dict) and isinstance(part, str) and part in node:
            w.steps.append((node, part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            w.steps.append((node, part))
            node = node[part]
        elif err["type"] == "missing" and i == len(loc) - 1:
            w.missing = str(part)
        elif w.union is None:
            w.union = (w.keys, str(part))  # a union branch or validator name, not in the data
    w.node = node
    return w


def _mark(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _value_at(w: _Walked, marks: dict[int, tuple[Any, Any, Any]]) -> tuple[int, int]:
    if not w.steps:
        entry = marks.get(id(w.node))
        return _mark(entry[0] if entry else None)
    parent, key = w.steps[-1]
    _, _, vmarks = marks[id(parent)]
    return _mark(vmarks[key])


def _key_at(w: _Walked, marks: dict[int, tuple[Any, Any, Any]]) -> tuple[int, int]:
    parent, key = w.steps[-1]
    _, kmarks, _ = marks[id(parent)]
    return _mark(kmarks[key]) if kmarks is not None else _value_at(w, marks)


def _problem(w: _Walked, err: ErrorDetails, marks: dict[int, tuple[Any, Any, Any]]) -> Problem:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    label = _label(w.keys)
    value = w.node
    if kind == "missing":
        entry = marks.get(id(w.node))
        where = _mark(entry[0] if entry else None)
        inside = f" in {label}" if w.keys else ""
        return Problem(*where, f"missing required key '{w.missing}'{inside}")
    if kind in ("extra_forbidden", "unknown_key"):
        key = w.keys[-1]
        names = _yaml_names(w.keys[:-1])
        close = _suggestion(w)
        hint = (f"; did you mean '{close}'?" if close
                else f" (allowed here: {', '.join(names)})" if names else "")
        return Problem(*_key_at(w, marks), f"unknown key '{key}'{hint}")
    if w.at_key or kind in ("review_for_answer", "review_not_option"):
        where = _key_at(w, marks)
        value = w.keys[-1]
    else:
        where = _value_at(w, marks)
    shown = _describe(value)
    if kind in _TYPE_MISMATCH:
        message = f"{label}: expected {_KINDS[kind]}, found {shown}"
    elif kind == "string_pattern_mismatch":
        if "A-H" in str(ctx.get("pattern")):
            message = f"{shown} is not an option key: use a capital letter A–H"
        else:
            message = (f"{label}: {shown} is not a valid id: use lowercase letters, digits, "
                       "'.', '_' and '-', starting with a letter or digit")
    elif kind in ("string_too_short", "blank_text"):
        message = f"{label}: must not be empty"
    elif kind == "string_too_long":
        message = f"{label}: longer than {ctx.get('max_length')} characters"
    elif kind == "too_short" and w.keys == ("questions",):
        message = "questions: a bank needs at least one question"
    elif kind == "too_short":
        message = f"{label}: needs at least {ctx.get('min_length')} item(s)"
    elif kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        nearest = get_close_matches(str(value), choices, n=1, cutoff=0.6)
        message = (f"{label}: expected one of {', '.join(choices)}, found {shown}"
                   + (f"; did you mean '{nearest[0]}'?" if nearest else ""))
    elif kind.startswith("int_"):
        message = f"{label}: expected a whole number, found {shown}"
    elif kind.startswith("float_"):
        message = f"{label}: expected a number, found {shown}"
    elif kind.startswith("bool_"):
        message = f"{label}: expected true or false, found {shown}"
    elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        bound = {"greater_than_equal": "at least", "less_than_equal": "at most",
                 "greater_than": "more than", "less_than": "less than"}[kind]
        limit = next(iter(ctx.values()), "")
        message = f"{label}: must be {bound} {limit}, found {shown}"
    elif "{" not in err["msg"] and kind not in _PYDANTIC_JARGON:
        message = err["msg"]  # our model's own messages are already written for people
        if "footprint" in w.keys and str(w.keys[-1]) not in message:
            message = f"{label}: {message}"  # the calculator's messages name no key
    else:
        message = f"{label}: {err['msg']}"
    return Problem(*where, message)


_PYDANTIC_JARGON = {"value_error", "assertion_error", "missing", "url_parsing"}


def _label(keys: Sequence[str | int]) -> str:
    """A YAML path for messages: relative to the question for question fields."""
    if len(keys) >= 2 and keys[0] == "questions" and isinstance(keys[1], int):
        if len(keys) == 2:
            return f"question {keys[1] + 1}"
        keys = keys[2:]
    out = ""
    for k in keys:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out or "the file"


def _describe(value: Any) -> str:
    if isinstance(value, str):
        if not value:
            return "an empty value"
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)  # pragma: no cover - the loader only builds str, list and dict


# --- The model's shape, in YAML names ----------------------------------------------------------

def _candidates(tp: Any, meta: tuple[Any, ...] = ()) -> list[tuple[Any, tuple[Any, ...]]]:
    origin = get_origin(tp)
    if origin is Annotated:
        base, *extra = get_args(tp)
        return _candidates(base, meta + tuple(extra))
    if origin is Union or origin is types.UnionType:
        return [c for arg in get_args(tp) for c in _candidates(arg, meta)]
    return [(tp, meta)]


def _types_at(keys: Sequence[Any]) -> list[tuple[Any, tuple[Any, ...]]]:
    """The model types that may hold the value at ``keys`` (alias names, as in the file)."""
    # Every list index leads to the same type: index 0 stands for all, so the cache stays small.
    return _types_at_cached(tuple(0 if isinstance(k, int) else k for k in keys))


@lru_cache(maxsize=512)
def _types_at_cached(keys: tuple[Any, ...]) -> list[tuple[Any, tuple[Any, ...]]]:
    current = _candidates(BankFile)
    for part in keys:
        nxt: list[tuple[Any, tuple[Any, ...]]] = []
        for tp, _ in current:
            origin = get_origin(tp)
            if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(part, str):
                for name, info in tp.model_fields.items():
                    if (info.alias or name) == part:
                        nxt += _candidates(info.annotation, tuple(info.metadata))
            elif origin is list and isinstance(part, int):
                nxt += _candidates(get_args(tp)[0])
            elif origin is dict and isinstance(part, str):
                nxt += _candidates(get_args(tp)[1])
        current = nxt
    return current


def _yaml_names(keys: Sequence[str | int], python: str | None = None) -> list[str]:
    """The keys allowed in the mapping at ``keys``, as written in YAML (aliases). With
    ``python``, only the YAML name of the field whose Python name that is (``stem`` →
    ``question``), if it has another one."""
    for tp, _ in _types_at(keys):
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            fields = tp.model_fields.items()
            if python is not None:
                return [i.alias for n, i in fields if n == python and i.alias and i.alias != n]
            return [info.alias or name for name, info in fields]
    return []


def _has_pattern(meta: Any) -> bool:
    if getattr(meta, "pattern", None):
        return True
    return any(_has_pattern(m) for m in getattr(meta, "metadata", ()) or ())


def is_free_text(keys: Sequence[str | int]) -> bool:
    """True when the value at ``keys`` is free text (a stem, option, explanation, review, title,
    caption…), not an id, key, choice or number."""
    return any(tp is str and get_origin(tp) is not Literal and not any(map(_has_pattern, meta))
               for tp, meta in _types_at(keys))
