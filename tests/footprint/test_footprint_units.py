"""Parsing of counts, sizes and yes/no values; formatting of byte counts (GB vs GiB)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.footprint.inputs.units import (
    count_noun,
    format_bytes,
    format_count,
    format_in,
    format_number,
    format_short,
    parse_bool,
    parse_count,
    parse_size,
)

GB = 10**9  # written out here, so the tests do not take the units from the code they check
GIB = 2**30


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7B", 7_000_000_000),
        ("7b", 7_000_000_000),
        ("6.7b", 6_700_000_000),
        ("7e9", 7_000_000_000),
        ("7E9", 7_000_000_000),
        ("4096", 4096),
        ("1_000", 1000),
        ("2T", 2 * 10**12),
        ("1.5K", 1500),
        ("32k", 32_000),
        ("32Ki", 32_768),
        ("1Mi", 2**20),
        ("6,738,415,616", 6_738_415_616),
        (" 12 ", 12),
        ("0", 0),
        ("-4", -4),
        ("7.5B", 7_500_000_000),
        ("6.738415616B", 6_738_415_616),
        (4096, 4096),
        (7e9, 7_000_000_000),
    ],
)
def test_parse_count_accepts_what_authors_type(text: object, expected: int) -> None:
    assert parse_count(text) == expected
    assert type(parse_count(text)) is int


@pytest.mark.parametrize(
    "text", ["1.5", "7X", "", "B", "1,00", "1__0", "seven", "1e999", "0.1", "1.2345K", "12 GB"]
)
def test_parse_count_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_count(text)


@pytest.mark.parametrize("value", [None, True, [1], {"a": 1}])
def test_parse_count_rejects_other_types(value: object) -> None:
    with pytest.raises(TypeError):
        parse_count(value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500GB", 500 * GB),
        ("80 GiB", 80 * GIB),
        ("1e12", 10**12),
        ("2TB", 2 * 10**12),
        ("1.5 MiB", 3 * 2**19),
        ("512", 512),
        ("10kB", 10_000),
        (123, 123),
    ],
)
def test_parse_size(text: object, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["5 GX", "1.5 B", "GB"])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


@pytest.mark.parametrize(("text", "expected"), [
    # A unit all in lower case has no capital to tell bits from bytes: read as bytes.
    ("1gb", GB), ("80gib", 80 * GIB), ("10kb", 10_000), ("1gB", GB), ("1KB", 1000),
    # Bits, spelt out: a whole number of bytes.
    ("8Gbit", GB), ("1Gbit", GB // 8), ("3 Mibit", 3 * 2**20 // 8), ("16bit", 2),
    ("100 mbit", 100 * 10**6 // 8),
])
def test_parse_size_case_and_bits(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("1Gb", "'1Gb' is ambiguous: write 1GB (bytes) or 1Gbit (a lower-case b means bits)"),
    ("1Gib", "'1Gib' is ambiguous: write 1GiB (bytes) or 1Gibit (a lower-case b means bits)"),
    ("500 Mb", "'500 Mb' is ambiguous: write 500MB (bytes) or 500Mbit (a lower-case b means "
               "bits)"),
    ("1Kb", "'1Kb' is ambiguous: write 1kB (bytes) or 1kbit (a lower-case b means bits)"),
    ("7b", "'7b' is ambiguous: write 7B (bytes) or 7bit (a lower-case b means bits)"),
    ("12bit", "'12bit' is not a whole number of bytes (12 bits)"),
    ("1bit", "'1bit' is not a whole number of bytes (1 bit)"),
])
def test_parse_size_refuses_units_whose_case_changes_their_meaning(text: str,
                                                                   message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_size(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("False", False),
        ("yes", True),
        ("no", False),
        ("on", True),
        ("OFF", False),
        (True, True),
        (0, False),
        ("1", True),
    ],
)
def test_parse_bool(text: object, expected: bool) -> None:
    assert parse_bool(text) is expected


@pytest.mark.parametrize("text", ["maybe", "", 2, None])
def test_parse_bool_rejects(text: object) -> None:
    with pytest.raises(ValueError):
        parse_bool(text)


def test_gb_and_gib_are_never_confused() -> None:
    assert format_bytes(1_000_000_000) == "1.00 GB"
    assert format_bytes(2**30, "GiB") == "1.00 GiB"
    assert format_bytes(13_476_831_232) == "13.48 GB"
    assert format_bytes(13_476_831_232, "GiB") == "12.55 GiB"
    assert format_bytes(80 * 2**30, "GiB") == "80.00 GiB"
    assert format_bytes(80 * 2**30, "GB") == "85.90 GB"
    assert format_bytes(524_288) == "524.29 kB"
    assert format_bytes(524_288, "GiB") == "512.00 KiB"
    assert format_bytes(512) == "512 B"
    assert format_bytes(0) == "0 B"
    assert format_bytes(-2 * GB) == "-2.00 GB"
    assert format_bytes(4 * 10**12) == "4.00 TB"
    assert format_bytes(999_999_999) == "1.00 GB"  # never "1000.00 MB"
    assert format_in(85_899_345_920, "GiB") == "80.00 GiB"
    assert format_count(6_738_415_616) == "6,738,415,616"
    with pytest.raises(ValueError):
        format_bytes(1, "gb")


def test_format_bytes_is_exact_for_huge_values() -> None:
    # QA: 5.12e51 YB came out as "5119999999999999726030217971446678116798676372291584.00 YB"
    big = 5_120_000 * 10**69
    assert format_bytes(big) == f"{5_120_000 * 10**45:,}.00 YB"
    assert format_bytes(big).startswith("5,120,000,000,000,")
    assert format_bytes(big + 5 * 10**21) == f"{5_120_000 * 10**45:,}.01 YB"  # a tie: up
    assert format_bytes(big + 5 * 10**21 - 1) == f"{5_120_000 * 10**45:,}.00 YB"
    assert format_bytes(-big, "GB") == "-" + format_bytes(big)
    assert format_bytes(2**80 * 123_456_789_123, "GiB") == "123,456,789,123.00 YiB"
    assert format_bytes(10**24) == "1.00 YB" and format_bytes(10**27) == "1,000.00 YB"


@pytest.mark.parametrize(
    ("n", "units", "text"),
    [
        (1005, "GB", "1.01 kB"),  # 1.005 is 1.00499... as a float
        (1025, "GB", "1.03 kB"),  # half up, not half even
        (1015, "GB", "1.02 kB"),
        (1_004_999, "GB", "1.00 MB"),
        (999_995, "GB", "1.00 MB"),  # rounds to 1000.00 kB: one unit up
        (999_994, "GB", "999.99 kB"),
        (1000, "GiB", "1,000 B"),
        (1023, "GiB", "1,023 B"),
        (1024 * 1000, "GiB", "1,000.00 KiB"),
        (1024 * 1024 - 5, "GiB", "1.00 MiB"),
        (-1005, "GB", "-1.01 kB"),
    ],
)
def test_format_bytes_rounds_half_up_exactly(n: int, units: str, text: str) -> None:
    assert format_bytes(n, units) == text


_SIZE_TEXT = re.compile(r"(-?)(\d{1,3}(?:,\d{3})*)(?:\.(\d\d))? ([kKMGTPEZY]i?B|B)")


@settings(max_examples=300, deadline=None)
@given(n=st.integers(-(10**60), 10**60), units=st.sampled_from(["GB", "GiB"]))
def test_format_bytes_is_within_half_a_hundredth(n: int, units: str) -> None:
    text = format_bytes(n, units)
    match = _SIZE_TEXT.fullmatch(text)
    assert match, text
    sign, whole, frac, unit = match.groups()
    base = 1000 if units == "GB" else 1024
    names = ["B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    if units == "GiB":
        names = ["B"] + [p + "iB" for p in "KMGTPEZY"]
    exp = names.index(unit)
    value = Fraction(int(whole.replace(",", "")) * 100 + int(frac or 0), 100) * base**exp
    if sign:
        value = -value
    if frac is None:
        assert value == n and abs(n) < base
    else:
        # round half up (away from zero): |n| in [v - u/200, v + u/200)
        unit_size = Fraction(base**exp, 200)
        assert abs(value) - unit_size <= abs(n) < abs(value) + unit_size
        assert int(whole.replace(",", "")) < base or exp == len(names) - 1


def test_other_formatters_are_exact() -> None:
    assert format_in(123_456_789_012_345_678_901_234_567_890, "GB") == (
        "123,456,789,012,345,678,901.23 GB"
    )
    assert format_in(1025 * 10**6, "GB") == "1.03 GB"
    assert format_short(999_999_999) == "1.00 B"  # not "1000.00 M"
    assert format_short(10**15) == "1,000.00 T"
    assert format_short(6_738_415_616) == "6.74 B" and format_short(999) == "999"
    assert format_number(Fraction(10**30 + 2, 3)) == "333,333,333,333,333,333,333,333,333,334"
    assert format_number(Fraction(80, 3)) == "26.667" and format_number(Fraction(5, 2)) == "2.5"
    assert format_number(Fraction(-1, 3000)) == "0"
    assert format_count(-1_234_567) == "-1,234,567"


def test_count_noun_pluralises() -> None:
    assert count_noun(1, "param") == "1 param"
    assert count_noun(2, "param") == "2 params"
    assert count_noun(0, "token") == "0 tokens"
    assert count_noun(1_000_000, "sequence") == "1,000,000 sequences"
    assert count_noun(1, "matrix", "matrices") == "1 matrix"
    assert count_noun(3, "matrix", "matrices") == "3 matrices"
