"""The one module that imports PyYAML: a safe event parser for loading, a block-style dumper.

Loading never goes through ``yaml.load`` with an unsafe loader. The bank loader
(:mod:`quiz.bank.yaml_reader`) reads the *event stream* of :func:`parser` and builds plain values
itself, so no constructor ever runs and no tag is ever resolved. :func:`parser` uses libyaml's
``CParser`` when PyYAML was built with it, and PyYAML's pure-Python reader, scanner and parser
otherwise (or when ``pure_python=True``, which the tests use to run every loader test both ways).

:func:`dump` writes YAML for exporters: keys in the given order, Unicode as is, and every multi-line
string in block style (``|``) so explanations stay readable in the exported file.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import yaml
from yaml.error import Mark
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.parser import Parser
from yaml.reader import Reader, ReaderError
from yaml.scanner import Scanner, ScannerError

try:  # libyaml bindings: absent when PyYAML was built without libyaml.
    from yaml import CSafeDumper as _SafeDumperBase
    from yaml import CSafeLoader as SafeLoader
    from yaml._yaml import CParser

    _CParser: type[CParser] | None = CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeDumper as _SafeDumperBase  # type: ignore[assignment]
    from yaml import SafeLoader  # type: ignore[assignment]

    _CParser = None

YAMLError = yaml.YAMLError
MarkedYAMLError = yaml.MarkedYAMLError

__all__ = [
    "BAD_ESCAPE",
    "AliasEvent",
    "DocumentStartEvent",
    "Event",
    "EventSource",
    "MappingEndEvent",
    "MappingStartEvent",
    "MarkedYAMLError",
    "ParserMark",
    "ReaderError",
    "SafeLoader",
    "ScalarEvent",
    "SequenceEndEvent",
    "SequenceStartEvent",
    "YAMLError",
    "dump",
    "has_libyaml",
    "parser",
    "safe_load",
]


class ParserMark(Protocol):
    """A position the parser reports (``yaml.error.Mark`` or libyaml's ``yaml._yaml.Mark``):
    0-based ``line`` and ``column``, and the 0-based character ``index`` into the text."""

    @property
    def line(self) -> int: ...  # pragma: no cover - protocol

    @property
    def column(self) -> int: ...  # pragma: no cover - protocol

    @property
    def index(self) -> int: ...  # pragma: no cover - protocol


class EventSource(Protocol):
    """What :func:`parser` returns: ``get_event()`` gives the next event, ``None`` after the last;
    ``dispose()`` frees the parser. Events carry ``start_mark``/``end_mark`` (0-based ``line``,
    ``column`` and character ``index``)."""

    def get_event(self) -> Event | None: ...  # pragma: no cover - protocol

    def dispose(self) -> None: ...  # pragma: no cover - protocol


BAD_ESCAPE = "found invalid Unicode character escape code"
"""libyaml's ``problem`` for a ``\\u``/``\\U`` escape that is no character (a UTF-16 surrogate
D800–DFFF, or beyond U+10FFFF); the pure parser raises the same."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class _PureParser(Reader, Scanner, Parser):
    """PyYAML's pure-Python reader, scanner and parser, without composer or constructor.

    One change: an escape that is no character is a syntax error, as in libyaml. PyYAML would
    turn ``"\\uD800"`` into a lone surrogate (a ``str`` that cannot be encoded) and crash with a
    ``ValueError`` on ``"\\U00110000"``."""

    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        Parser.__init__(self)

    def scan_flow_scalar_non_spaces(self, double: bool, start_mark: Mark) -> list[str]:
        try:
            chunks: list[str] = super().scan_flow_scalar_non_spaces(double, start_mark)
        except (ValueError, OverflowError):  # chr() of an escape beyond U+10FFFF
            raise ScannerError("while scanning a double-quoted scalar", start_mark, BAD_ESCAPE,
                               self.get_mark()) from None
        # The reader refuses surrogates in the text itself, so one here came from an escape.
        if double and _SURROGATE.search("".join(chunks)):
            raise ScannerError("while scanning a double-quoted scalar", start_mark, BAD_ESCAPE,
                               self.get_mark())
        return chunks


def has_libyaml() -> bool:
    """True when PyYAML's libyaml bindings are available (``parser()`` then uses them)."""
    return _CParser is not None


def parser(text: str, *, pure_python: bool = False) -> EventSource:
    """Return an event parser over ``text``: libyaml's ``CParser`` when available and
    ``pure_python`` is false, else PyYAML's pure-Python parser.

    The parser is lazy: errors (``yaml.MarkedYAMLError`` for syntax, ``ReaderError`` for characters
    YAML does not allow) are raised by ``get_event()`` as the text is read, not here.
    """
    if _CParser is not None and not pure_python:
        return _CParser(text)
    return _PureParser(text)


def safe_load(text: str, *, pure_python: bool = False) -> Any:
    """Load ``text`` with PyYAML's *safe* loader (C when available): YAML 1.1 implicit typing
    applies (``8`` is an int, ``No`` is False), tags other than the standard ones are errors.

    For data files whose numbers should be numbers (presets). Question banks use
    :func:`quiz.bank.load.load_library` instead, which keeps every scalar as written.

    Raises:
        yaml.YAMLError: on a syntax error or an unsafe tag.
    """
    loader = yaml.SafeLoader if pure_python else SafeLoader  # CSafeLoader when libyaml exists
    return yaml.load(text, Loader=loader)  # SafeLoader or CSafeLoader: no arbitrary objects


class _BlockDumper(_SafeDumperBase):
    """Safe dumper that writes multi-line strings in literal block style (``|``)."""


class _FoldingDumper(_BlockDumper):
    """:class:`_BlockDumper` that also writes long one-line strings folded (``>-``)."""


FOLD_OVER = 80
"""With ``dump(fold=True)``, one-line strings longer than this are written folded (``>-``)."""


def _represent_str(dumper: _BlockDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    if style is None and isinstance(dumper, _FoldingDumper) and len(value) > FOLD_OVER:
        style = ">"
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)
_FoldingDumper.add_representer(str, _represent_str)


def dump(data: Any, *, fold: bool = False) -> str:
    """Return ``data`` (plain dicts, lists, strings, numbers, booleans, None) as YAML text.

    Keys keep their order (``sort_keys=False``), non-ASCII text is written as is
    (``allow_unicode=True``), collections are written in block style, and a string with a line
    break is written as a ``|`` block (PyYAML falls back to a quoted form when a block cannot hold
    the string exactly, e.g. trailing spaces on a line). Strings that YAML 1.1 would read as another
    type (``No``, ``8``) are quoted, so the output loads back to the same strings. With ``fold``,
    a one-line string longer than :data:`FOLD_OVER` characters is written folded (``>-``), as
    instructors write stems and options by hand.

    Raises:
        yaml.representer.RepresenterError: for objects that are not plain data.
    """
    return yaml.dump(
        data,
        Dumper=_FoldingDumper if fold else _BlockDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
