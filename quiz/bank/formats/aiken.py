"""Aiken: import (https://docs.moodle.org/en/Aiken_format).

::

    Which memory holds the optimizer states during training?
    A. The GPU's HBM
    B) The CPU's L1 cache
    C. The NVMe drive
    ANSWER: A

A question is its stem (one line, or several, which are joined), options lettered in order with
``A.`` or ``A)`` (and a space, which Moodle does not require: ``A)Answer`` is read when A is the
letter expected next), and an ``ANSWER:`` line; blank lines between questions are optional.
``ANSWER: A, C`` (not in the original format) gives a multiple-response question. Each fault
skips its question with an error at its line: no ``ANSWER:`` line before the next question or the
end of the file, an answer letter that is not one of the options, options out of order, fewer
than two options, an ``ANSWER:`` line without a question. Aiken has no explanations: they become
``TODO`` placeholders.
"""

from __future__ import annotations

import re
from typing import Any

from quiz.bank.formats import Note, Parsed
from quiz.bank.model import OPTION_KEYS

_OPTION = re.compile(r"^([A-Za-z])[.)](\s*)(.*\S)\s*$")
_ANSWER = re.compile(r"^ANSWER\s*:\s*(.*?)\s*$", re.IGNORECASE)


def parse(text: str) -> Parsed:
    """Read an Aiken file: its questions as bank data, and an error note for each question
    skipped (see the module docstring)."""
    result = Parsed()
    stem: list[str] = []
    options: dict[str, str] = {}
    start = 0
    broken = False

    def reset() -> None:
        nonlocal stem, options, start, broken
        stem, options, start, broken = [], {}, 0, False

    def unfinished(at: int) -> None:
        if (stem or options) and not broken:
            result.notes.append(Note(start, "this question has no 'ANSWER:' line (write "
                                     f"'ANSWER: {next(iter(options), 'A')}' after its options, "
                                     f"before line {at})" if at else "this question has no "
                                     "'ANSWER:' line before the end of the file", "error"))

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        answer = _ANSWER.match(line)
        option = _OPTION.match(line)
        if option and not option.group(2):
            # "A)Answer" with no space (Moodle accepts it): only as the next letter expected,
            # so "A.I. is ..." in a stem stays stem text.
            following = OPTION_KEYS[len(options)] if len(options) < len(OPTION_KEYS) else ""
            if option.group(1).upper() != following:
                option = None
        if answer:
            if not stem:
                result.notes.append(Note(number, "an 'ANSWER:' line without a question before "
                                         "it", "error"))
                reset()
                continue
            if not broken:
                _finish(stem, options, answer.group(1), start, number, result)
            reset()
        elif option and stem:
            letter, body = option.group(1).upper(), option.group(3)
            expected = OPTION_KEYS[len(options)] if len(options) < len(OPTION_KEYS) else None
            if letter != expected and not broken:
                what = (f"expected {expected}" if expected else
                        f"at most {len(OPTION_KEYS)} options")
                result.notes.append(Note(number, f"option {letter} is out of order ({what}); "
                                         "this question is skipped", "error"))
                broken = True
            options[letter] = body
        else:
            if options:  # a new question began without an ANSWER: line for the last one
                unfinished(number)
                reset()
            if not stem:
                start = number
            stem.append(line)
    unfinished(0)
    return result


def _finish(stem: list[str], options: dict[str, str], written: str, start: int, line: int,
            result: Parsed) -> None:
    if len(options) < 2:
        result.notes.append(Note(start, f"this question has {len(options)} option"
                                 f"{'s' * (len(options) != 1)}; it needs at least 2 "
                                 "('A. ...', 'B. ...')", "error"))
        return
    keys = [k.strip().upper() for k in re.split(r"[,\s]+", written) if k.strip()]
    if not keys:
        result.notes.append(Note(line, "'ANSWER:' gives no letter", "error"))
        return
    wrong = [k for k in keys if k not in options]
    if wrong:
        result.notes.append(Note(line, f"ANSWER {', '.join(wrong)} is not one of the options "
                                 f"({', '.join(options)})", "error"))
        return
    if len(set(keys)) >= len(options):
        result.notes.append(Note(line, "every option is an answer: a question needs a "
                                 "distractor", "error"))
        return
    question: dict[str, Any] = {
        "line": start,
        "question": " ".join(stem),
        "options": dict(options),
        "answer": keys[0] if len(keys) == 1 else list(dict.fromkeys(keys)),
    }
    result.questions.append(question)
