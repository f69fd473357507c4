"""Spaced review with the ``fsrs`` package (version 6): ratings from answers, one fsrs ``Card``
per question id, the review queue.

We do not schedule ourselves: :class:`fsrs.Scheduler` decides every interval
(https://github.com/open-spaced-repetition/py-fsrs). This module only turns an answer into a
rating and stores the card with its ``to_dict``.

Ratings (issue 9): a wrong answer is Again; a right one is Good, or Easy when it came fast (see
:func:`fast_seconds`). A miss is never rated Hard. After the reveal the student may override the
rating with keys 1–4. The measured answer time is the review duration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from fsrs import Card, Rating, Scheduler, State

from quiz.study.store_records import QuestionTally, StoredCard

if TYPE_CHECKING:  # only named: quiz stats reads the schedule without pydantic
    from quiz.bank.model import Question

READING_WORDS_PER_SECOND = 238 / 60
"""Average silent reading rate of adults for non-fiction, 238 words per minute (Brysbaert 2019,
"How many words do we read per minute?", J. Memory and Language 109)."""

FAST_GRACE_SECONDS = 5.0
"""Thinking time allowed on top of the reading time before a right answer stops being "fast"."""

MATURE_DAYS = 21.0
"""A question is *mastered* when its card is in the Review state with a stability of at least
this many days (Anki calls such cards "mature")."""

LEECH_MISSES = 4
"""A question missed this many times or more (in any mode) is a leech."""

RATING_NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}
"""fsrs ratings by number, as the keys 1–4 choose them."""


def fast_seconds(question: Question) -> float:
    """Seconds within which a right answer counts as fast (rated Easy): the time to read the
    stem and options at :data:`READING_WORDS_PER_SECOND`, plus :data:`FAST_GRACE_SECONDS`."""
    words = len(question.stem.split()) + sum(len(t.split()) for t in question.options.values())
    return words / READING_WORDS_PER_SECOND + FAST_GRACE_SECONDS


def rating_for(question: Question, correct: bool, seconds: float) -> Rating:
    """Again for a miss; Easy for a right answer within :func:`fast_seconds`; Good otherwise."""
    if not correct:
        return Rating.Again
    return Rating.Easy if seconds <= fast_seconds(question) else Rating.Good


def review(scheduler: Scheduler, previous: StoredCard | None, question_id: str,
           content_hash: str, rating: Rating, when: datetime, seconds: float) -> StoredCard:
    """Review a question's card (a new one if it has none, or if its content changed) and
    return the new card to store.

    ``when`` must be UTC-aware (fsrs raises ``ValueError`` otherwise); ``seconds`` is the answer
    time, passed to fsrs as the review duration in milliseconds.
    """
    card = None
    if previous is not None and previous.content_hash == content_hash:
        try:  # the store checked its values; anything fsrs still refuses starts a new card
            card = Card.from_dict(previous.card)  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError):
            card = None
    if card is None:
        # fsrs numbers a card by the epoch milliseconds of its creation; left to choose, it
        # reads the clock and sleeps 1 ms so the next card differs, which made the first answer
        # to every question take over 1 ms to commit. Cards are stored by question id here, so
        # the time of the answer serves.
        card = Card(card_id=int(when.timestamp() * 1000), due=when)
    card, _log = scheduler.review_card(card, rating, review_datetime=when,
                                       review_duration=int(round(seconds * 1000)))
    return StoredCard(question_id=question_id, content_hash=content_hash,
                      card=dict(card.to_dict()), due=card.due)


def is_mastered(card: StoredCard) -> bool:
    """True for a card in the Review state with stability ≥ :data:`MATURE_DAYS`."""
    stability = card.card.get("stability")
    return (card.card.get("state") == State.Review.value and stability is not None
            and float(stability) >= MATURE_DAYS)


def due_ids(cards: Mapping[str, StoredCard], hashes: Mapping[str, str],
            until: datetime) -> list[str]:
    """Ids of the questions due by ``until``, most overdue first. Only questions in ``hashes``
    (the library) whose card was made for their current content count."""
    due = [c for qid, c in cards.items()
           if qid in hashes and hashes[qid] == c.content_hash and c.due <= until]
    return [c.question_id for c in sorted(due, key=lambda c: (c.due, c.question_id))]


def most_missed(tallies: Mapping[str, QuestionTally], known: Iterable[str]) -> list[str]:
    """Ids of the questions in ``known`` missed at least once, most misses first (then the
    lower share right, then the most recent miss)."""
    keep = set(known)
    missed = [t for qid, t in tallies.items() if qid in keep and t.wrong > 0]
    missed.sort(key=lambda t: (-t.wrong, t.right / (t.right + t.wrong),
                               -t.last_at.timestamp(), t.question_id))
    return [t.question_id for t in missed]


def review_queue(cards: Mapping[str, StoredCard], tallies: Mapping[str, QuestionTally],
                 hashes: Mapping[str, str], now: datetime,
                 count: int | None = None) -> list[str]:
    """What ``quiz review`` offers: the questions due now (most overdue first), then the
    most-missed ones not already due; at most ``count``."""
    queue = due_ids(cards, hashes, now)
    seen = set(queue)
    queue += [qid for qid in most_missed(tallies, hashes) if qid not in seen]
    return queue[:count] if count is not None else queue


def end_of_local_day(now: datetime) -> datetime:
    """The end of the user's local day containing ``now`` (a UTC-aware datetime), in UTC: what
    "due today" means."""
    local = now.astimezone()
    midnight = (local + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight.astimezone(now.tzinfo)
