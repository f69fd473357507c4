"""Every check that can run does run: the cross-field rules of a file whose validation failed.

Pydantic validates every field of every model and reports all their errors, but a model's
after-validator (the answer names an option, one review per wrong option, the topic is declared,
an infographic has one kind, a table's rows fit its columns) only runs when all the model's fields,
and for the bank file all its questions, are valid. A bad ``footprint:`` value would hide the
same question's bad ``answer:`` and the undeclared ``topic:``.

:func:`cross_field_errors` runs the same rules (:mod:`quiz.bank.rules`) on the raw values, field
by field, using only the values that validation did not already find wrong: a check whose input is
known to be wrong stays quiet (``answer: E`` does not also claim that the right answer lacks a
review). Errors that validation already reported are not repeated.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, TypeGuard

from pydantic import ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails

from quiz.bank.rules import (
    Loc,
    answer_errors,
    infographic_kind_errors,
    review_errors,
    row_length_errors,
    same_options_errors,
    topic_errors,
)


class _Known:
    """The locations of the errors validation found, to ask whether a value is known wrong."""

    def __init__(self, errors: list[ErrorDetails]) -> None:
        self.locs = [tuple(e["loc"]) for e in errors]
        self.seen = {(tuple(e["loc"]), e["type"]) for e in errors}

    def wrong(self, loc: Loc) -> bool:
        """True when validation found an error at ``loc`` or inside it."""
        n = len(loc)
        return any(found[:n] == loc for found in self.locs)

    def keys_wrong(self, loc: Loc) -> bool:
        """True when the mapping at ``loc`` is itself wrong (missing, not a mapping, options out
        of order) or one of its keys is; errors in its values do not count."""
        n = len(loc)
        return any(found == loc or (found[:n] == loc and found[-1] == "[key]")
                   for found in self.locs)


def cross_field_errors(data: Any, errors: list[ErrorDetails]) -> list[ErrorDetails]:
    """The cross-field errors of the raw bank ``data`` (plain dicts, lists and strings) that
    ``errors`` (from ``BankFile.model_validate(data)``) lack, with ``loc`` from the file's root.

    Only values that are the right kind and have no error in ``errors`` are used; see the module
    docstring."""
    known = _Known(errors)
    found: list[InitErrorDetails] = []
    questions = data.get("questions") if isinstance(data, dict) else None
    topics = _declared_topics(data, known)
    for i, question in enumerate(questions if isinstance(questions, list) else []):
        if isinstance(question, dict):
            found += _question(question, ("questions", i), known, topics)
    if not found:
        return []
    new = ValidationError.from_exception_data("BankFile", found).errors(include_url=False)
    return [e for e in new if (tuple(e["loc"]), e["type"]) not in known.seen]


def _declared_topics(data: Any, known: _Known) -> Collection[str] | None:
    header = data.get("bank") if isinstance(data, dict) else None
    topics = header.get("topics", {}) if isinstance(header, dict) else None
    if not isinstance(topics, dict) or known.wrong(("bank", "topics")):
        return None
    return list(topics)


def _question(q: dict[str, Any], at: Loc, known: _Known,
              topics: Collection[str] | None) -> list[InitErrorDetails]:
    def prefixed(errors: list[InitErrorDetails], inner: Loc = ()) -> list[InitErrorDetails]:
        return [{**e, "loc": (*at, *inner, *e["loc"])} for e in errors]

    found: list[InitErrorDetails] = []
    topic = q.get("topic")
    if topics is not None and isinstance(topic, str) and not known.wrong((*at, "topic")):
        found += prefixed(topic_errors(topic, topics))

    options = _keys(q.get("options"), (*at, "options"), known)
    if isinstance(q.get("options"), dict):
        texts = {k: v for k, v in q["options"].items() if isinstance(k, str) and isinstance(v, str)
                 and not known.wrong((*at, "options", k))}
        found += prefixed(same_options_errors(texts))
    answer = q.get("answer")
    right: Collection[str] | None = None
    if (isinstance(answer, str) or _list_of_text(answer)) and not known.wrong((*at, "answer")):
        own = answer_errors(answer, options)
        found += prefixed(own)
        if not own and options is not None:
            right = [answer] if isinstance(answer, str) else answer
    reviews = _keys(q.get("distractor_review"), (*at, "distractor_review"), known)
    if reviews is not None:
        found += prefixed(review_errors(reviews, options, right))

    info = q.get("infographic")
    if isinstance(info, dict):
        kinds = [k for k in ("table", "text", "footprint") if k in info]
        compute = info.get("compute")
        on = compute is True or (isinstance(compute, str) and compute.strip().lower() in _TRUE)
        found += prefixed(infographic_kind_errors(kinds, on), ("infographic",))
        table = info.get("table")
        if isinstance(table, dict):
            columns, rows = table.get("columns"), table.get("rows")
            if isinstance(columns, list) and isinstance(rows, list) and \
                    not known.wrong((*at, "infographic", "table", "columns")):
                found += prefixed(row_length_errors(len(columns), rows),
                                  ("infographic", "table"))
    return found


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
"""Text pydantic reads as ``True`` for a ``bool`` field (lax mode)."""


def _keys(value: Any, loc: Loc, known: _Known) -> list[str] | None:
    """The keys of the mapping at ``loc`` when they are known right, else None."""
    if not isinstance(value, Mapping) or known.keys_wrong(loc):
        return None
    return [k for k in value if isinstance(k, str)]


def _list_of_text(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(k, str) for k in value)
