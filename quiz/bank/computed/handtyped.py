"""Hand-typed figures: a size typed as a number and a unit in a question with a scenario, equal
to one of the scenario's figures within the rounding written (lint rule ``hand-typed-figure``).

``"the KV cache takes 17.18 GB"`` in a question whose scenario's ``inference.kv_cache`` is
17,179,869,184 bytes should be ``{{ inference.kv_cache | GB:2 }}``: the calculator then keeps it
true. Placeholders themselves (and ``{{{{``) are not read. Pure: no Textual, no I/O.
"""

from __future__ import annotations

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

_PLACEHOLDER = re.compile(r"\{\{\{\{|\{\{.*?\}\}", re.S)


@dataclass(frozen=True)
class HandTyped:
    """One hand-typed figure: the text field's ``loc`` (relative to the question), the
    ``offset`` of the number in it, what is ``written`` and the placeholder to write."""

    loc: Loc
    offset: int
    written: str
    placeholder: str


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
    sizes: list[tuple[str, int]] | None = None
    for loc, text in text_fields(question):
        bare = _PLACEHOLDER.sub(lambda m: " " * len(m.group(0)), text)
        for match in _SIZE.finditer(bare):
            if sizes is None:
                sizes = _sizes(spec)
            quantity = parse_value(match.group(0), "size")
            for name, exact in sizes:
                if rounds_to(exact, quantity):
                    yield HandTyped(loc, match.start(), match.group(0), "{{ %s | %s:%d }}" % (
                        name, quantity.scale, quantity.decimals))
                    break
