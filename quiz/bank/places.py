"""Where a bank file's values are written (line and column), for the findings of
:mod:`quiz.bank.lint`: from the loader's own parse of the file (``quiz validate`` shares it) or,
when there is none, from reading the file again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quiz.bank import yaml_reader
from quiz.bank.problems import mark_position
from quiz.bank.text_checks import decode, normalise

Position = tuple[int, int]
"""A place in a file: (line, column), both from 1; (0, 0) when unknown."""


class Places:
    """Line:column of a bank file's values, read again from the file (0, 0 when unknown)."""

    def __init__(self, value: Any, marks: dict[int, yaml_reader.Marks], text: str = "") -> None:
        self._value = value
        self._marks = marks
        self.text = text
        """The file's text (normalised as the loader reads it), for places inside a value."""
        self._last = (0, 1)
        """The last character index :meth:`line_col` was asked for, and its line."""

    def line_col(self, index: int) -> Position:
        """The 1-based line and column of character ``index`` of :attr:`text`. Lines are
        counted from the last place asked for, forward or back (findings come nearly in file
        order): the text is scanned about once however many places are asked for, with no
        table of a 40 MB file's 880,000 line starts."""
        text = self.text
        last_index, last_line = self._last
        if index < last_index:  # back from the last place (a question's fields out of order)
            line = last_line - text.count("\n", index, last_index)
        else:
            line = last_line + text.count("\n", last_index, index)
        self._last = (index, line)
        return line, index - text.rfind("\n", 0, index)

    @classmethod
    def read(cls, path: Path) -> Places:
        try:
            text, problem = decode(path.read_bytes())
        except OSError:
            return cls(None, {})
        if text is None or problem is not None:
            return cls(None, {})
        # Tabs become spaces one for one, so every column stays where it was.
        text = normalise(text)[0].replace("\t", " ")
        doc = yaml_reader.build(text)
        return cls(doc.value if not doc.fatal else None, doc.marks, text)

    def _marks_of(self, container: Any) -> yaml_reader.Marks | None:
        return self._marks.get(id(container)) if container is not None else None

    def _question(self, index: int) -> Any:
        questions = self._value.get("questions") if isinstance(self._value, dict) else None
        if isinstance(questions, list) and index < len(questions):
            return questions[index]
        return None

    def _at(self, container: Any, key: str, *, of_key: bool = False) -> Position | None:
        marks = self._marks_of(container)
        if marks is None:
            return None
        table = marks[1] if of_key else marks[2]
        if not isinstance(table, dict):
            return None
        mark = table.get(key)
        return mark_position(mark) if mark is not None else None

    def question(self, index: int) -> Position:
        """Where question ``index`` starts (its first key)."""
        marks = self._marks_of(self._question(index))
        return mark_position(marks[0]) if marks is not None else (0, 0)

    def question_source(self, index: int) -> tuple[int, int] | None:
        """Where question ``index`` is written in :attr:`text`: from its first key to the next
        question's first key (to the end of the text for the last question), as ``(start,
        end)`` character indices; None when :attr:`text` or the question's marks are unknown.
        Everything written for the question is there (and at most the next one's ``- ``)."""
        marks = self._marks_of(self._question(index))
        if marks is None or not self.text:
            return None
        following = self._marks_of(self._question(index + 1))
        end = following[0].index if following is not None else len(self.text)
        return marks[0].index, end

    def value(self, index: int, key: str, sub: str | None = None) -> Position:
        """Where the value of ``key`` of question ``index`` is written (with ``sub``: the value of
        that key inside it, e.g. an option); the question's start when it is not there."""
        question = self._question(index)
        if sub is None:
            place = self._at(question, key)
        else:
            inner = question.get(key) if isinstance(question, dict) else None
            place = self._at(inner, sub)
        return place or self.question(index)

    def key(self, index: int, key: str) -> Position:
        """Where the key ``key`` of question ``index`` is written (its start if absent)."""
        return self._at(self._question(index), key, of_key=True) or self.question(index)

    def header(self, key: str, sub: str | None = None, *, of_key: bool = False) -> Position:
        """Where ``bank: key`` (or ``bank: key: sub``) is written; 0:0 when unknown."""
        header = self._value.get("bank") if isinstance(self._value, dict) else None
        if sub is None:
            return self._at(header, key, of_key=of_key) or (0, 0)
        inner = header.get(key) if isinstance(header, dict) else None
        return self._at(inner, sub, of_key=of_key) or self._at(header, key) or (0, 0)


def question_ids(value: dict[str, Any],
                  marks: dict[int, yaml_reader.Marks]) -> list[tuple[str, int, int]]:
    """Each question's id with the line:column of its value (ids that are not text are skipped:
    validation reports them)."""
    questions = value.get("questions")
    if not isinstance(questions, list):
        return []
    ids = []
    for question in questions:
        if isinstance(question, dict) and isinstance(question.get("id"), str):
            ids.append((question["id"], *mark_position(marks[id(question)][2]["id"])))
    return ids


def header_places(value: dict[str, Any], marks: dict[int, yaml_reader.Marks],
                  ) -> tuple[tuple[str, int, int] | None, list[tuple[str, str, int, int]]]:
    """The bank id and the topics' display names, each with the line:column of its value (values
    that are not text are skipped: validation reports them)."""
    header = value.get("bank")
    if not isinstance(header, dict):
        return None, []
    values = marks[id(header)][2]
    bank_id = header.get("id")
    found_id = (bank_id, *mark_position(values["id"])) if isinstance(bank_id, str) else None
    topics = header.get("topics")
    names: list[tuple[str, str, int, int]] = []
    if isinstance(topics, dict):
        names_at = marks[id(topics)][2]
        names = [(key, name, *mark_position(names_at[key])) for key, name in topics.items()
                 if isinstance(key, str) and isinstance(name, str)]
    return found_id, names
