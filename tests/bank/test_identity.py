"""A question's content hash is SHA-256 of canonical JSON: the same bytes ``json.dumps`` writes,
whatever the text holds (quotes, backslashes, controls, line separators, non-ASCII)."""

from __future__ import annotations

import hashlib
import json

import pytest

from quiz.bank.identity import content_hash
from quiz.bank.model import Question


def _reference(question: Question) -> str:
    payload = {"stem": question.stem, "options": question.options,
               "answer": sorted(question.answer_keys)}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("text", [
    "How much memory?", 'a "quoted" word', "a \\ backslash", "two\nlines", "a\ttab",
    "\x00\x1b[31m\x7f", "\u2028\u2029\x85", "é 漢字 😀", "\u00a0non-breaking", "",
])
@pytest.mark.parametrize("answer", ["B", ["A", "C"], ["C", "A"], []])
def test_the_hash_is_that_of_json_dumps(text: str, answer: str | list[str]) -> None:
    question = Question.model_construct(stem=f"Stem {text}", options={
        "A": text or "x", "B": f"{text}!", "C": "plain"}, answer=answer)
    assert content_hash(question) == _reference(question)


def test_the_hash_of_a_known_question_is_stable() -> None:
    question = Question.model_construct(stem="What is stored?",
                                        options={"A": "Alpha", "B": "Bravo"}, answer="B")
    expected = hashlib.sha256(b'{"answer":["B"],"options":{"A":"Alpha","B":"Bravo"},'
                              b'"stem":"What is stored?"}').hexdigest()[:16]
    assert content_hash(question) == expected
