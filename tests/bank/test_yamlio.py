"""quiz.yamlio: the one YAML module: parser choice, safe loading, block-style dumping."""

from __future__ import annotations

import pytest
import yaml

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
