"""Parsing and formatting of counts and byte sizes, shared by the spec, the presets and the CLI.

Everything inside the calculator is an exact ``int`` (parameters, tokens, bytes). Text enters
through :func:`parse_count`, :func:`parse_size` and :func:`parse_bool` (question banks hand every
scalar over as the string the author typed: ``"7B"``, ``"6.7b"``, ``"7e9"``, ``"1_000"``); units
appear only at the edge, in :func:`format_bytes`.

Units: ``GB`` = 10**9 bytes (SI, as in vendor datasheets and disk sizes), ``GiB`` = 2**30 bytes
(IEC, what ``nvidia-smi`` reports as MiB × 1024). The two are never mixed.

Formatting is exact for any ``int``: no value goes through a ``float``. Decimals are rounded
half up (a tie goes away from zero: 1.005 kB → ``"1.01 kB"``), and every whole part is grouped
with commas — counts through :func:`format_count` (``"6,738,415,616"``), sizes through
:func:`format_bytes`, whose largest unit is YB / YiB (``"5,120,000,000,000.00 YB"``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

MAX_VALUE = 10**24
"""Largest count or size accepted (a yottabyte): guards against ``1e999999`` in a bank file."""

_COUNT_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12, "ki": 2**10, "mi": 2**20}
_SIZE_UNIT = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "pb": 10**15,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
    "pib": 2**50,
}
_INT = r"\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*"
_NUMBER = re.compile(
    rf"\s*(?P<sign>[+-])?(?P<int>{_INT})(?:\.(?P<frac>\d+))?(?:[eE](?P<exp>[+-]?\d+))?"
    r"\s*(?P<unit>[A-Za-z]*)\s*"
)
_TRUE = frozenset({"true", "yes", "on", "1", "y"})
_FALSE = frozenset({"false", "no", "off", "0", "n"})


def _decimal(match: re.Match[str]) -> Decimal:
    digits = match["int"].replace("_", "").replace(",", "")
    text = f"{match['sign'] or ''}{digits}"
    if match["frac"]:
        text += f".{match['frac']}"
    exp = match["exp"]
    if exp:
        magnitude = exp.lstrip("+-").lstrip("0")
        if len(magnitude) > 3:  # |exponent| ≥ 1,000: no bound comes near; keep Decimal cheap
            if not (digits + (match["frac"] or "")).strip("0"):
                return Decimal(0)
            if exp.startswith("-"):
                raise ValueError(f"{match.string!r} is not a whole number")
            raise TooLarge(match.string)
        text += f"e{exp}"
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the regex only lets numbers through
        raise ValueError(f"{match.string!r} is not a number") from exc


class TooLarge(ValueError):
    """A number above :data:`MAX_VALUE` (a :class:`ValueError`; ``original`` is the value given)."""

    def __init__(self, original: object) -> None:
        super().__init__(f"{original!r} is too large (the limit is 10^24)")
        self.original = original


def _whole(value: Decimal, multiplier: int, original: object) -> int:
    with localcontext() as ctx:
        ctx.prec = 80
        scaled = value * multiplier
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{original!r} is not a whole number")
    result = int(scaled)
    if abs(result) > MAX_VALUE:
        raise TooLarge(original)
    return result


def parse_count(value: object) -> int:
    """Parse a count of things (parameters, tokens, layers, devices) into an exact ``int``.

    Accepts an ``int`` (not a ``bool``), an integral ``float``, or text: digits with optional
    ``_`` separators (``"1_000"``) or comma thousands groups (``"6,738,415,616"``), a decimal
    fraction and/or an exponent (``"7e9"``, ``"6.7b"``), and one optional suffix ``K`` (10^3),
    ``M`` (10^6), ``B`` (10^9) or ``T`` (10^12), in either case: ``"7B"`` → 7,000,000,000
    (``"32k"`` is 32,000; write ``"32Ki"`` for 32,768 — ``Ki`` = 2^10, ``Mi`` = 2^20).

    The sign is kept (``"-4"`` → -4); callers check the range so they can name the field.

    Raises:
        ValueError: text that is not a number, an unknown suffix, a result that is not a whole
            number (``"1.5"``), or a magnitude above 10^24.
        TypeError: any other type (``None``, lists, booleans).
    """
    if isinstance(value, bool):
        raise TypeError("expected a number, not a boolean")
    if isinstance(value, int):
        if abs(value) > MAX_VALUE:
            raise TooLarge(value)
        return value
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number")
        return _whole(Decimal(value), 1, value)
    if not isinstance(value, str):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if value.isascii() and value.isdigit() and len(value) <= 24:  # fast path: "4096"
        return int(value)
    match = _NUMBER.fullmatch(value)
    if match is None:
        raise ValueError(f"{value!r} is not a number (examples: 4096, 7B, 6.7b, 7e9, 1_000)")
    unit = match["unit"].lower()
    if unit not in _COUNT_SUFFIX:
        raise ValueError(f"{value!r}: unknown suffix {match['unit']!r} (use K, M, B, T, Ki or Mi)")
    return _whole(_decimal(match), _COUNT_SUFFIX[unit], value)


def parse_size(value: object) -> int:
    """Parse a size in bytes: a plain number of bytes or a number with a unit.

    Units: ``B``; SI ``kB MB GB TB PB`` (powers of 1000); IEC ``KiB MiB GiB TiB PiB`` (powers of
    1024); and the same in bits, spelt out: ``bit kbit Mbit Gbit Tbit Pbit Kibit ... Pibit`` (a
    whole number of bytes). ``"500GB"`` → 500,000,000,000; ``"80 GiB"`` → 85,899,345,920;
    ``"8Gbit"`` → 1,000,000,000. Numbers follow :func:`parse_count`'s rules.

    A lower-case ``b`` means bits in storage and networking, so a unit whose case changes its
    meaning is refused, not guessed: ``"1Gb"``, ``"1Gib"``, ``"1Mb"``, ``"7b"`` are errors that
    say to write ``1GB`` (bytes) or ``1Gbit``. A unit written all in lower case (``"1gb"``,
    ``"80gib"``) has no capital to tell bits and is read as bytes.

    Raises:
        ValueError: not a number, an unknown or ambiguous unit, a fractional byte count, or more
            than 10^24.
        TypeError: a type other than ``int``, ``float`` or ``str``.
    """
    if isinstance(value, (bool, int, float)) or not isinstance(value, str):
        return parse_count(value)
    match = _NUMBER.fullmatch(value)
    if match is None:
        raise ValueError(f"{value!r} is not a size (examples: 500GB, 80 GiB, 1e12)")
    written = match["unit"]
    unit = written.lower()
    number = value[:match.start("unit")].strip()
    if unit.endswith("bit") and unit[:-3] in _PREFIXES:
        bits = _whole(_decimal(match), _SIZE_UNIT[unit[:-3] + "b"], value)
        if bits % 8:
            raise ValueError(f"{value!r} is not a whole number of bytes ({bits:,} bit"
                             f"{'' if bits == 1 else 's'})")
        return bits // 8
    if unit not in _SIZE_UNIT:
        raise ValueError(
            f"{value!r}: unknown unit {written!r} "
            "(use B, kB, MB, GB, TB or KiB, MiB, GiB, TiB; bits as kbit, Mbit, Gbit)"
        )
    if written.endswith("b") and (written == "b" or written != unit):
        prefix = _PREFIXES[unit[:-1]]
        raise ValueError(
            f"{value!r} is ambiguous: write {number}{prefix}B (bytes) or {number}{prefix}bit "
            "(a lower-case b means bits)")
    return _whole(_decimal(match), _SIZE_UNIT[unit], value)


_PREFIXES = {"": "", "k": "k", "m": "M", "g": "G", "t": "T", "p": "P",
             "ki": "Ki", "mi": "Mi", "gi": "Gi", "ti": "Ti", "pi": "Pi"}
"""Size prefixes as typed in lower case → as written in a unit."""


def parse_bool(value: object) -> bool:
    """Parse a yes/no value: a ``bool``, ``0``/``1``, or text ``true/false``, ``yes/no``,
    ``on/off``, ``y/n``, ``1/0`` (case-insensitive).

    Raises:
        ValueError: any other value.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise ValueError(f"{value!r} is not a yes/no value (use true/false or yes/no)")


