"""YAML text → plain Python values that remember where each value was written.

:func:`build` reads the parser's *event stream* (:func:`quiz.yamlio.parser`) in one flat loop with
an explicit stack: there is no recursive composer to crash or overflow, so nesting deeper than
:data:`MAX_DEPTH` is rejected as soon as it is reached, whatever the input.

While building it rejects anchors, aliases and explicit tags (no "billion laughs", no
``!!python/object``), duplicate keys (naming both lines) and keys that are not text. Every scalar is
kept as the exact string the author typed (``No``, ``8``, ``~``, ``=`` stay strings): no tag is ever
resolved and no constructor runs. The garbage collector is paused while building (the values are
acyclic, so it has nothing to find; it would only rescan the growing heap).

The result keeps each mapping's and list's marks in :attr:`Document.marks`, keyed by ``id()`` of
the container, so validation errors can be located afterwards
(:mod:`quiz.bank.validation_messages`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from quiz import yamlio
from quiz.bank import yaml_messages
from quiz.bank.problems import Problem, Span
from quiz.bank.terminal import flagged_pattern

MAX_DEPTH = 32
"""Deepest nesting of mappings and lists accepted. A bank needs about 8; a footprint a few more."""

MAX_PROBLEMS = 100
"""Building stops after this many problems in one file (a hostile file could have millions)."""

Marks = tuple[yamlio.ParserMark, Any, Any]
"""``(start_mark, key_marks, value_marks)`` of one container: for a mapping, key → mark dicts
(``dict[str, ParserMark]``); for a list, ``None`` and a ``list[ParserMark]`` of value marks. Marks
are the parser's (:class:`quiz.yamlio.ParserMark`: 0-based line/column/index)."""

_AWAIT_KEY = object()  # in a mapping, the next scalar is a key
_KEY_NODE = object()  # in a mapping, a list/mapping is being read in key position
_DISCARD = object()  # the pending value belongs to a rejected key: read it, do not keep it


@dataclass
class Document:
    """What :func:`build` found in one text.

    ``value`` is the root value (``None`` when there is no document); ``found`` says whether a
    document was there at all; ``fatal`` is true when reading stopped early (syntax error, nesting),
    so ``value`` is incomplete and must not be validated. ``comments`` lists plain values cut
    short by a `` #`` comment, as ``(path, start_mark, end_mark)``; whether that is an error
    depends on the field, which the model knows.
    """

    value: Any = None
    found: bool = False
    fatal: bool = False
    marks: dict[int, Marks] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    comments: list[tuple[tuple[Any, ...], yamlio.ParserMark, yamlio.ParserMark]] = field(
        default_factory=list)
    start: yamlio.ParserMark | None = None
    """The parser mark where the root value starts."""
    flagged: list[tuple[int, str]] = field(default_factory=list)
    """Scalars holding characters that :func:`quiz.bank.terminal.flagged_characters` finds
    (controls, invisible and bidi characters), as ``(index where the scalar starts, value)``:
    :func:`quiz.bank.text_checks.flagged_problems` warns about each character at its place."""


def scalar_spans(text: str, *, pure_python: bool) -> Generator[Span, None, None]:
    """Yield every scalar's :class:`~quiz.bank.problems.Span`, in text order, until the first
    syntax error (used to tell which tabs are content; see
    :func:`quiz.bank.text_checks.resolve_tabs`). Lazy: parsing stops when the caller stops
    asking."""
    parser = None
    depth = 0
    event: Any  # read by exact class (fast); mypy cannot narrow ``cls is ScalarEvent``
    try:
        # Created inside the try: the pure parser's reader refuses a bad character right here.
        parser = yamlio.parser(text, pure_python=pure_python)
        for event in iter(parser.get_event, None):
            cls = event.__class__
            if cls is yamlio.ScalarEvent:
                style = event.style
                kind = "block" if style in ("|", ">") else "quoted" if style else "plain"
                yield Span(kind, event.start_mark.index, event.end_mark.index)
            elif cls is yamlio.MappingStartEvent or cls is yamlio.SequenceStartEvent:
                depth += 1
                if depth > MAX_DEPTH:
                    return
            elif cls is yamlio.MappingEndEvent or cls is yamlio.SequenceEndEvent:
                depth -= 1
    except (yamlio.YAMLError, UnicodeError):
        return  # build() reads the text again and reports the problem at its place
    finally:
        if parser is not None:
            parser.dispose()


