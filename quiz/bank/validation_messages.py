"""Locate and word pydantic validation errors of a bank file in YAML terms.

Each error's ``loc`` is followed through the loaded values to the mark where that value (or key,
or the mapping lacking a key) was written, and the message is said in YAML terms ("expected text,
found a list", "unknown key 'optoins'; did you mean 'options'?"), using the names written in the
file (``question``, not the model's ``stem``).
"""

from __future__ import annotations

import re
import types
from collections.abc import Sequence
from difflib import get_close_matches
from functools import lru_cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from quiz.bank.model import BankFile
from quiz.bank.problems import Problem, mark_position

_TYPE_MISMATCH = {"string_type", "list_type", "dict_type", "model_type", "model_attributes_type"}
_KINDS = {"string_type": "text", "list_type": "a list", "dict_type": "a mapping",
          "model_type": "a mapping", "model_attributes_type": "a mapping"}


# --- Validation errors -------------------------------------------------------------------------

def validation_problems(errors: list[ErrorDetails], data: Any,
                        marks: dict[int, tuple[Any, Any, Any]],
                        text: str | None = None) -> list[Problem]:
    """Translate every error of ``BankFile.model_validate(data)`` (``exc.errors()``, plus those
    of :func:`quiz.bank.field_checks.cross_field_errors`) into a located Problem.

    ``marks`` maps ``id(container)`` to its marks (see :class:`quiz.bank.yaml_reader.Document`).
    Errors of a union (``answer`` is a key or a list of keys) are reduced to those of the branch
    that fits the value's kind, or to one "expected X or Y" message when none does. An error
    whose ``ctx`` has an ``offset`` (a placeholder in a text: :mod:`quiz.bank.computed`) is
    placed at that character of the value, when ``text`` (the file's text) is given.
    """
    walked = [(_walk(err, data), err) for err in errors
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
    out = [_at_offset(_problem(w, e, marks), w, e, marks, text) for w, e in walked
           if id(e) not in dropped
           and not (e["type"] == "missing" and (id(w.node), w.missing) in suggested)]
    return out + merged


def _at_offset(problem: Problem, w: _Walked, err: ErrorDetails,
               marks: dict[int, tuple[Any, Any, Any]], text: str | None) -> Problem:
    """``problem`` moved to the character ``ctx["offset"]`` of the text value it is about."""
    offset = (err.get("ctx") or {}).get("offset")
    if text is None or not isinstance(offset, int) or not isinstance(w.node, str) \
            or not w.steps:
        return problem
    from quiz.bank.problems import line_col, value_positions

    parent, key = w.steps[-1]
    mark = marks[id(parent)][2][key]
    index = value_positions(text, mark.index, w.node, [offset])[0]
    return problem if index is None else problem._replace(
        line=line_col(text, index)[0], column=line_col(text, index)[1])


def _suggestion(w: _Walked) -> str | None:
    """For an unknown key, the allowed key it most likely meant (or None)."""
    key = str(w.keys[-1])
    renamed = _yaml_names(w.keys[:-1], python=key)
    close = renamed or get_close_matches(key, _yaml_names(w.keys[:-1]), n=1, cutoff=0.6)
    return close[0] if close else None


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



def _value_at(w: _Walked, marks: dict[int, tuple[Any, Any, Any]]) -> tuple[int, int]:
    if not w.steps:
        entry = marks.get(id(w.node))
        return mark_position(entry[0] if entry else None)
    parent, key = w.steps[-1]
    _, _, vmarks = marks[id(parent)]
    return mark_position(vmarks[key])


def _key_at(w: _Walked, marks: dict[int, tuple[Any, Any, Any]]) -> tuple[int, int]:
    parent, key = w.steps[-1]
    _, kmarks, _ = marks[id(parent)]
    return mark_position(kmarks[key]) if kmarks is not None else _value_at(w, marks)


def _problem(w: _Walked, err: ErrorDetails, marks: dict[int, tuple[Any, Any, Any]]) -> Problem:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    label = _label(w.keys)
    value = w.node
    if kind == "missing":
        entry = marks.get(id(w.node))
        where = mark_position(entry[0] if entry else None)
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
    if kind == "option_same_text":
        message += _first_option_line(w, str(ctx.get("first")), marks)
    return Problem(*where, message)


def _first_option_line(w: _Walked, first: str, marks: dict[int, tuple[Any, Any, Any]]) -> str:
    """`` (option A is on line N)``: where the first of two options that read the same is
    written (empty when its mark is unknown)."""
    entry = marks.get(id(w.steps[-1][0])) if w.steps else None
    vmarks = entry[2] if entry is not None else None
    if not isinstance(vmarks, dict) or first not in vmarks:
        return ""
    line, _ = mark_position(vmarks[first])
    return f" (option {first} is on line {line})"


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


@lru_cache(maxsize=1)
def model_keys() -> frozenset[str]:
    """Every key name a bank file may use at any level (as written in YAML: ``question``, not
    ``stem``), footprint keys included."""
    names: set[str] = set()
    seen: set[type] = set()
    pending: list[Any] = [BankFile]
    while pending:
        tp = pending.pop()
        for candidate, _ in _candidates(tp):
            origin = get_origin(candidate)
            if origin in (list, dict):
                pending += get_args(candidate)
            elif isinstance(candidate, type) and issubclass(candidate, BaseModel) \
                    and candidate not in seen:
                seen.add(candidate)
                for name, info in candidate.model_fields.items():
                    names.add(info.alias or name)
                    pending.append(info.annotation)
    return frozenset(names)
