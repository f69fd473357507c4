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

import collections
import functools
import re
import threading
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

import yaml
import yaml.events
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
    "EVENTS_LOCK",
    "AliasEvent",
    "DocumentStartEvent",
    "Event",
    "EventSource",
    "Handlers",
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
    "feed",
    "has_libyaml",
    "last_event",
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


class Handlers(NamedTuple):
    """What :func:`feed` calls for each event, with the event's fields in the order PyYAML's
    event classes take them (marks are the parser's, :class:`ParserMark`). Each must return a
    true value (``True``): the parse ends early at the first ``None``."""

    scalar: Callable[[str | None, str | None, tuple[bool, bool], str, Any, Any, str | None],
                     Any]
    """``(anchor, tag, implicit, value, start_mark, end_mark, style)``; ``style`` is ``""``
    (plain), ``"'"``, ``'"'``, ``"|"`` or ``">"``."""
    mapping_start: Callable[[str | None, str | None, bool, Any, Any, bool | None], Any]
    """``(anchor, tag, implicit, start_mark, end_mark, flow_style)``."""
    sequence_start: Callable[[str | None, str | None, bool, Any, Any, bool | None], Any]
    """``(anchor, tag, implicit, start_mark, end_mark, flow_style)``."""
    end: Callable[[Any, Any], Any]
    """``(start_mark, end_mark)`` of a mapping's or a list's end."""
    alias: Callable[[str, Any, Any], Any]
    """``(anchor, start_mark, end_mark)``."""
    document_start: Callable[[Any, Any, bool, Any, Any], Any]
    """``(start_mark, end_mark, explicit, version, tags)``."""


_EVENT_CLASSES = ("StreamStartEvent", "StreamEndEvent", "DocumentStartEvent",
                  "DocumentEndEvent", "AliasEvent", "ScalarEvent", "SequenceStartEvent",
                  "SequenceEndEvent", "MappingStartEvent", "MappingEndEvent")
"""The event classes libyaml's binding (``yaml._yaml``) instantiates, by their global name."""

EVENTS_LOCK = threading.RLock()
"""Held while :func:`feed` has libyaml's binding call handlers instead of making event objects,
and by every other use of that binding's events in quiz (:func:`dump`, :func:`last_event`,
:func:`quiz.bank.yaml_reader.scalar_spans`): none may run meanwhile in another thread."""


def feed(text: str, handlers: Handlers, *, pure_python: bool = False) -> None:
    """Parse ``text`` (one stream) and call ``handlers`` for each event, in order.

    With libyaml, its binding calls the handlers where it would make event objects (it looks
    its event classes up by name each time: they are swapped for the handlers while
    :data:`EVENTS_LOCK` is held, and put back): a 40 MB bank's million events cost no
    million objects and no second dispatch on their class. The swap is checked once against
    the event objects on a sample text (:func:`_swap_works`); should PyYAML ever call its
    classes otherwise, the event objects are read instead (slower, the same calls). Without
    libyaml, or with ``pure_python``, the pure parser's events are read.

    Raises:
        yaml.YAMLError, UnicodeError: as :func:`parser` and its ``get_event`` do, where the text
            is wrong (the handlers were called for every event before it).
        Exception: whatever a handler raises (the parse stops there).
    """
    if _CParser is None or pure_python or not _swap_works():
        _call_each(parser(text, pure_python=pure_python), handlers)
        return
    with EVENTS_LOCK:
        if _SWAPPED:  # a handler parsing YAML would get the outer handlers called for it
            raise RuntimeError("yamlio.feed() called from inside a handler of feed()")
        _swap(handlers)
        source = None
        try:
            source = parser(text)
            collections.deque(iter(source.get_event, None), maxlen=0)
        finally:
            _swap(None)
            if source is not None:
                source.dispose()


def last_event(text: str, *, pure_python: bool = False) -> Event | None:
    """The last event :func:`parser` gives for ``text`` before it raises ``yaml.YAMLError``
    (``None`` when it raises first, or does not raise): what precedes a syntax error."""
    last = None
    with EVENTS_LOCK:
        source = None
        try:
            source = parser(text, pure_python=pure_python)
            for event in iter(source.get_event, None):
                last = event
        except (YAMLError, UnicodeError):
            return last
        finally:
            if source is not None:
                source.dispose()
    return None


