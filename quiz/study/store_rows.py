"""The progress store's time format and the checked reading of its rows (the records they
become are in :mod:`quiz.study.store_records`): every value read is validated before it
becomes a record, so a damaged cell (a flipped byte in a JSON or time cell passes SQLite's
``integrity_check``) costs its row, never a traceback.

Each ``*_fields`` function takes a row as SQLite returns it and gives the record's fields, or
raises :class:`DamagedRow` saying which value is wrong. :mod:`quiz.study.store` skips such a row and
reports it (:attr:`quiz.study.store.Store.damage`).
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

MODES = frozenset({"practice", "exam", "review", "cram"})
STATUSES = frozenset({"open", "finished", "abandoned", "retried"})
CARD_STATES = frozenset({1, 2, 3})
"""fsrs's ``State`` values: Learning, Review, Relearning."""


def utc_now() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def to_text(moment: datetime) -> str:
    """A UTC-aware datetime as stored: ISO 8601 with milliseconds and ``+00:00``.

    Raises:
        ValueError: for a naive datetime (its time zone would be a guess).
    """
    if moment.tzinfo is None:
        raise ValueError("store times must be timezone-aware (UTC)")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def from_text(text: str) -> datetime:
    """Parse a stored time back into a UTC-aware datetime."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class DamagedRow(ValueError):
    """A row whose values cannot be what quiz wrote (the message names the value)."""


def time_value(value: Any, what: str) -> datetime:
    """A stored time (ISO 8601 text) as a UTC-aware datetime.

    Raises:
        DamagedRow: not text, or not a time."""
    if not isinstance(value, str):
        raise DamagedRow(f"{what} is not a time")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise DamagedRow(f"{what} is not a time ({value[:40]!r})") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def json_value(value: Any, what: str, kind: type) -> Any:
    """A JSON cell decoded, of the Python type ``kind`` (``dict`` or ``list``).

    Raises:
        DamagedRow: not text, not JSON, or JSON of another kind."""
    if not isinstance(value, str):
        raise DamagedRow(f"{what} is not JSON text")
    try:
        data = json.loads(value)
    except ValueError:  # json.JSONDecodeError, and a flipped byte that is no UTF-8
        raise DamagedRow(f"{what} is not JSON ({value[:40]!r})") from None
    if not isinstance(data, kind):
        raise DamagedRow(f"{what} is not a JSON {'object' if kind is dict else 'list'}")
    return data


def text_value(value: Any, what: str) -> str:
    """A text cell. Raises DamagedRow for anything else."""
    if not isinstance(value, str):
        raise DamagedRow(f"{what} is not text")
    return value


def int_value(value: Any, what: str, *, low: int | None = None,
              high: int | None = None) -> int:
    """A whole-number cell within [low, high]. Raises DamagedRow for anything else."""
    if not isinstance(value, int) or isinstance(value, bool) or (
            low is not None and value < low) or (high is not None and value > high):
        raise DamagedRow(f"{what} is not a valid whole number ({value!r})")
    return value


def texts(value: Any, what: str) -> tuple[str, ...]:
    """A JSON list of text. Raises DamagedRow for anything else."""
    items = json_value(value, what, list)
    if not all(isinstance(x, str) for x in items):
        raise DamagedRow(f"{what} holds something other than text")
    return tuple(items)


def session_fields(row: tuple[Any, ...]) -> dict[str, Any]:
    """The fields of a ``sessions`` row (id, mode, bank_ids, seed, plan, state, started_at,
    ended_at, status), checked. Raises DamagedRow."""
    sid = int_value(row[0], "id")
    try:
        mode = row[1]
        if mode not in MODES:
            raise DamagedRow(f"mode is {str(mode)[:20]!r}")
        seed = row[3]
        if seed is not None:
            seed = int_value(seed, "seed")
        status = row[8]
        if status not in STATUSES:
            raise DamagedRow(f"status is {str(status)[:20]!r}")
        plan = json_value(row[4], "plan", dict)
        _check_plan(plan)
        state = json_value(row[5], "state", dict)
        _check_numbers(state, "state", ("elapsed_s",))
        if "position" in state:
            int_value(state["position"], "state's position", low=0)
        return dict(id=sid, mode=mode, bank_ids=texts(row[2], "bank_ids"), seed=seed,
                    plan=plan, state=state,
                    started_at=time_value(row[6], "started_at"),
                    ended_at=None if row[7] is None else time_value(row[7], "ended_at"),
                    status=status)
    except DamagedRow as exc:
        raise DamagedRow(f"session {sid}: {exc}") from None


def answer_fields(row: tuple[Any, ...]) -> dict[str, Any]:
    """The fields of an ``answers`` row (session_id, question_id, bank_id, content_hash, chosen,
    correct, seconds, answered_at, rating, scheduled[, variant]), checked. Raises DamagedRow."""
    seconds = row[6]
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or \
            not math.isfinite(seconds) or seconds < 0:
        raise DamagedRow(f"an answer's seconds is {seconds!r}")
    return dict(session_id=int_value(row[0], "an answer's session"),
                question_id=text_value(row[1], "an answer's question id"),
                bank_id=text_value(row[2], "an answer's bank id"),
                content_hash=text_value(row[3], "an answer's content hash"),
                chosen=texts(row[4], "an answer's choice"),
                correct=bool(int_value(row[5], "an answer's verdict", low=0, high=1)),
                seconds=float(seconds),
                answered_at=time_value(row[7], "an answer's time"),
                rating=None if row[8] is None else int_value(row[8], "a rating", low=1, high=4),
                scheduled=bool(int_value(row[9], "an answer's scheduled flag", low=0, high=1)),
                variant=None if len(row) < 11 or row[10] is None
                else json_value(row[10], "an answer's variant", dict))


def card_fields(row: tuple[Any, ...]) -> dict[str, Any]:
    """The fields of a ``cards`` row (question_id, content_hash, card, due), the fsrs card's
    own values checked too (what fsrs and the statistics read). Raises DamagedRow."""
    qid = text_value(row[0], "a card's question id")
    try:
        card = json_value(row[2], "the card", dict)
        if card.get("state") not in CARD_STATES:
            raise DamagedRow("the card's state is not an fsrs state")
        for key in ("stability", "difficulty"):
            value = card.get(key)
            if value is not None and (not isinstance(value, (int, float)) or isinstance(
                    value, bool) or not math.isfinite(value)):
                raise DamagedRow(f"the card's {key} is not a number")
        int_value(card.get("card_id"), "the card's id")
        if card.get("step") is not None:
            int_value(card.get("step"), "the card's step", low=0)
        time_value(card.get("due"), "the card's due time")
        if card.get("last_review") is not None:
            time_value(card.get("last_review"), "the card's last review")
        return dict(question_id=qid, content_hash=text_value(row[1], "content hash"),
                    card=card, due=time_value(row[3], "due"))
    except DamagedRow as exc:
        raise DamagedRow(f"card of {qid[:60]!r}: {exc}") from None


def _check_plan(plan: dict[str, Any]) -> None:
    """A session's plan as quiz writes it: ``ids`` text, or ``questions`` a list of
    ``[id, keys]`` pairs of text; its numbers numbers. Raises DamagedRow."""
    if "ids" in plan and not isinstance(plan["ids"], str):
        raise DamagedRow("plan's ids are not text")
    questions = plan.get("questions", [])
    if not isinstance(questions, list) or not all(
            isinstance(e, list) and 1 <= len(e) <= 2 and all(isinstance(x, str) for x in e)
            for e in questions):
        raise DamagedRow("plan's questions are not [id, keys] pairs")
    _check_numbers(plan, "plan", ("time_limit_s", "pass_mark"))


def _check_numbers(data: dict[str, Any], what: str, keys: tuple[str, ...]) -> None:
    for key in keys:
        value = data.get(key)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(
                value, bool) or not math.isfinite(value)):
            raise DamagedRow(f"{what}'s {key} is not a number")