_SI = ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")
_IEC = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


def unit_base(units: str) -> tuple[int, tuple[str, ...]]:
    """Return ``(base, prefixes)`` for a unit family: ``"GB"`` → (1000, SI names),
    ``"GiB"`` → (1024, IEC names).

    Raises:
        ValueError: any other family name.
    """
    if units == "GB":
        return 1000, _SI
    if units == "GiB":
        return 1024, _IEC
    raise ValueError(f"units must be 'GB' (10^9 bytes) or 'GiB' (2^30 bytes), not {units!r}")


def _fixed(num: int, den: int, places: int) -> str:
    """``num / den`` with ``places`` decimals, exactly: rounded half up (ties away from zero), the
    whole part grouped with commas; never ``"-0.00"``."""
    if den == 0:
        raise ZeroDivisionError("division by zero")
    scale = 10**places
    q, r = divmod(abs(num) * scale, abs(den))
    scaled = q + (2 * r >= abs(den))
    whole, frac = divmod(scaled, scale)
    sign = "-" if scaled and (num < 0) != (den < 0) else ""
    return sign + format_count(whole) + (f".{frac:0{places}d}" if places else "")


def format_bytes(n: int, units: str = "GB") -> str:
    """Format an exact byte count for people, two decimals, in one unit family.

    ``units="GB"`` picks SI units (kB, MB, GB, TB, PB, EB, ZB, YB: powers of 1000), ``units="GiB"``
    IEC units (KiB, MiB, GiB, ... YiB: powers of 1024); the prefix scales with the size so that
    small items stay readable: ``format_bytes(13_476_831_232)`` → ``"13.48 GB"``,
    ``format_bytes(524_288)`` → ``"524.29 kB"``, ``format_bytes(524_288, "GiB")`` →
    ``"512.00 KiB"``, ``format_bytes(512)`` → ``"512 B"``. A value that would round to 1000 (1024)
    of a unit moves up one (``999_999_999`` → ``"1.00 GB"``). Above the largest unit the whole
    part keeps growing, grouped with commas: ``format_bytes(5 * 10**36)`` →
    ``"5,000,000,000,000.00 YB"``.

    Exact for any ``int``: integer arithmetic only, rounded half up (ties away from zero).
    Negative sizes (a shortfall) keep their sign.

    Raises:
        ValueError: ``units`` other than ``"GB"`` or ``"GiB"``.
    """
    base, names = unit_base(units)
    n = int(n)
    size = abs(n)
    if size < base:
        return f"{format_count(n)} B"
    exp = 0
    while exp + 1 < len(names) and size >= base ** (exp + 1):
        exp += 1
    text = _fixed(n, base**exp, 2)
    if exp + 1 < len(names) and text.lstrip("-").startswith(format_count(base) + "."):
        exp += 1  # 999.995 kB rounds to "1,000.00 kB": say "1.00 MB"
        text = _fixed(n, base**exp, 2)
    return f"{text} {names[exp]}"


