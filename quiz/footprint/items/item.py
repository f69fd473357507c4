"""What every calculation returns: an :class:`Item` (one figure with its formula and source) or
an :class:`Omitted` (a figure that could not be computed, and why). Memory items are in bytes;
compute figures (:mod:`quiz.footprint.compute.figures`) are the same class in their own unit."""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVarTuple

Ts = TypeVarTuple("Ts")


class _Fields(NamedTuple):
    name: str
    value: int
    cell: list[Any]  # [formula text] or [writer, *its arguments] (Item.formula)
    source: str
    unit: str


_new = tuple.__new__
"""Builds the tuple of an :class:`Item` (bound once: an estimate makes ~30 items, and a tuple
built in C costs about half of five slot assignments through ``object.__setattr__``)."""


class Item(_Fields):
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
            for formatting them. :func:`lazy_item` gives it as a module-level writer and its
            arguments instead (no function object made per item).
        source: where the formula comes from (paper and section, or documentation page).

    A tuple underneath (``name, value, [formula], source, unit``: the list keeps the formula
    once written; before, it may hold a writer and its arguments, ``[writer, *args]``), so it
    is built in C and cannot be changed; compare items by their fields, not as tuples.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        @property
        def bytes(self) -> int: ...
    else:
        bytes = _Fields.value  # the same C field getter as ``value``

    def __new__(cls, name: str, value: int, formula: str | Callable[[], str],
                source: str, unit: str = "bytes") -> Item:
        return _new(cls, (name, value, [formula], source, unit))

    def __getnewargs__(self) -> tuple[str, int, str, str, str]:
        return (self.name, self.value, self.formula, self.source, self.unit)

    @property
    def formula(self) -> str:
        """The formula text (built on first read when it was given as a function, or as a
        writer and its arguments)."""
        cell = self.cell
        text: str = cell[0]
        if not isinstance(text, str):
            text = text(*cell[1:])
            cell[:] = (text,)
        return text

    def with_source(self, source: str) -> Item:
        """This item with another ``source`` (its formula still unwritten if it was, and written
        once for both)."""
        return _new(Item, (self.name, self.value, self.cell, source, self.unit))

    def _key(self) -> tuple[str, int, str, str, str]:
        return (self.name, self.value, self.formula, self.source, self.unit)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

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


NAME: Callable[[Item], str] = itemgetter(0)
"""An item's ``name`` as a C function: ``"activations" in map(NAME, items)`` looks for a name
without a Python-level loop or comprehension."""

VALUE: Callable[[Item], int] = itemgetter(1)
"""An item's ``value`` (its tuple's second field) as a C function: ``sum(map(VALUE, items))``
adds the values of ``items`` without a Python-level loop."""


def make_item(name: str, value: int, formula: str | Callable[[], str], source: str,
              unit: str = "bytes") -> Item:
    """``Item(name, value, formula, source, unit)``, built without the class call: the tuple is
    made by ``tuple.__new__`` directly (about 90 ns less than ``Item(...)``, whose ``__new__``
    is reached through the type's call; an estimate makes ~30 items)."""
    return _new(Item, (name, value, [formula], source, unit))


def lazy_item(name: str, value: int, source: str, writer: Callable[[*Ts], str],
              *args: *Ts) -> Item:
    """A memory item (bytes) whose formula is ``writer(*args)``, written when first read.

    ``writer`` is a module-level function: the item keeps it and ``args`` in its formula cell,
    so building the item makes no function object (a closure per formula cost ~110 ns and its
    cells; an estimate writes ~45 formulas nobody may read)."""
    return _new(Item, (name, value, [writer, *args], source, "bytes"))


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
