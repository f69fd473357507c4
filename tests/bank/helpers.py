"""Tiny banks as YAML text, with every field on a known line, and ways to look at a report.

``bank(question())`` puts the first question's fields on these lines (values at these columns):

    6 id (9)  7 topic (12)  8 question (15)  9 options (14)  10 answer (13)
    11 short_explanation (24)  12 full_explanation (23)  13 distractor_review (24)

A second question starts on line 14.
"""

from __future__ import annotations

from quiz.bank.library import LoadReport

HEAD = """\
bank:
  id: demo
  title: Demo bank
  topics: {memory: Memory footprint, precision: Precision}
questions:
"""


def question(qid: str = "q1", *, topic: str = "memory", stem: str = "What is stored?",
             options: str = "{A: Alpha, B: Bravo}", answer: str = "B", short: str = "Because.",
             full: str = "Longer.", review: str = "{A: Not alpha.}", extra: str = "") -> str:
    """One question as YAML list item text (8 lines, plus ``extra`` lines after them)."""
    return (f"  - id: {qid}\n"
            f"    topic: {topic}\n"
            f"    question: {stem}\n"
            f"    options: {options}\n"
            f"    answer: {answer}\n"
            f"    short_explanation: {short}\n"
            f"    full_explanation: {full}\n"
            f"    distractor_review: {review}\n"
            f"{extra}")


def bank(*questions: str, head: str = HEAD) -> str:
    """A bank file's text: the standard header (5 lines) and the questions."""
    return head + "".join(questions or (question(),))


def found(report: LoadReport) -> list[tuple[int, int, str, str]]:
    """Every diagnostic as ``(line, column, severity, message)``."""
    return [(d.line, d.column, d.severity, d.message) for d in report.diagnostics]


def only_error(report: LoadReport) -> tuple[int, int, str]:
    """The single diagnostic of the report, which must be an error: ``(line, column, message)``."""
    assert len(report.diagnostics) == 1, [str(d) for d in report.diagnostics]
    d = report.diagnostics[0]
    assert d.severity == "error"
    assert report.library is None
    return d.line, d.column, d.message