def _ignore(*_: Any) -> bool:
    return True


_SWAPPED: list[bool] = []
"""Not empty while :func:`_swap` has handlers in place (changed with :data:`EVENTS_LOCK` held)."""


def _swap(handlers: Handlers | None) -> None:
    """Point the binding's event class names at ``handlers`` (``None``: the classes again)."""
    import yaml._yaml as binding

    _SWAPPED[:] = [] if handlers is None else [True]

    calls: dict[str, Callable[..., Any]] = {} if handlers is None else {
        "ScalarEvent": handlers.scalar, "MappingStartEvent": handlers.mapping_start,
        "SequenceStartEvent": handlers.sequence_start, "MappingEndEvent": handlers.end,
        "SequenceEndEvent": handlers.end, "AliasEvent": handlers.alias,
        "DocumentStartEvent": handlers.document_start}
    for name in _EVENT_CLASSES:
        setattr(binding, name, getattr(yaml.events, name) if handlers is None
                else calls.get(name, _ignore))


def _call_each(source: EventSource, handlers: Handlers) -> None:
    """:func:`feed` from event objects: each event's fields passed to its handler."""
    event: Any  # read by exact class (fast); mypy cannot narrow ``cls is ScalarEvent``
    try:
        for event in iter(source.get_event, None):
            cls = event.__class__
            if cls is ScalarEvent:
                done = handlers.scalar(event.anchor, event.tag, event.implicit, event.value,
                                       event.start_mark, event.end_mark, event.style)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                start = handlers.mapping_start if cls is MappingStartEvent \
                    else handlers.sequence_start
                done = start(event.anchor, event.tag, event.implicit, event.start_mark,
                             event.end_mark, event.flow_style)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                done = handlers.end(event.start_mark, event.end_mark)
            elif cls is AliasEvent:
                done = handlers.alias(event.anchor, event.start_mark, event.end_mark)
            elif cls is DocumentStartEvent:
                done = handlers.document_start(event.start_mark, event.end_mark,
                                               event.explicit, event.version, event.tags)
            else:
                done = True
            if done is None:
                return
    finally:
        source.dispose()


_SAMPLE = ("%YAML 1.1\n--- !m &r\nk: [*r, 'q', \"d\\te\", !!str 3, {x: y}]\nb: |\n  t\n"
           "f: >-\n  u\n  v\nl:\n- &s p\n- - z\n...\n")


@functools.cache
def _swap_works() -> bool:
    """True when :func:`feed`'s swap gives the handlers what the event objects hold, on a
    sample of every kind of event (styles, tags, anchors, an alias, a directive)."""
    def recorder(calls: list[tuple[Any, ...]]) -> Handlers:
        def record(kind: str) -> Callable[..., bool]:
            def call(*args: Any) -> bool:
                calls.append((kind, *(_plain(a) for a in args)))
                return True
            return call
        return Handlers(record("scalar"), record("mapping"), record("sequence"), record("end"),
                        record("alias"), record("document"))

    try:
        slow: list[tuple[Any, ...]] = []
        fast: list[tuple[Any, ...]] = []
        _call_each(parser(_SAMPLE), recorder(slow))
        with EVENTS_LOCK:
            _swap(recorder(fast))
            try:
                source = _CParser(_SAMPLE)  # type: ignore[misc]
                collections.deque(iter(source.get_event, None), maxlen=0)
                source.dispose()
            finally:
                _swap(None)
        return bool(slow) and fast == slow
    except Exception:  # any surprise: the event objects are read instead
        _swap(None)
        return False


def _plain(value: Any) -> Any:
    """A mark as its position, anything else as it is (to compare the calls of two parses)."""
    if hasattr(value, "line") and hasattr(value, "index"):
        return ("mark", value.index, value.line, value.column)
    return value


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
    with EVENTS_LOCK:  # the emitter checks each event's class by the names feed() swaps
        return yaml.dump(
            data,
        Dumper=_FoldingDumper if fold else _BlockDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