def build(text: str, *, pure_python: bool = False,
          keys: frozenset[str] = frozenset(),
          progress: Callable[[int, int], None] | None = None) -> Document:
    """Read ``text`` (one YAML document) into plain dicts, lists and strings.

    Never raises for bad YAML: problems are in :attr:`Document.problems`, located at the node
    (anchors, aliases, tags, duplicate keys, non-text keys, a second document) or at the syntax
    error; scalars holding control or invisible characters are listed in
    :attr:`Document.flagged`. If libyaml stops at its own nesting limit before this
    loop reaches :data:`MAX_DEPTH`, the text is read again by the pure-Python parser, so the depth
    error is the same with both parsers. ``keys`` are the key names the file may use: a syntax
    error on a line that starts with one of them is explained as indentation. ``progress``, if
    given, is called as each item of a top-level list is read (each question of a bank), with the
    number of such items read so far and the character index in ``text`` reached.

    Every exception either parser raises, at any stage (creating the parser included), becomes a
    located problem.
    """
    builder = _Builder(text, pure_python, keys, progress)
    enabled = gc.isenabled()
    gc.disable()
    try:
        doc = builder.run()
    finally:
        if enabled:
            gc.enable()
    if builder.libyaml_too_deep and not pure_python:
        return build(text, pure_python=True, keys=keys, progress=progress)
    return doc


class _TooMany(Exception):
    """Raised inside the loop when a file has too many problems to list."""

    def __init__(self, mark: yamlio.ParserMark) -> None:
        super().__init__()
        self.mark = mark


