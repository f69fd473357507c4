"""Parsing of counts, sizes and yes/no values; formatting of byte counts (GB vs GiB)."""

from __future__ import annotations

import pytest

from quiz.footprint.units import (
    GB,
    GIB,
    format_bytes,
    format_count,
    format_in,
    parse_bool,
    parse_count,
    parse_size,
)


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
    assert GB == 1_000_000_000
    assert GIB == 1_073_741_824
    assert format_bytes(13_476_831_232) == "13.48 GB"
    assert format_bytes(13_476_831_232, "GiB") == "12.55 GiB"
    assert format_bytes(80 * GIB, "GiB") == "80.00 GiB"
    assert format_bytes(80 * GIB, "GB") == "85.90 GB"
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
