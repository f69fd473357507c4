"""YAML text → plain Python values that remember where each value was written.

:func:`build` is called for each event of the parser's *event stream* (:func:`quiz.yamlio.feed`)
and places each value with an explicit stack: there is no recursive composer to crash or
overflow, so nesting deeper than :data:`MAX_DEPTH` is rejected as soon as it is reached, whatever
the input.

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
        with yamlio.EVENTS_LOCK:  # no feed() in another thread while these events are read
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
    reader reaches :data:`MAX_DEPTH`, the text is read again by the pure-Python parser, so the
    depth error is the same with both parsers. ``keys`` are the key names the file may use: a syntax
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


class _Stop(Exception):
    """Raised inside the reading to stop it where the document ends for this loader (a second
    document, nesting deeper than :data:`MAX_DEPTH`); the problem is recorded first."""


class _TooMany(Exception):
    """Raised inside the reading when a file has too many problems to list."""

    def __init__(self, mark: yamlio.ParserMark) -> None:
        super().__init__()
        self.mark = mark


class _Builder:
    """The event handlers of :func:`build`; one instance per text."""

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
        try:
            yamlio.feed(text, self._handlers(doc, text), pure_python=self.pure_python)
        except _Stop:
            pass
        except yamlio.MarkedYAMLError as exc:
            doc.fatal = True
            self.libyaml_too_deep = "nesting depth" in (exc.problem or "")
            # The last event read tells a quote left open from other syntax errors.
            last = yamlio.last_event(text, pure_python=self.pure_python)
            problem = yaml_messages.syntax_problem(exc, self.lines, keys=self.keys, last=last)
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
        return doc

    def _handlers(self, doc: Document, text: str) -> yamlio.Handlers:
        """The calls that build ``doc`` as the parser reads ``text`` (:func:`quiz.yamlio.feed`):
        one per event, each placing its value with an explicit stack (the state is shared by
        the closures). The hot path (a scalar) does the least; rare cases call out."""
        check_props = "&" in text or "!" in text  # no anchor without '&', no tag without '!'
        check_controls = not text.isascii() or "\\" in text
        control = flagged_pattern().search if check_controls else None
        comment_ends = _comment_starts(text)
        marks = doc.marks
        flagged = doc.flagged
        comments = doc.comments
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

        def scalar(anchor: str | None, tag: str | None, implicit: Any, value: str,
                   start: Any, end: Any, style: str | None) -> bool:
            nonlocal key
            if check_props and (anchor is not None or tag is not None):
                self._props(anchor, tag, start, True)
            if control is not None and (style == '"' or not value.isascii()) and \
                    control(value):
                flagged.append((start.index, value))
            if is_map:
                if key is _AWAIT_KEY:
                    if value in cur:
                        key = _DISCARD
                        self._duplicate(value, kmarks[value], start)
                    else:
                        key = value
                        kmarks[value] = start
                    return True
                if key is not _DISCARD:
                    cur[key] = value
                    vmarks[key] = start
                    if comment_ends and not style and end.index in comment_ends:
                        comments.append((self._path(stack, key), start, end))
                key = _AWAIT_KEY
            elif cur is not None:
                cur.append(value)
                vmarks.append(start)
                if comment_ends and not style and end.index in comment_ends:
                    comments.append((self._path(stack, len(cur) - 1), start, end))
            elif documents == 1:
                doc.value = value
                doc.start = start
            return True

        def alias(anchor: str, start: Any, end: Any) -> bool:
            # Reported, then placed as the text "*anchor" (a scalar of that name, quoted so
            # that no trailing comment is recorded for it) so that the rest reads on.
            self.problem(start, yaml_messages.alias_message(anchor, self.lines, start))
            return scalar(None, None, None, "*" + anchor, start, end, "'")

        def opened(anchor: str | None, tag: str | None, start: Any, mapping: bool) -> bool:
            nonlocal depth, cur, is_map, key, kmarks, vmarks
            depth += 1
            if depth > MAX_DEPTH:
                doc.fatal = True
                self.problem(start, yaml_messages.depth_message(MAX_DEPTH))
                raise _Stop
            if check_props and (anchor is not None or tag is not None):
                self._props(anchor, tag, start, False)
            new: Any = {} if mapping else []
            if is_map:
                if key is _AWAIT_KEY:
                    self.problem(start, "a key must be text, not a list or mapping (a '?' or a "
                                 "key in brackets makes one)")
                    key = _KEY_NODE
                elif key is not _DISCARD:
                    cur[key] = new
                    vmarks[key] = start
            elif cur is not None:
                cur.append(new)
                vmarks.append(start)
            else:
                doc.value = new
                doc.start = start
            stack.append((cur, is_map, key, kmarks, vmarks))
            cur = new
            if mapping:
                is_map, key, kmarks, vmarks = True, _AWAIT_KEY, {}, {}
            else:
                is_map, key, kmarks, vmarks = False, _AWAIT_KEY, None, []
            marks[id(new)] = (start, kmarks, vmarks)
            return True

        def mapping_start(anchor: str | None, tag: str | None, implicit: Any, start: Any,
                          end: Any, flow_style: Any) -> bool:
            return opened(anchor, tag, start, True)

        def sequence_start(anchor: str | None, tag: str | None, implicit: Any, start: Any,
                           end: Any, flow_style: Any) -> bool:
            return opened(anchor, tag, start, False)

        def ended(start: Any, end: Any) -> bool:
            nonlocal depth, cur, is_map, key, kmarks, vmarks, items
            depth -= 1
            cur, is_map, key, kmarks, vmarks = stack.pop()
            if depth == 2 and not is_map and progress is not None:  # a list's item
                items += 1
                progress(items, start.index)
            if is_map:
                key = _DISCARD if key is _KEY_NODE else _AWAIT_KEY
            return True

        def document_start(start: Any, end: Any, explicit: Any, version: Any,
                           tags: Any) -> bool:
            nonlocal documents
            documents += 1
            doc.found = True
            if documents > 1:
                self.problem(start, "a bank file holds one YAML document; this '---' starts a "
                             "second one (split it into another file)")
                raise _Stop
            return True

        return yamlio.Handlers(scalar, mapping_start, sequence_start, ended, alias,
                               document_start)

    def _path(self, stack: list[tuple[Any, bool, Any, Any, Any]],
              last: str | int) -> tuple[str | int, ...]:
        """The path (keys and indices) from the root to the value being read."""
        path: list[str | int] = []
        for container, is_map, key, _, _ in stack[1:]:
            path.append(key if is_map else len(container) - 1)
        path.append(last)
        return tuple(path)

    def _props(self, anchor: str | None, tag: str | None, start: yamlio.ParserMark,
               scalar: bool) -> None:
        """Report an anchor (``&name``) or an explicit tag (``!tag``) on a node."""
        if tag is not None:
            self.problem(start, yaml_messages.tag_message(tag, self.lines, start, scalar))
        if anchor is not None:
            self.problem(start, yaml_messages.anchor_message(anchor, self.lines, start, scalar))

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
