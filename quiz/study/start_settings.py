"""The start screen's choices as remembered in the progress store, per set of banks:
:class:`StartSettings`, read by :func:`kept_settings` and :func:`settings_for_form`.

Apart from :class:`~quiz.study.lifecycle.Lifecycle` (which writes them) so that the study app
reads them for its first frame without importing the sessions' life (about 3 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quiz.bank.library import Library
    from quiz.study.store import Store


class StartSettings:
    """The start screen's choices as remembered for one library: ``topics`` ticked (``None``:
    every topic), ``count`` (``None``: every question), ``shuffle``, ``strict`` exams.

    Equal (and hashed) by value; read-only (an assignment raises ``AttributeError``). (A plain
    class, not a frozen dataclass: it is read for the study app's first frame, and making the
    dataclass took 0.4 ms of that start.)"""

    __slots__ = ("topics", "count", "shuffle", "strict")

    topics: frozenset[str] | None
    count: int | None
    shuffle: bool
    strict: bool

    def __init__(self, topics: frozenset[str] | None = None, count: int | None = None,
                 shuffle: bool = True, strict: bool = False) -> None:
        object.__setattr__(self, "topics", topics)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "shuffle", shuffle)
        object.__setattr__(self, "strict", strict)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: StartSettings are read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: StartSettings are read-only")

    def _values(self) -> tuple[frozenset[str] | None, int | None, bool, bool]:
        return self.topics, self.count, self.shuffle, self.strict

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StartSettings):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (f"StartSettings(topics={self.topics!r}, count={self.count!r}, "
                f"shuffle={self.shuffle!r}, strict={self.strict!r})")


def settings_key(library: Library) -> str:
    """The store's settings key of the start screen's choices for ``library``'s banks."""
    return "start:" + ",".join(sorted(b.header.id for b in library.banks))


def kept_settings(store: Store | None, library: Library) -> StartSettings | None:
    """The start screen's choices last used with ``library``'s banks (``None``: no store, or
    these banks were never studied together: every topic and every question). Settings are
    kept per set of banks, so one bank's never cut another bank's session."""
    if store is None:
        return None
    kept = store.setting(settings_key(library))
    if not isinstance(kept, dict):
        return None
    topics = kept.get("topics")
    count = kept.get("count")
    return StartSettings(
        topics=frozenset(topics) if isinstance(topics, list) else None,
        count=count if isinstance(count, int) and count > 0 else None,
        shuffle=bool(kept.get("shuffle", True)), strict=bool(kept.get("strict", False)))


def settings_for_form(store: Store | None, library: Library) -> dict[str, Any]:
    """The remembered settings as the start screen reads them (``topics`` a list, ``count``,
    ``shuffle``, ``strict``), without those never set."""
    kept = kept_settings(store, library)
    if kept is None:
        return {}
    result: dict[str, Any] = {"shuffle": kept.shuffle, "strict": kept.strict}
    if kept.topics is not None:
        result["topics"] = sorted(kept.topics)
    if kept.count is not None:
        result["count"] = kept.count
    return result
