"""The cross-field rules of a bank, as plain functions of plain values.

Each rule returns its errors as pydantic ``InitErrorDetails`` with a ``loc`` relative to the model
it belongs to. The models' after-validators (:mod:`quiz.bank.model`) call them; so does the loader
(:mod:`quiz.bank.field_checks`) on the raw values of a file whose validation failed elsewhere,
for the fields that are known to be right, so that every check that can run does run. An argument
that is ``None`` is unknown (missing or already wrong): the checks that need it are skipped
rather than guessed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

Loc = tuple[str | int, ...]


def error(loc: Loc, kind: str, message: str, value: Any, **ctx: Any) -> InitErrorDetails:
    """One error of kind ``kind`` at ``loc``: ``message`` with ``{name}`` filled from ``ctx``."""
    return InitErrorDetails(type=PydanticCustomError(kind, message, ctx or None), loc=loc,
                            input=value)


def answer_errors(answer: str | list[str], options: Collection[str] | None,
                  ) -> list[InitErrorDetails]:
    """The answer key's own rules: a list answer has 2 or more different keys, leaves at least
    one option wrong, and every key is an option (the last two need ``options``' keys)."""
    errors: list[InitErrorDetails] = []
    keys = [answer] if isinstance(answer, str) else list(answer)
    if isinstance(answer, list):
        if len(answer) < 2:
            errors.append(error(
                ("answer",), "answer_list_short",
                "a list answer is for multiple response and needs 2 or more keys; write a single "
                "key as 'answer: {key}'", answer, key=answer[0] if answer else "A"))
        seen: set[str] = set()
        for i, key in enumerate(answer):
            if key in seen:
                errors.append(error(("answer", i), "answer_duplicate", "{key} is listed twice",
                                     key, key=key))
            seen.add(key)
        if options is not None and len(set(answer)) >= len(options) >= 2:
            errors.append(error(("answer",), "answer_all_options", "every option is right: at "
                                 "least one option must be a distractor", answer))
    if options is not None:
        for i, key in enumerate(keys):
            if key not in options:
                loc: Loc = ("answer",) if isinstance(answer, str) else ("answer", i)
                errors.append(error(loc, "answer_not_option", "the answer {key} is not one of "
                                     "the options ({options})", key, key=key,
                                     options=", ".join(options)))
    return errors


def review_errors(reviews: Collection[str], options: Collection[str] | None,
                  right: Collection[str] | None) -> list[InitErrorDetails]:
    """The distractor review's keys: each names an option (needs ``options``), none names a right
    answer, and every wrong option has one (both need ``right``, the answer keys known to be
    right: when the answer is wrong itself, which options are wrong is unknown)."""
    errors: list[InitErrorDetails] = []
    for key in reviews:
        if right is not None and key in right:
            errors.append(error(("distractor_review", key), "review_for_answer",
                                 "{key} is a right answer: the distractor review is only for "
                                 "wrong options; remove this entry", key, key=key))
        elif options is not None and key not in options:
            errors.append(error(("distractor_review", key), "review_not_option",
                                 "there is no option {key} to review (options: {options})", key,
                                 key=key, options=", ".join(options)))
    if options is not None and right is not None:
        missing = [k for k in options if k not in right and k not in reviews]
        if missing:
            errors.append(error(("distractor_review",), "review_missing",
                                 "add a review for each wrong option: missing {missing}",
                                 dict.fromkeys(reviews), missing=", ".join(missing)))
    return errors


_INITIAL = re.compile(r"\b\w")
"""The first letter of each word (see :func:`same_options_errors`)."""


def same_options_errors(options: Mapping[str, str]) -> list[InitErrorDetails]:
    """Two options whose texts are equal once trimmed, with runs of white space made one space
    and the case of each word's first letter ignored (``"training"``, ``" Training  "``) cannot
    be told apart: an error at the second one (its message, located, names the first one's
    line too). Case inside a word is meaning (``"14 GB"`` and ``"14 Gb"``, gigabytes and
    gigabits; ``"14 gb"``), so those stay different options."""
    errors: list[InitErrorDetails] = []
    spaced = [" ".join(text.split()) for text in options.values()]
    if len({text.casefold() for text in spaced}) == len(spaced):
        # Texts that differ once wholly case-folded differ once only initials are (case
        # folding maps each character on its own, and folding twice changes nothing): the
        # usual case, without a regular-expression call per word.
        return errors
    first: dict[str, str] = {}
    for key, text in options.items():
        same = _INITIAL.sub(lambda m: m.group(0).casefold(), " ".join(text.split()))
        if same in first:
            errors.append(error(("options", key), "option_same_text",
                                 "options {first} and {key} read the same ({text}): a student "
                                 "cannot tell them apart; make this option different", text,
                                 first=first[same], key=key,
                                 text=repr(" ".join(text.split()))))
        else:
            first[same] = key
    return errors


def infographic_kind_errors(kinds: Collection[str],
                            compute: bool = False) -> list[InitErrorDetails]:
    """An infographic holds exactly one of ``table``, ``text`` and ``footprint``: ``kinds`` are
    those present; ``compute: true`` (time and throughput beside the bars) needs a
    ``footprint``."""
    if compute and kinds and "footprint" not in kinds:
        return [error(("compute",), "infographic_compute", "'compute: true' shows the time and "
                      "throughput of a 'footprint' chart; this infographic is a {what}", True,
                      what=" and ".join(kinds))]
    if len(kinds) == 1:
        return []
    return [error((), "infographic_kind", "an infographic needs exactly one of 'table', 'text' "
                   "or 'footprint' (found {found})", None, found=", ".join(kinds) or "none")]


def row_length_errors(columns: int, rows: Sequence[object]) -> list[InitErrorDetails]:
    """Each table row that is a list has one cell per column."""
    return [error(("rows", i), "row_length", "this row has {got} but the table has {want}",
                   row, got=_count(len(row), "cell"), want=_count(columns, "column"))
            for i, row in enumerate(rows) if isinstance(row, list) and len(row) != columns]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def topic_errors(topic: str, topics: Collection[str]) -> list[InitErrorDetails]:
    """A question's topic is declared in ``bank.topics`` when the bank declares topics."""
    if not topics or topic in topics:
        return []
    return [error(("topic",), "unknown_topic", "topic '{topic}' is not declared in bank.topics "
                   "({known})", topic, topic=topic, known=", ".join(topics))]


def raise_if_any(title: str, errors: list[InitErrorDetails]) -> None:
    """Raise ``errors`` as one ``ValidationError`` of model ``title``, if there are any."""
    if errors:
        raise ValidationError.from_exception_data(title, errors)
