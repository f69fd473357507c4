"""quiz.yamlio: the one YAML module: parser choice, safe loading, block-style dumping."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import yaml
import yaml.events

from quiz import yamlio
from quiz.bank.load import load_bank_text


def test_parser_choice() -> None:
    assert type(yamlio.parser("a: 1", pure_python=True)).__module__ == "quiz.yamlio"
    default = yamlio.parser("a: 1")
    if yamlio.has_libyaml():
        assert type(default).__name__ == "CParser"
    else:  # pragma: no cover - PyYAML built without libyaml
        assert type(default).__module__ == "quiz.yamlio"


def test_both_parsers_give_the_same_events() -> None:
    text = "a: [1, 'two', {b: c}]\nd: |\n  x\n"

    def events(pure: bool) -> list[tuple[str, object]]:
        source = yamlio.parser(text, pure_python=pure)
        return [(type(e).__name__, getattr(e, "value", None))
                for e in iter(source.get_event, None)]

    assert events(False) == events(True)
    assert ("ScalarEvent", "two") in events(True)


def test_safe_load_types_values_and_refuses_python_tags() -> None:
    for pure in (False, True):
        assert yamlio.safe_load("a: 8\nb: No\n", pure_python=pure) == {"a": 8, "b": False}
        with pytest.raises(yamlio.YAMLError):
            yamlio.safe_load("!!python/object/apply:os.system ['true']", pure_python=pure)


def test_dump_keeps_order_unicode_and_block_style() -> None:
    data = {"zeta": "café — ok", "alpha": "line one\nline two\n", "list": ["No", "8", "~"],
            "n": 3}
    text = yamlio.dump(data)
    assert text == (
        "zeta: café — ok\n"
        "alpha: |\n"
        "  line one\n"
        "  line two\n"
        "list:\n"
        "- 'No'\n"
        "- '8'\n"
        "- '~'\n"
        "n: 3\n"
    )
    assert yaml.safe_load(text) == data


def test_dump_round_trips_through_the_bank_loader() -> None:
    question = {
        "id": "q1", "topic": "memory", "question": "What does *args do?\nExplain: briefly.\n",
        "options": {"A": "No", "B": "yes", "C": "1:30", "D": "@property # and more"},
        "answer": "D", "short_explanation": "Because.",
        "full_explanation": "Line one\n\n  indented line\n",
        "distractor_review": {"A": "x", "B": "y", "C": "z"},
    }
    text = yamlio.dump({"bank": {"id": "b", "title": "T"}, "questions": [question]})
    assert "question: |\n" in text
    for pure in (False, True):
        report = load_bank_text(text, pure_python=pure)
        assert report.diagnostics == []
        loaded = report.library.questions[0]
        assert loaded.stem == question["question"]
        assert loaded.options == question["options"]
        assert loaded.full_explanation == question["full_explanation"]


# --- feed(): the handlers are called with each event's fields, and nothing else changes -----

FEED_TEXT = ("--- !m &r\nk: [*r, 'q', \"d\\te\", !!str 3, {x: y}]\nb: |\n  t\nf: >-\n  u\n  v\n"
             "l:\n- &s p\n- - z\n...\n")


def _recording(calls: list[tuple[object, ...]]) -> yamlio.Handlers:
    def record(kind: str) -> Callable[..., bool]:
        def call(*args: object) -> bool:
            calls.append((kind, *(_position(a) for a in args)))
            return True
        return call
    return yamlio.Handlers(record("scalar"), record("mapping"), record("sequence"),
                           record("end"), record("alias"), record("document"))


def _position(value: object) -> object:
    if hasattr(value, "index") and hasattr(value, "line"):
        return (value.index, value.line, value.column)  # type: ignore[attr-defined]
    return value


def _expected_calls(pure: bool) -> list[tuple[object, ...]]:
    expected: list[tuple[object, ...]] = []
    for e in iter(yamlio.parser(FEED_TEXT, pure_python=pure).get_event, None):
        marks = (_position(e.start_mark), _position(e.end_mark))
        if isinstance(e, yamlio.ScalarEvent):
            expected.append(("scalar", e.anchor, e.tag, e.implicit, e.value, *marks, e.style))
        elif isinstance(e, yamlio.MappingStartEvent | yamlio.SequenceStartEvent):
            kind = "mapping" if isinstance(e, yamlio.MappingStartEvent) else "sequence"
            expected.append((kind, e.anchor, e.tag, e.implicit, *marks, e.flow_style))
        elif isinstance(e, yamlio.MappingEndEvent | yamlio.SequenceEndEvent):
            expected.append(("end", *marks))
        elif isinstance(e, yamlio.AliasEvent):
            expected.append(("alias", e.anchor, *marks))
        elif isinstance(e, yamlio.DocumentStartEvent):
            expected.append(("document", *marks, e.explicit, e.version, e.tags))
    return expected


@pytest.mark.parametrize("pure", [False, True], ids=["libyaml", "pure"])
def test_feed_calls_a_handler_per_event_with_its_fields(pure: bool) -> None:
    calls: list[tuple[object, ...]] = []
    yamlio.feed(FEED_TEXT, _recording(calls), pure_python=pure)
    assert calls == _expected_calls(pure)
    assert ("alias", "r", (14, 1, 4), (16, 1, 6)) in calls
    assert ("scalar", None, None, (False, True), "d\te", (23, 1, 13), (29, 1, 19), '"') in calls
    assert ("mapping", "r", "!m", False, (4, 0, 4), (10, 1, 0), False) in calls


def test_feed_reads_the_event_objects_when_the_swap_does_not_check_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlio, "_swap_works", lambda: False)
    calls: list[tuple[object, ...]] = []
    yamlio.feed(FEED_TEXT, _recording(calls))
    assert calls == _expected_calls(False)


def test_feed_puts_the_event_classes_back_and_holds_the_lock_meanwhile() -> None:
    import yaml._yaml as binding

    seen: list[bool] = []

    def scalar(*args: object) -> bool:
        # Another thread cannot take the lock (dump() takes it: the emitter checks each
        # event's class by the names feed() swaps).
        other = threading.Thread(target=lambda: seen.append(yamlio.EVENTS_LOCK.acquire(False)))
        other.start()
        other.join()
        raise RuntimeError("stop here")

    handlers = _recording([])._replace(scalar=scalar)
    with pytest.raises(RuntimeError, match="stop here"):
        yamlio.feed("a: b\n", handlers)
    assert seen == [False]
    assert binding.ScalarEvent is yaml.events.ScalarEvent
    assert binding.MappingEndEvent is yaml.events.MappingEndEvent
    assert yamlio.EVENTS_LOCK.acquire(False)
    yamlio.EVENTS_LOCK.release()
    assert yamlio.dump({"a": "b"}) == "a: b\n"


def test_last_event_is_the_one_before_the_syntax_error() -> None:
    for pure in (False, True):
        last = yamlio.last_event("a: 'open\nb: c\n", pure_python=pure)
        assert isinstance(last, yamlio.ScalarEvent) and last.value == "a"
    assert yamlio.last_event("a: b\n") is None


def test_feed_inside_a_handler_is_refused() -> None:
    import yaml._yaml as binding

    def scalar(*args: object) -> bool:
        yamlio.feed("x: y\n", _recording([]))
        return True

    with pytest.raises(RuntimeError, match="inside a handler"):
        yamlio.feed("a: b\n", _recording([])._replace(scalar=scalar))
    assert binding.ScalarEvent is yaml.events.ScalarEvent
    calls: list[tuple[object, ...]] = []
    yamlio.feed("a: b\n", _recording(calls))
    assert [c[0] for c in calls] == ["document", "mapping", "scalar", "scalar", "end"]
