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
from quiz.bank.expect import FigureMissing, Quantity, parse_value, rounds_to

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec

_SIZE = re.compile(r"\d(?<![\w.,]\d)(?:\d{0,2}(?:,\d{3})+|\d*)(?:\.\d+)?\s?"
                   r"(?:kB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|PiB)(?![\w])")
r"""A size as people type it in prose (bytes and ``B`` are left out: "2 bytes per parameter" is
a rule, not a figure): a number not inside a longer number or word (``H100``, ``v1.5``), a
space or none, and a unit. Written to start with its first digit (the look-behind follows it:
the character before that digit is no letter, digit, point or comma), so that the regular
expression engine tries only the places that hold a digit, not every place of the text; it
matches what ``(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?(?:kB|...)(?![\w])`` does,
at the same places (tests/bank/computed/test_handtyped_pattern.py)."""

_MAYBE_SIZE = re.compile(r"B(?:(?<=\d[kKMGTP]B)|(?<=\d\s[kKMGTP]B)|(?<=\d[kKMGTP]iB)"
                         r"|(?<=\d\s[kKMGTP]iB))")
r"""What every match of :data:`_SIZE` holds: a digit, a space or none, and a unit
(``\d\s?[kKMGTP]i?B``), found from its ``B`` (the look-behinds check what comes before): the
regular expression engine then skips to each ``B`` at C speed instead of trying a pattern at
every digit. A text without it is not searched with :data:`_SIZE` (most texts of a bank hold
no size; scanning them all was most of rule Q114's time)."""

_WRITTEN_SIZE = re.compile(r"B(?:(?<=\d[kKMGTP]B)|(?<=[\d\s\\][\s\\][kKMGTP]B)"
                           r"|(?<=\d[kKMGTP]iB)|(?<=[\d\s\\][\s\\][kKMGTP]iB))")
"""What the YAML source of every match of :data:`_MAYBE_SIZE` holds, however the value is
written: a unit right after a digit, or after two characters that are digits, white space or
backslashes. YAML folds a line break and the next line's indentation into one space (``8`` at
the end of a line, ``GB`` on the next), and drops an escaped line break in double quotes (a
backslash): the source then holds a digit, white space or backslashes, and the unit. Any other
escape is a backslash, which :func:`written_sizes` looks for."""


def written_sizes(source: str, start: int, end: int) -> list[int] | None:
    r"""Where the YAML source ``source[start:end]`` (a question as written in its file, with
    no anchors or aliases: the loader rejects them) may write a size :func:`hand_typed` could
    find in one of its values: the index of the ``B`` of each match of
    :data:`_WRITTEN_SIZE`, in order. Empty: no value of the question holds a size (most
    questions of a bank), found by one search at C speed. None when the source holds an
    escape (``\``), which could spell a size anywhere."""
    if source.find("\\", start, end) != -1:
        return None
    return [match.start() for match in _WRITTEN_SIZE.finditer(source, start, end)]


def sizes_in(text: str) -> Iterator[re.Match[str]]:
    """The matches of :data:`_SIZE` in ``text``, as its ``finditer`` gives them, found from
    their units: a size's number can only start at the first of the digits, commas and points
    before a unit :data:`_MAYBE_SIZE` finds (a number starting later has a digit, comma or
    point before it), where :data:`_SIZE` is tried. Texts of prose hold many numbers without a
    unit, at each of which ``finditer`` would try the whole pattern."""
    last = 0
    for unit in _MAYBE_SIZE.finditer(text):
        start = unit.start() - 1
        while not text[start - 1].isdecimal():  # back over the unit and a space (\d: Nd)
            start -= 1
        while start > 0 and (text[start - 1].isdecimal() or text[start - 1] in ",."):
            start -= 1
        match = _SIZE.match(text, start) if start >= last else None
        if match is not None:
            last = match.end()
            yield match


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
_BOUNDS: dict[str, tuple[Quantity, int, int]] = {}
"""A size as written (``"13.48 GB"``): its quantity, and the bytes within half a step of it,
the bounds included."""


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
        if _MAYBE_SIZE.search(text) is None:
            continue  # most texts: no digit followed by a unit
        bare = _PLACEHOLDER.sub(lambda m: " " * len(m.group(0)), text) if "{{" in text else text
        for match in sizes_in(bare):
            if sizes is None:
                sizes = _sorted_sizes(spec)
            values, names = sizes
            written = match.group(0)
            # Only a figure within half a step of the number can round to it: a search of the
            # sorted sizes leaves the exact test (fractions) to those few (a scan of every
            # size was 11 s of a 10,000-question validate); the first in the figures' order
            # wins, as before.
            bounds = _BOUNDS.get(written)
            if bounds is None:
                if len(_BOUNDS) >= _SORTED_KEPT:
                    _BOUNDS.clear()
                quantity = parse_value(written, "size")
                bounds = _BOUNDS[written] = (
                    quantity, math.floor(quantity.amount - quantity.step / 2),
                    math.ceil(quantity.amount + quantity.step / 2))
            quantity, lowest, highest = bounds
            low = bisect.bisect_left(values, lowest)
            if low == len(values) or values[low] > highest:
                continue  # no figure near (most sizes written)
            high = bisect.bisect_right(values, highest, low)
            hits = sorted(names[i] + (values[i],) for i in range(low, high)
                          if rounds_to(values[i], quantity))
            if hits:
                _, name, _ = hits[0]
                yield HandTyped(loc, match.start(), written, "{{ %s | %s:%d }}" % (
                    name, quantity.scale, quantity.decimals))
