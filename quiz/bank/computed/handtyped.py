"""Hand-typed figures: a size typed as a number and a unit in a question with a scenario, equal
to one of the scenario's figures within the rounding written (lint rule ``hand-typed-figure``).

``"the KV cache takes 17.18 GB"`` in a question whose scenario's ``inference.kv_cache`` is
17,179,869,184 bytes should be ``{{ inference.kv_cache | GB:2 }}``: the calculator then keeps it
true. Placeholders themselves (and ``{{{{``) are not read. Pure: no Textual, no I/O.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quiz.bank.computed.figures import Figures, figure_kinds
from quiz.bank.computed.template import Loc, text_fields
from quiz.bank.expect import FigureMissing, parse_value, rounds_to

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec

_SIZE = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?"
                   r"(?:kB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|PiB)(?![\w])")
"""A size as people type it in prose (bytes and ``B`` are left out: "2 bytes per parameter" is
a rule, not a figure)."""

_MAYBE_SIZE = re.compile(r"\d\s?[kKMGTP]i?B")
"""What every match of :data:`_SIZE` holds (a digit, then a unit): a text without it is not
searched with :data:`_SIZE`, whose look-behind makes it try every position (most texts of a
bank hold no size; scanning them all was most of rule Q114's time)."""

_PLACEHOLDER = re.compile(r"\{\{\{\{|\{\{.*?\}\}", re.S)


@dataclass(frozen=True)
class HandTyped:
    """One hand-typed figure: the text field's ``loc`` (relative to the question), the
    ``offset`` of the number in it, what is ``written`` and the placeholder to write."""

    loc: Loc
    offset: int
    written: str
    placeholder: str


_SORTED: dict[Figures, tuple[list[int], list[tuple[int, str]]]] = {}
"""Each scenario's sizes sorted by bytes (see :func:`_sorted_sizes`), for the scenarios of
:meth:`Figures.of`; emptied when it holds :data:`_SORTED_KEPT`."""
_SORTED_KEPT = 4096
_BOUNDS: dict[str, tuple[int, int]] = {}
"""Bytes within half a step of a size as written (``"13.48 GB"``), the bounds included."""


def _sorted_sizes(spec: FootprintSpec) -> tuple[list[int], list[tuple[int, str]]]:
    """The sizes of :func:`_sizes` sorted by bytes: the bytes, and (order, name) at the same
    index (order: the place in the figures' order). Made once per scenario."""
    figures = Figures.of(spec)
    found = _SORTED.get(figures)
    if found is None:
        pairs = sorted((value, order, name)
                       for order, (name, value) in enumerate(_sizes(spec)))
        found = ([value for value, _, _ in pairs], [(order, name) for _, order, name in pairs])
        if len(_SORTED) >= _SORTED_KEPT:
            _SORTED.clear()
        _SORTED[figures] = found
    return found


def _sizes(spec: FootprintSpec) -> list[tuple[str, int]]:
    """Every size figure of the scenario (name, bytes), in the figures' order, zero left out."""
    figures = Figures.of(spec)
    found = []
    for name, kind in figure_kinds().items():
        if kind != "size" or name.startswith("scenario."):
            continue
        try:
            value = figures.get(name)
        except (FigureMissing, KeyError, ValueError):
            continue
        if isinstance(value, int) and value > 0:
            found.append((name, value))
    return found


def hand_typed(question: Mapping[str, Any], spec: FootprintSpec) -> Iterator[HandTyped]:
    """Every size typed by hand in the text fields of ``question`` (its raw mapping, as
    written) that equals one of ``spec``'s figures rounded to the digits written."""
    sizes: tuple[list[int], list[tuple[int, str]]] | None = None
    for loc, text in text_fields(question):
        if "B" not in text or _MAYBE_SIZE.search(text) is None:
            continue  # every unit of _SIZE ends in B, and follows a digit
        bare = _PLACEHOLDER.sub(lambda m: " " * len(m.group(0)), text) if "{{" in text else text
        for match in _SIZE.finditer(bare):
            if sizes is None:
                sizes = _sorted_sizes(spec)
            values, names = sizes
            written = match.group(0)
            quantity = parse_value(written, "size")
            # Only a figure within half a step of the number can round to it: a search of the
            # sorted sizes leaves the exact test (fractions) to those few (a scan of every
            # size was 11 s of a 10,000-question validate); the first in the figures' order
            # wins, as before.
            bounds = _BOUNDS.get(written)
            if bounds is None:
                if len(_BOUNDS) >= _SORTED_KEPT:
                    _BOUNDS.clear()
                bounds = _BOUNDS[written] = (math.floor(quantity.amount - quantity.step / 2),
                                             math.ceil(quantity.amount + quantity.step / 2))
            low = bisect.bisect_left(values, bounds[0])
            high = bisect.bisect_right(values, bounds[1])
            hits = sorted(names[i] + (values[i],) for i in range(low, high)
                          if rounds_to(values[i], quantity))
            if hits:
                _, name, _ = hits[0]
                yield HandTyped(loc, match.start(), written, "{{ %s | %s:%d }}" % (
                    name, quantity.scale, quantity.decimals))