def format_in(n: int, unit: str) -> str:
    """Format ``n`` bytes in one fixed unit (``"GB"``, ``"GiB"``, ``"MiB"``, ...), two decimals,
    exactly (rounded half up, commas: ``format_in(10**13, "GB")`` → ``"10,000.00 GB"``).

    Used where several numbers must share a unit (a bar's scale, a comparison in ``--explain``).

    Raises:
        ValueError: an unknown unit name.
    """
    key = unit.lower()
    if key not in _SIZE_UNIT or key in ("", "b"):
        raise ValueError(f"unknown unit {unit!r}")
    return f"{_fixed(int(n), _SIZE_UNIT[key], 2)} {unit}"


def format_count(n: int) -> str:
    """Format an exact count with thousands separators: 6738415616 → ``"6,738,415,616"``.

    Every count shown to a person (parameters, tokens, layers, devices, batch sizes) goes through
    this function (or :func:`count_noun`)."""
    return f"{int(n):,}"


def count_noun(n: int, singular: str, plural: str | None = None) -> str:
    """A count with its noun, singular for exactly one: ``count_noun(1, "token")`` →
    ``"1 token"``, ``count_noun(4096, "token")`` → ``"4,096 tokens"``,
    ``count_noun(2, "matrix", "matrices")`` → ``"2 matrices"``."""
    noun = singular if n == 1 else (plural or singular + "s")
    return f"{format_count(n)} {noun}"


def format_short(n: int) -> str:
    """Format a count of parameters compactly: 6738415616 → ``"6.74 B"`` (SI, 10^9), exactly
    (rounded half up; 999,999,999 → ``"1.00 B"``, 10^15 → ``"1,000.00 T"``)."""
    steps = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K"))
    for k, (factor, name) in enumerate(steps):
        if abs(n) >= factor:
            text = _fixed(n, factor, 2)
            if k and text.lstrip("-").startswith("1,000."):
                factor, name = steps[k - 1]
                text = _fixed(n, factor, 2)
            return f"{text} {name}"
    return format_count(n)


def format_number(x: Fraction | int) -> str:
    """Format an exact rational for a formula: integers with separators, fractions to at most 3
    places, exactly (``Fraction(80, 3)`` → ``"26.667"``, ``Fraction(5, 2)`` → ``"2.5"``)."""
    if isinstance(x, int) or x.denominator == 1:
        return format_count(int(x))
    return _fixed(x.numerator, x.denominator, 3).rstrip("0").rstrip(".")
