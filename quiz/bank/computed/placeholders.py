"""``{{ figure | UNIT:digits }}``: a calculator figure written into a question's text.

Syntax (documented for instructors in ``question_bank/FORMAT.md``)::

    {{ inference.kv_cache | GB:2 }}   -> "17.18 GB"       (a size, rounded half up)
    {{ inference.kv_cache | GiB }}    -> "16.00 GiB"      (digits default to 2)
    {{ inference.kv_cache }}          -> "17.18 GB"       (a size defaults to GB:2)
    {{ params }}                      -> "6,738,415,616"  (a count: thousands separators)
    {{ params | B:2 }}                -> "6.74B"          (K, M, B, T: short scales)
    {{ params | billion:1 }}          -> "6.7 billion"    (thousand ... trillion: words)
    {{ model.name }}                  -> "Llama-2-7B"     (text takes no unit)
    {{{{                              -> "{{"             (a literal "{{")

Size units: ``B``, ``kB``, ``MB``, ``GB``, ``TB``, ``PB`` (powers of 1000) and ``KiB``, ``MiB``,
``GiB``, ``TiB``, ``PiB`` (powers of 1024). Count formats: ``count`` (the default), ``K``, ``M``,
``B``, ``T``, ``thousand``, ``million``, ``billion``, ``trillion``. Digits: 0 to 6. Rounding is
exact (integer arithmetic) and half up: a tie goes away from zero, as in ``expect``.

Pure: no Textual, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

from quiz.bank.computed.figures import Kind, figure_kinds, suggest

SIZE_UNITS: dict[str, int] = {
    "B": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50,
}
"""Units of a size placeholder → bytes."""

COUNT_FORMATS: dict[str, tuple[int, str]] = {
    "count": (1, ""), "K": (10**3, "K"), "M": (10**6, "M"), "B": (10**9, "B"),
    "T": (10**12, "T"), "thousand": (10**3, " thousand"), "million": (10**6, " million"),
    "billion": (10**9, " billion"), "trillion": (10**12, " trillion"),
}
"""Formats of a count placeholder → (divisor, suffix written after the number)."""

MAX_DIGITS = 6
"""Most decimals a placeholder may ask for."""

ESCAPE = "{{{{"
"""Written for a literal ``{{``."""


class PlaceholderError(ValueError):
    """A placeholder that cannot be rendered. ``offset`` is the index in the text where it starts
    (the error is reported there); the message says what to write instead."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Format:
    """How one figure is written: its ``name``, ``unit`` (a key of :data:`SIZE_UNITS` or
    :data:`COUNT_FORMATS`, ``""`` for text) and ``digits`` (decimals)."""

    name: str
    unit: str
    digits: int

    def __post_init__(self) -> None:
        # Formats are dictionary keys while a bank loads (templates, generated options, texts
        # written): the hash is taken once, and each number is written once per format.
        object.__setattr__(self, "_hash", hash((self.name, self.unit, self.digits)))
        object.__setattr__(self, "_texts", {})

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined,no-any-return]

    def __reduce__(self) -> tuple[type[Format], tuple[str, str, int]]:
        # A copy or an unpickled format is made anew: the hash of this process is not kept.
        return (Format, (self.name, self.unit, self.digits))

    @cached_property
    def kind(self) -> Kind:
        """The kind of figure this format writes."""
        return figure_kinds()[self.name]

    @cached_property
    def scale(self) -> int:
        """Bytes (sizes) or ones (counts) in one unit of :attr:`unit`."""
        return SIZE_UNITS[self.unit] if self.kind == "size" else int(COUNT_FORMATS[self.unit][0])

    @property
    def step(self) -> Fraction:
        """One unit of the last digit written, in bytes (sizes) or ones (counts)."""
        return Fraction(self.scale, 10**self.digits)

    def rounded(self, exact: int) -> int:
        """``exact`` in units of :attr:`step`, rounded half up (ties away from zero); integer
        arithmetic only."""
        scale = self.scale
        factor: int = 10**self.digits
        whole, rest = divmod(abs(exact) * factor, scale)
        if 2 * rest >= scale:
            whole += 1
        return whole if exact >= 0 else -whole

    def write(self, value: int | str) -> str:
        """``value`` as the text shows it ("17.18 GB", "6,738,415,616", "6.7 billion").

        A number's text is kept (at most :data:`WRITTEN_KEPT` per format): the questions of a
        library that share a scenario write the same figures in the same formats (100,000
        writes at 10,000 questions, a few thousand of them different)."""
        if isinstance(value, str):
            return value
        texts: dict[int, str] = self._texts  # type: ignore[attr-defined]
        text = texts.get(value)
        if text is None:
            if len(texts) >= WRITTEN_KEPT:
                texts.clear()
            text = texts[value] = self._write(value)
        return text

    def _write(self, value: int) -> str:
        steps = self.rounded(value)
        sign = "-" if steps < 0 else ""
        whole, frac = divmod(abs(steps), 10**self.digits)
        number = f"{sign}{whole:,}" + (f".{frac:0{self.digits}d}" if self.digits else "")
        if self.kind == "size":
            return f"{number} {self.unit}"
        return number + COUNT_FORMATS[self.unit][1]


WRITTEN_KEPT = 4096
"""Most numbers one :class:`Format` keeps written (:meth:`Format.write`; emptied when full)."""


_INNER = re.compile(r"\s*(?P<name>[^\s|:]*)\s*(?:\|\s*(?P<unit>[^\s:]*)\s*"
                    r"(?::\s*(?P<digits>[^\s]*))?\s*)?")


def parse_format(inner: str, offset: int = 0) -> Format:
    """A :class:`Format` from what is written between ``{{`` and ``}}`` (or after
    ``answer_figure:``): ``"inference.kv_cache | GB:2"``. Kept for each text (a format is
    immutable): a library writes the same few placeholders thousands of times.

    Raises:
        PlaceholderError: an unknown figure (with "did you mean"), a unit of the wrong kind, a
            malformed placeholder; ``offset`` is passed through to it.
    """
    found = _format_of(inner)
    if isinstance(found, str):
        raise PlaceholderError(found, offset)
    return found


@lru_cache(maxsize=4096)
def _format_of(inner: str) -> Format | str:
    """:func:`parse_format` at offset 0, its error as the message."""
    try:
        return _parse_format(inner)
    except PlaceholderError as exc:
        return str(exc)


def _parse_format(inner: str, offset: int = 0) -> Format:
    match = _INNER.fullmatch(inner)
    if match is None or not match["name"]:
        raise PlaceholderError(
            f"{{{{{inner}}}}} is not a placeholder: write {{{{ figure | UNIT:digits }}}}, e.g. "
            f"{{{{ inference.kv_cache | GB:2 }}}} (write {ESCAPE} for a literal {{{{)", offset)
    name, unit, digits_text = match["name"], match["unit"], match["digits"]
    kinds = figure_kinds()
    if name not in kinds:
        raise PlaceholderError(f"unknown figure {name!r}{suggest(name)}; the figures are listed "
                               "in FORMAT.md (Computed questions)", offset)
    kind = kinds[name]
    if unit is not None and not unit:
        raise PlaceholderError(f"{name}: write a unit after '|' (e.g. GB:2), or leave out the "
                               "'|'", offset)
    if kind == "text":
        if unit is not None:
            raise PlaceholderError(f"{name} is text ({{{{ {name} }}}}): it takes no unit", offset)
        return Format(name, "", 0)
    allowed = SIZE_UNITS if kind == "size" else COUNT_FORMATS
    unit = unit or ("GB" if kind == "size" else "count")
    if unit not in allowed:
        other = COUNT_FORMATS if kind == "size" else SIZE_UNITS
        what = "a size in bytes" if kind == "size" else "a count"
        hint = " (a unit of the wrong kind)" if unit in other else ""
        raise PlaceholderError(f"{name} is {what}: {unit!r} is not one of its units{hint}; "
                               f"use {', '.join(allowed)}", offset)
    default = 0 if (kind == "count" and unit == "count") or (kind == "size" and unit == "B") \
        else 2
    digits = default
    if digits_text is not None:
        if not digits_text.isdigit() or int(digits_text) > MAX_DIGITS:
            raise PlaceholderError(f"{name}: digits must be a whole number from 0 to "
                                   f"{MAX_DIGITS}, not {digits_text!r}", offset)
        digits = int(digits_text)
    return Format(name, unit, digits)


@dataclass(frozen=True)
class Template:
    """A text split into literal parts and placeholders: ``parts[0]``, ``formats[0]``,
    ``parts[1]``, ... (one more part than formats), with each placeholder's offset."""

    parts: tuple[str, ...]
    formats: tuple[Format, ...]
    offsets: tuple[int, ...]

    def __post_init__(self) -> None:
        # A template is a dictionary key for each variant rendered (Figures.rendered): its
        # hash is taken once.
        object.__setattr__(self, "_hash", hash((self.parts, self.formats, self.offsets)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined,no-any-return]

    def __reduce__(self) -> tuple[type[Template], tuple[Any, ...]]:
        # A copy or an unpickled template is made anew: the hash of this process is not kept.
        return (Template, (self.parts, self.formats, self.offsets))

    def render(self, values: dict[str, int | str]) -> str:
        """The text with every placeholder written from ``values`` (figure name → value)."""
        out = [self.parts[0]]
        for fmt, part in zip(self.formats, self.parts[1:], strict=True):
            out.append(fmt.write(values[fmt.name]))
            out.append(part)
        return "".join(out)


@lru_cache(maxsize=8192)
def parse(text: str) -> Template:
    """Split ``text`` into a :class:`Template`; ``{{{{`` is a literal ``{{``.

    Kept for each text (a :class:`Template` is immutable): a library that repeats a text
    parses it once.

    Raises:
        PlaceholderError: the first placeholder that is malformed or unknown, or a ``{{`` that
            is never closed.
    """
    if ESCAPE not in text:
        # Without escapes each '{{' opens a placeholder: the text between two of them is one
        # placeholder's inside, its '}}' and then literal text. Anything else (a '{{' that is
        # never closed) is read below, where its error is found.
        pieces = text.split("{{")
        closed = [piece.find("}}") for piece in pieces]
        if -1 not in closed[1:]:
            plain_parts = [pieces[0]]
            plain_formats: list[Format] = []
            plain_offsets: list[int] = []
            at = len(pieces[0])
            for piece, end in zip(pieces[1:], closed[1:], strict=True):
                plain_formats.append(parse_format(piece[:end], at))
                plain_offsets.append(at)
                plain_parts.append(piece[end + 2:])
                at += 2 + len(piece)
            return Template(tuple(plain_parts), tuple(plain_formats), tuple(plain_offsets))
    parts: list[str] = []
    formats: list[Format] = []
    offsets: list[int] = []
    literal: list[str] = []
    index = 0
    while True:
        found = text.find("{{", index)
        if found < 0:
            literal.append(text[index:])
            break
        literal.append(text[index:found])
        if text.startswith(ESCAPE, found):
            literal.append("{{")
            index = found + len(ESCAPE)
            continue
        end = text.find("}}", found + 2)
        if end < 0:
            raise PlaceholderError(f"this '{{{{' is never closed: end the placeholder with "
                                   f"'}}}}', or write {ESCAPE} for a literal '{{{{'", found)
        formats.append(parse_format(text[found + 2:end], found))
        offsets.append(found)
        parts.append("".join(literal))
        literal = []
        index = end + 2
    parts.append("".join(literal))
    return Template(tuple(parts), tuple(formats), tuple(offsets))


def has_placeholders(text: str) -> bool:
    """True when ``text`` has a ``{{`` (a placeholder or an escape) to render."""
    return "{{" in text
