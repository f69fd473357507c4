"""Parsing and formatting of counts and byte sizes, shared by the spec, the presets and the CLI.

Everything inside the calculator is an exact ``int`` (parameters, tokens, bytes). Text enters
through :func:`parse_count`, :func:`parse_size` and :func:`parse_bool` (question banks hand every
scalar over as the string the author typed: ``"7B"``, ``"6.7b"``, ``"7e9"``, ``"1_000"``); units
appear only at the edge, in :func:`format_bytes`.

Units: ``GB`` = 10**9 bytes (SI, as in vendor datasheets and disk sizes), ``GiB`` = 2**30 bytes
(IEC, what ``nvidia-smi`` reports as MiB × 1024). The two are never mixed.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

GB = 10**9
"""One gigabyte (SI): 1,000,000,000 bytes."""
GIB = 2**30
"""One gibibyte (IEC): 1,073,741,824 bytes."""

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
    rf"\s*(?P<sign>[+-])?(?P<int>{_INT})(?:\.(?P<frac>\d+))?(?:[eE](?P<exp>[+-]?\d{{1,3}}))?"
    r"\s*(?P<unit>[A-Za-z]*)\s*"
)
_TRUE = frozenset({"true", "yes", "on", "1", "y"})
_FALSE = frozenset({"false", "no", "off", "0", "n"})


def _decimal(match: re.Match[str]) -> Decimal:
    digits = match["int"].replace("_", "").replace(",", "")
    text = f"{match['sign'] or ''}{digits}"
    if match["frac"]:
        text += f".{match['frac']}"
    if match["exp"]:
        text += f"e{match['exp']}"
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the regex only lets numbers through
        raise ValueError(f"{match.string!r} is not a number") from exc


def _whole(value: Decimal, multiplier: int, original: object) -> int:
    with localcontext() as ctx:
        ctx.prec = 80
        scaled = value * multiplier
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{original!r} is not a whole number")
    result = int(scaled)
    if abs(result) > MAX_VALUE:
        raise ValueError(f"{original!r} is too large (the limit is 10^24)")
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
            raise ValueError(f"{value!r} is too large (the limit is 10^24)")
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

    Units (case-insensitive): ``B``; SI ``kB MB GB TB PB`` (powers of 1000); IEC
    ``KiB MiB GiB TiB PiB`` (powers of 1024). ``"500GB"`` → 500,000,000,000;
    ``"80 GiB"`` → 85,899,345,920. Numbers follow :func:`parse_count`'s rules.

    Raises:
        ValueError: not a number, an unknown unit, a fractional byte count, or more than 10^24.
        TypeError: a type other than ``int``, ``float`` or ``str``.
    """
    if isinstance(value, (bool, int, float)) or not isinstance(value, str):
        return parse_count(value)
    match = _NUMBER.fullmatch(value)
    if match is None:
        raise ValueError(f"{value!r} is not a size (examples: 500GB, 80 GiB, 1e12)")
    unit = match["unit"].lower()
    if unit not in _SIZE_UNIT:
        raise ValueError(
            f"{value!r}: unknown unit {match['unit']!r} "
            "(use B, kB, MB, GB, TB or KiB, MiB, GiB, TiB)"
        )
    return _whole(_decimal(match), _SIZE_UNIT[unit], value)


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


def format_bytes(n: int, units: str = "GB") -> str:
    """Format an exact byte count for people, two decimals, in one unit family.

    ``units="GB"`` picks SI units (1 GB = 10**9 bytes), ``units="GiB"`` IEC units
    (1 GiB = 2**30 bytes); the prefix scales with the size so that small items stay readable:
    ``format_bytes(13_476_831_232)`` → ``"13.48 GB"``, ``format_bytes(524_288)`` → ``"524.29 kB"``,
    ``format_bytes(524_288, "GiB")`` → ``"512.00 KiB"``, ``format_bytes(512)`` → ``"512 B"``.
    Negative sizes (a shortfall) keep their sign.

    Raises:
        ValueError: ``units`` other than ``"GB"`` or ``"GiB"``.
    """
    base, names = unit_base(units)
    sign = "-" if n < 0 else ""
    size = abs(int(n))
    if size < base:
        return f"{sign}{size} B"
    exp = 0
    while exp + 1 < len(names) and size >= base ** (exp + 1):
        exp += 1
    value = size / base**exp
    if round(value, 2) >= base and exp + 1 < len(names):
        exp += 1
        value = size / base**exp
    return f"{sign}{value:.2f} {names[exp]}"


def format_in(n: int, unit: str) -> str:
    """Format ``n`` bytes in one fixed unit (``"GB"``, ``"GiB"``, ``"MiB"``, ...), two decimals.

    Used where several numbers must share a unit (a bar's scale, a comparison in ``--explain``).

    Raises:
        ValueError: an unknown unit name.
    """
    key = unit.lower()
    if key not in _SIZE_UNIT or key in ("", "b"):
        raise ValueError(f"unknown unit {unit!r}")
    return f"{n / _SIZE_UNIT[key]:,.2f} {unit}"


def format_count(n: int) -> str:
    """Format an exact count with thousands separators: 6738415616 → ``"6,738,415,616"``."""
    return f"{n:,}"


def format_short(n: int) -> str:
    """Format a count of parameters compactly: 6738415616 → ``"6.74 B"`` (SI, 10^9)."""
    for factor, name in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if abs(n) >= factor:
            return f"{n / factor:.2f} {name}"
    return str(n)


def format_number(x: Fraction | int) -> str:
    """Format an exact rational for a formula: integers with separators, fractions to 3 places
    (``Fraction(80, 3)`` → ``"26.667"``)."""
    if isinstance(x, int) or x.denominator == 1:
        return f"{int(x):,}"
    return f"{float(x):,.3f}".rstrip("0").rstrip(".")
