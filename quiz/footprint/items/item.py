"""What every calculation returns: an :class:`Item` (one figure with its formula and source) or
an :class:`Omitted` (a figure that could not be computed, and why). Memory items are in bytes;
compute figures (:mod:`quiz.footprint.compute.figures`) are the same class in their own unit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

_set = object.__setattr__
"""Sets a slot of an immutable object (bound once: an estimate makes ~30 items, and looking
``object.__setattr__`` up each time costs more than the assignments)."""


class Item:
    """One figure of an estimate (immutable): a memory item in bytes, or a compute figure in
    its own unit.

    Attributes:
        name: one of :data:`~quiz.footprint.engine.report.ITEM_NAMES` (memory) or
            :data:`~quiz.footprint.compute.figures.COMPUTE_NAMES` (compute).
        value: the exact ``int`` in ``unit``.
        unit: ``"bytes"`` for a memory item; ``"FLOPs"``, ``"s"``, ``"tokens/s"`` or
            ``"sequences"`` for a compute figure (:data:`~quiz.footprint.compute.figures.UNITS`).
        bytes: the same ``int`` as ``value``, the name memory items are read by.
        formula: the arithmetic in words with the numbers filled in (without the result), e.g.
            ``"6,738,415,616 params × 2 bytes (BF16)"``. It may be given as a function that
            returns that text: it is then built when first read and kept, so an estimate whose
            formulas nobody shows (the fewest-GPU search, a bank's figure check) does not pay
            for formatting them.
        source: where the formula comes from (paper and section, or documentation page).
    """

    __slots__ = ("name", "value", "_formula", "source", "unit")
    name: str
    value: int
    _formula: str | Callable[[], str]
    source: str
    unit: str

    def __init__(self, name: str, value: int, formula: str | Callable[[], str],
                 source: str, unit: str = "bytes") -> None:
        _set(self, "name", name)
        _set(self, "value", value)
        _set(self, "_formula", formula)
        _set(self, "source", source)
        _set(self, "unit", unit)

    @property
    def bytes(self) -> int:
        """The size in bytes (``value``; memory items are in bytes)."""
        return self.value

    @property
    def formula(self) -> str:
        """The formula text (built on first read when it was given as a function)."""
        text = self._formula
        if not isinstance(text, str):
            text = text()
            _set(self, "_formula", text)
        return text

    def with_source(self, source: str) -> Item:
        """This item with another ``source`` (its formula still unwritten if it was)."""
        return Item(self.name, self.value, self._formula, source, self.unit)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"Item is immutable (cannot set {key!r})")

    def _key(self) -> tuple[str, int, str, str, str]:
        return (self.name, self.value, self.formula, self.source, self.unit)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        if self.unit == "bytes":
            return (f"Item(name={self.name!r}, bytes={self.value!r}, formula={self.formula!r}, "
                    f"source={self.source!r})")
        return (f"Item(name={self.name!r}, value={self.value!r}, unit={self.unit!r}, "
                f"formula={self.formula!r}, source={self.source!r})")

    def to_json(self) -> dict[str, Any]:
        """``{"name", "bytes", "formula", "source"}`` for a memory item; ``{"name", "value",
        "unit", "formula", "source"}`` for a compute figure (the JSON contract of
        :mod:`quiz.footprint.engine.report`)."""
        if self.unit == "bytes":
            return {"name": self.name, "bytes": self.value, "formula": self.formula,
                    "source": self.source}
        return {"name": self.name, "value": self.value, "unit": self.unit,
                "formula": self.formula, "source": self.source}


class Omitted(NamedTuple):
    """An item that could not be computed from what was given, and why.

    ``reason`` is the full sentence for the command line and the JSON (it names flags).
    ``cause`` and ``needs`` say the same without naming anything: what is missing, and the spec
    keys that would supply it, so the app can name what its own form offers
    (:func:`quiz.footprint.words.render.omitted_text`)."""

    item: str
    reason: str
    phase: str
    cause: str = ""
    needs: tuple[str, ...] = ()
