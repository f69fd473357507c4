"""Import certificationy question banks (YAML, https://github.com/certificationy)::

    category: Lock
    questions:
      - question: 'How to release a lock?'
        answers:
          - {value: "With $lock->release()", correct: true}
          - {value: "With $lock->free()", correct: false}
        help: https://symfony.com/doc/current/components/lock.html

``category`` is the topic (its words the topic's name, a slug of them the key); each question's
``answers`` are its options in order, those with ``correct: true`` the key (several: multiple
response); ``help`` becomes a reference (each address or line of it). The YAML is read as text
(every value as written: ``Yes`` stays ``Yes``), by the same reader as a bank. A question
without text, with fewer than two or more than eight answers, with no right answer or only
right answers, is skipped with an error at its line.
"""

from __future__ import annotations

from typing import Any

from quiz.bank import yaml_reader
from quiz.bank.formats import Note, Parsed, letters
from quiz.bank.model import OPTION_KEYS
from quiz.bank.problems import mark_position
from quiz.bank.template import slug


def parse(text: str) -> Parsed:
    """Read a certificationy YAML file (see the module docstring) into questions and notes."""
    result = Parsed()
    doc = yaml_reader.build(text.replace("\r\n", "\n").replace("\t", "  "))
    if doc.fatal or not isinstance(doc.value, dict):
        where = doc.problems[0] if doc.problems else None
        result.notes.append(Note(where.line if where else 0, "not a certificationy file: "
                                 + (where.message if where else "it is not a YAML mapping with "
                                    "'category' and 'questions'"), "error", "file"))
        return result
    category = doc.value.get("category")
    questions = doc.value.get("questions")
    if not isinstance(questions, list):
        result.notes.append(Note(0, "not a certificationy file: it has no 'questions:' list",
                                 "error", "file"))
        return result
    topic = None
    if isinstance(category, str) and category.strip():
        topic = slug(category)
        result.topics[topic] = " ".join(category.split())
    marks = doc.marks.get(id(questions))
    items = marks[2] if marks and isinstance(marks[2], list) else []
    for index, item in enumerate(questions):
        line = mark_position(items[index])[0] if index < len(items) else 0
        data = _question(item, line, result)
        if data is not None:
            if topic:
                data["topic"] = topic
            result.questions.append(data)
    return result


def _question(item: Any, line: int, result: Parsed) -> dict[str, Any] | None:
    def skip(message: str) -> None:
        result.notes.append(Note(line, message + "; skipped", "error"))

    if not isinstance(item, dict):
        skip("this entry is not a question (a mapping with 'question' and 'answers')")
        return None
    stem = item.get("question")
    if not isinstance(stem, str) or not stem.strip():
        skip("this question has no 'question' text")
        return None
    answers = item.get("answers")
    if not isinstance(answers, list) or len(answers) < 2:
        skip("a question needs an 'answers' list of at least 2")
        return None
    if len(answers) > len(OPTION_KEYS):
        skip(f"{len(answers)} answers: a bank question has at most {len(OPTION_KEYS)} options")
        return None
    options: dict[str, str] = {}
    right: list[str] = []
    for key, answer in zip(letters(len(answers)), answers, strict=True):
        value = answer.get("value") if isinstance(answer, dict) else None
        if not isinstance(value, str) or not value.strip():
            skip(f"answer {key} has no 'value' text")
            return None
        options[key] = value
        correct = answer.get("correct")
        if isinstance(correct, str) and correct.strip().lower() in ("true", "yes", "1"):
            right.append(key)
    if not right:
        skip("no answer has 'correct: true'")
        return None
    if len(right) == len(options):
        skip("every answer is right: a question needs a distractor")
        return None
    data: dict[str, Any] = {"line": line, "question": " ".join(stem.split()),
                            "options": options, "answer": right[0] if len(right) == 1 else right}
    help_text = item.get("help")
    if isinstance(help_text, str) and help_text.strip():
        data["references"] = [r.strip() for r in help_text.strip().split("\n") if r.strip()]
    return data
