"""Import Markdown practice exams: the layout of public certification study repositories.

::

    ## Cloud concepts

    1. Which service stores objects?
        - A. Amazon EBS
        - B. Amazon S3
        - C. Amazon EC2

        <details markdown=1><summary markdown='span'>Answer</summary>
          Correct answer: B
          Explanation: S3 is object storage.
        </details>

A question is a numbered list item (its text may go on over the following lines), its options
list items lettered ``A.`` or ``A)`` (``-`` or ``*``), and its answer a ``Correct answer: B``
(or ``Answer: A, C`` for multiple response) line, usually inside a ``<details>`` block after the
options; an ``Explanation:`` there (with the lines after it, up to ``</details>``) becomes the
full explanation. A heading (``## Cloud concepts``) is the topic of the questions after it.
Markdown emphasis and links become plain text (a bank shows text literally); an image is named
in a warning. A question without an answer line, with options out of order or fewer than two,
or whose every option is right is skipped with an error at its line.
"""

from __future__ import annotations

import re
from typing import Any

from quiz.bank.formats import Note, Parsed
from quiz.bank.model import OPTION_KEYS
from quiz.bank.template import slug

_NUMBERED = re.compile(r"^ {0,3}(\d+)[.)]\s+(.*)$")
_OPTION = re.compile(r"^\s*[-*+]\s+(?:\[[ xX]\]\s+)?([A-Ha-h])[.)]\s*(.*?)\s*$")
_ANSWER = re.compile(r"^\s*(?:\*\*)?(?:correct\s+answers?|answers?)(?:\*\*)?\s*:\s*(?:\*\*)?"
                     r"\s*([A-H](?:\s*(?:,|and|&|\s)\s*[A-H])*)\b", re.IGNORECASE)
_EXPLANATION = re.compile(r"^\s*(?:\*\*)?explanation(?:\*\*)?\s*:\s*(.*)$", re.IGNORECASE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)[^)]*\)")


def _plain(text: str) -> str:
    """Markdown inline text as plain text: links as "text (address)", emphasis and code marks
    removed."""
    text = re.sub(r"\[([^\]]+)\]\(([^)\s]+)[^)]*\)", r"\1 (\2)", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return re.sub(r"`([^`]+)`", r"\1", text)


class _Question:
    def __init__(self, line: int, stem: str) -> None:
        self.line = line
        self.stem = [stem]
        self.options: dict[str, str] = {}
        self.answer: list[str] | None = None
        self.explanation: list[str] | None = None
        self.broken: str | None = None
        self.images: list[str] = []


def parse(text: str) -> Parsed:
    """Read a Markdown practice exam (see the module docstring) into questions and notes."""
    result = Parsed()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    topic: str | None = None
    current: _Question | None = None
    in_details = False

    def finish() -> None:
        if current is not None:
            _finish(current, topic, result)

    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        for alt, src in _IMAGE.findall(line):
            if current is not None:
                current.images.append(f"{alt or 'an image'} ({src})")
        line = _IMAGE.sub("", line)
        lowered = line.strip().lower()
        if lowered.startswith("<details"):
            in_details = True
        if current is not None and in_details:
            answer = _ANSWER.match(re.sub(r"<[^>]+>", "", line))
            explained = _EXPLANATION.match(line)
            if answer and current.answer is None:
                current.answer = re.findall(r"[A-H]", answer.group(1).upper())
            elif explained:
                current.explanation = [explained.group(1)]
            elif current.explanation is not None and "</details>" not in lowered:
                current.explanation.append(line.strip())
            if "</details>" in lowered:
                in_details = False
            continue
        if "</details>" in lowered:
            in_details = False
            continue
        heading = _HEADING.match(line)
        numbered = _NUMBERED.match(line)
        option = _OPTION.match(line)
        if heading:
            finish()
            current = None
            topic = _plain(heading.group(1)).strip() or topic
        elif numbered:
            finish()
            current = _Question(number, numbered.group(2).strip())
        elif current is not None and option:
            letter = option.group(1).upper()
            expected = OPTION_KEYS[len(current.options)] if len(current.options) < len(
                OPTION_KEYS) else None
            if letter != expected and current.broken is None:
                current.broken = (f"option {letter} is out of order (expected "
                                  f"{expected or 'at most ' + str(len(OPTION_KEYS))})")
            current.options[letter] = option.group(2)
        elif current is not None and line.strip():
            answer = _ANSWER.match(line)
            explained = _EXPLANATION.match(line)
            if answer and current.options and current.answer is None:
                current.answer = re.findall(r"[A-H]", answer.group(1).upper())
            elif not current.options:
                current.stem.append(line.strip())
            elif current.explanation is not None:
                current.explanation.append(line.strip())
            elif explained:
                current.explanation = [explained.group(1)]
            else:
                current.options[list(current.options)[-1]] += " " + line.strip()
    finish()
    return result


def _finish(question: _Question, topic: str | None, result: Parsed) -> None:
    def skip(message: str) -> None:
        result.notes.append(Note(question.line, message + "; skipped", "error"))

    if question.broken:
        return skip(question.broken)
    if len(question.options) < 2:
        return skip(f"this numbered item has {len(question.options)} option"
                    f"{'s' * (len(question.options) != 1)} ('- A. ...'); a question needs 2")
    if not question.answer:
        return skip("no 'Correct answer: X' line for this question")
    keys = list(dict.fromkeys(question.answer))
    wrong = [k for k in keys if k not in question.options]
    if wrong:
        return skip(f"the answer {', '.join(wrong)} is not one of the options "
                    f"({', '.join(question.options)})")
    if len(keys) == len(question.options):
        return skip("every option is right: a question needs a distractor")
    data: dict[str, Any] = {"line": question.line}
    if topic:
        key = slug(topic)
        data["topic"] = key
        result.topics.setdefault(key, topic)
    data["question"] = _plain(" ".join(question.stem))
    data["options"] = {k: _plain(v) for k, v in question.options.items()}
    data["answer"] = keys[0] if len(keys) == 1 else keys
    explanation = "\n".join(question.explanation or []).strip()
    if explanation:
        data["full_explanation"] = _plain(re.sub(r"\n{3,}", "\n\n", explanation))
    if question.images:
        result.notes.append(Note(question.line, "this question shows "
                                 + ", ".join(question.images) + ", which a bank cannot carry: "
                                 "not imported"))
    result.questions.append(data)
    return None