class _Builder:
    """The event loop of :func:`build`; one instance per text."""

    def __init__(self, text: str, pure_python: bool, keys: frozenset[str],
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.text = text
        self.progress = progress
        self.pure_python = pure_python
        self.keys = keys
        self.doc = Document()
        self.libyaml_too_deep = False
        """True when libyaml stopped at its own nesting limit (1,000 levels)."""
        self._lines: list[str] | None = None

    @property
    def lines(self) -> list[str]:
        """The text's lines, split on first use (only error paths need them)."""
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    def problem(self, mark: yamlio.ParserMark, message: str, severity: str = "error") -> None:
        """Record a problem at a parser mark; stop reading after :data:`MAX_PROBLEMS`."""
        self.doc.problems.append(Problem(mark.line + 1, mark.column + 1, message, severity))
        if len(self.doc.problems) >= MAX_PROBLEMS:
            raise _TooMany(mark)

    def run(self) -> Document:
        """Read every event; see :func:`build`."""
        doc = self.doc
        text = self.text
        parser = None
        try:
            parser = yamlio.parser(text, pure_python=self.pure_python)
            self._loop(parser, doc, text)
        except yamlio.MarkedYAMLError as exc:
            doc.fatal = True
            self.libyaml_too_deep = "nesting depth" in (exc.problem or "")
            problem = yaml_messages.syntax_problem(exc, self.lines, keys=self.keys,
                                                   last=getattr(exc, "last_event", None))
            # An alias or tag already reported at this spot is the better message.
            if not any(p[:2] == problem[:2] for p in doc.problems):
                doc.problems.append(problem)
        except (yamlio.YAMLError, UnicodeError) as exc:
            # ReaderError (a character YAML does not allow; the pure parser raises it as soon as
            # it is created), or libyaml refusing a str it cannot encode (a lone surrogate).
            doc.fatal = True
            doc.problems.append(yaml_messages.reader_problem(exc, text))
        except _TooMany as stop:
            doc.fatal = True
            doc.problems.append(Problem(stop.mark.line + 1, stop.mark.column + 1,
                                        f"more than {MAX_PROBLEMS} problems: stopped reading "
                                        "this file here"))
        finally:
            if parser is not None:
                parser.dispose()
        return doc

    def _loop(self, parser: yamlio.EventSource, doc: Document, text: str) -> None:
        # One flat loop over the events. The hot path (scalars) is inlined; rare cases call out.
        scalar_cls = yamlio.ScalarEvent
        map_start, seq_start = yamlio.MappingStartEvent, yamlio.SequenceStartEvent
        map_end, seq_end = yamlio.MappingEndEvent, yamlio.SequenceEndEvent
        alias_cls, doc_start = yamlio.AliasEvent, yamlio.DocumentStartEvent
        check_controls = not text.isascii() or "\\" in text
        control = flagged_pattern().search if check_controls else None
        comment_ends = _comment_starts(text)
        marks = doc.marks
        stack: list[tuple[Any, bool, Any, Any, Any]] = []
        cur: Any = None
        is_map = False
        key: Any = _AWAIT_KEY
        kmarks: Any = None
        vmarks: Any = None
        depth = 0
        documents = 0
        progress = self.progress
        items = 0
        event: Any = None  # read by exact class (fast); mypy cannot narrow ``cls is scalar_cls``
        try:
            for event in iter(parser.get_event, None):
                cls = event.__class__
                if cls is scalar_cls or cls is alias_cls:
                    if cls is scalar_cls:
                        value = event.value
                        if event.anchor is not None or event.tag is not None:
                            self._props(event)
                        if control is not None and (event.style == '"' or not value.isascii()):
                            if control(value):
                                doc.flagged.append((event.start_mark.index, value))
                    else:
                        value = "*" + event.anchor
                        self.problem(event.start_mark, yaml_messages.alias_message(
                            event.anchor, self.lines, event.start_mark))
                    if is_map:
                        if key is _AWAIT_KEY:
                            if value in cur:
                                key = _DISCARD
                                self._duplicate(value, kmarks[value], event.start_mark)
                            else:
                                key = value
                                kmarks[value] = event.start_mark
                            continue
                        if key is not _DISCARD:
                            cur[key] = value
                            vmarks[key] = event.start_mark
                            if comment_ends and cls is scalar_cls and not event.style and \
                                    event.end_mark.index in comment_ends:
                                doc.comments.append((self._path(stack, key), event.start_mark,
                                                     event.end_mark))
                        key = _AWAIT_KEY
                    elif cur is not None:
                        cur.append(value)
                        vmarks.append(event.start_mark)
                        if comment_ends and cls is scalar_cls and not event.style and \
                                event.end_mark.index in comment_ends:
                            doc.comments.append((self._path(stack, len(cur) - 1), event.start_mark,
                                                 event.end_mark))
                    elif documents == 1:
                        doc.value = value
                        doc.start = event.start_mark
                elif cls is map_start or cls is seq_start:
                    depth += 1
                    if depth > MAX_DEPTH:
                        doc.fatal = True
                        self.problem(event.start_mark, yaml_messages.depth_message(MAX_DEPTH))
                        return
                    if event.anchor is not None or event.tag is not None:
                        self._props(event)
                    new: Any = {} if cls is map_start else []
                    if is_map:
                        if key is _AWAIT_KEY:
                            self.problem(event.start_mark, "a key must be text, not a list or "
                                         "mapping (a '?' or a key in brackets makes one)")
                            key = _KEY_NODE
                        elif key is not _DISCARD:
                            cur[key] = new
                            vmarks[key] = event.start_mark
                    elif cur is not None:
                        cur.append(new)
                        vmarks.append(event.start_mark)
                    else:
                        doc.value = new
                        doc.start = event.start_mark
                    stack.append((cur, is_map, key, kmarks, vmarks))
                    cur = new
                    if cls is map_start:
                        is_map, key, kmarks, vmarks = True, _AWAIT_KEY, {}, {}
                    else:
                        is_map, key, kmarks, vmarks = False, _AWAIT_KEY, None, []
                    marks[id(new)] = (event.start_mark, kmarks, vmarks)
                elif cls is map_end or cls is seq_end:
                    depth -= 1
                    cur, is_map, key, kmarks, vmarks = stack.pop()
                    if depth == 2 and not is_map and progress is not None:  # a list's item
                        items += 1
                        progress(items, event.start_mark.index)
                    if is_map:
                        key = _DISCARD if key is _KEY_NODE else _AWAIT_KEY
                elif cls is doc_start:
                    documents += 1
                    doc.found = True
                    if documents > 1:
                        self.problem(event.start_mark, "a bank file holds one YAML document; this "
                                     "'---' starts a second one (split it into another file)")
                        return
        except yamlio.MarkedYAMLError as exc:
            # The last event read tells a quote left open from other syntax errors.
            exc.last_event = event  # type: ignore[attr-defined]
            raise

    def _path(self, stack: list[tuple[Any, bool, Any, Any, Any]],
              last: str | int) -> tuple[str | int, ...]:
        """The path (keys and indices) from the root to the value being read."""
        path: list[str | int] = []
        for container, is_map, key, _, _ in stack[1:]:
            path.append(key if is_map else len(container) - 1)
        path.append(last)
        return tuple(path)

    def _props(self, event: Any) -> None:
        """Report an anchor (``&name``) or an explicit tag (``!tag``) on a node."""
        scalar = event.__class__ is yamlio.ScalarEvent
        if event.tag is not None:
            self.problem(event.start_mark, yaml_messages.tag_message(
                event.tag, self.lines, event.start_mark, scalar))
        if event.anchor is not None:
            self.problem(event.start_mark, yaml_messages.anchor_message(
                event.anchor, self.lines, event.start_mark, scalar))

    def _duplicate(self, key: str, first: yamlio.ParserMark, again: yamlio.ParserMark) -> None:
        if first.line == again.line:  # a flow mapping, {A: x, A: y}: the columns tell them apart
            where = (f"at {again.line + 1}:{again.column + 1}: it is already at "
                     f"{first.line + 1}:{first.column + 1}")
        else:
            where = f"on line {again.line + 1}: it is already on line {first.line + 1}"
        self.problem(again, f"duplicate key '{key}' {where} (a key may appear once per mapping)")


def _comment_starts(text: str) -> set[int]:
    """Indices where a run of spaces before a ``#`` starts, after other text on the same line:
    the places where a plain value would end if the ``#`` began a comment."""
    found: set[int] = set()
    index = text.find(" #")
    while index != -1:
        start = index
        while start > 0 and text[start - 1] == " ":
            start -= 1
        if start > 0 and text[start - 1] != "\n":
            found.add(start)
        index = text.find(" #", index + 2)
    return found
