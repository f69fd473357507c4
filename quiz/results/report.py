"""The item analysis as plain text for a terminal (``quiz analyze``), and as CSV tables.

Text from results files and banks is data: control characters are shown escaped (``\\x1b``), so
a crafted file cannot move the cursor or change colours.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from quiz.results.analysis import Analysis, ItemStats
from quiz.results.export import spreadsheet_safe as cell
from quiz.wording import plural

BAR_CELLS = 10
"""Width of a facility bar, in cells."""
LEARNERS_SHOWN = 20
"""How many students the text report lists (all of them are in --json and --csv)."""
CSV_TABLES = ("questions", "options", "topics", "learners")
"""What ``quiz analyze --csv --table`` can print."""
_EIGHTHS = " ▏▎▍▌▋▊▉"


def safe(text: str) -> str:
    """``text`` with C0/C1 control characters and DEL escaped (``\\x1b``); the rest as is."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def bar(share: float, cells: int = BAR_CELLS) -> str:
    """``share`` (0–1) as a bar of ``cells`` cells drawn in eighths."""
    eighths = round(max(0.0, min(1.0, share)) * cells * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(cells)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _options(item: ItemStats) -> str:
    return " · ".join(f"{k}{'*' if k in item.key else ''} {share:.0%}"
                      for k, share in item.options.items())


def render(analysis: Analysis, width: int = 80) -> str:
    """The analysis as text ``width`` columns wide (at least 60): a line per question (answers,
    facility with a bar, discrimination, upper-lower index) with its options' shares and flags
    under it, then topics, students and the files that could not be read whole."""
    width = max(60, width)
    lines: list[str] = []
    students = len(analysis.learners)
    lines.append(f"Item analysis: {plural(students, 'student')} in "
                 f"{plural(analysis.files_read, 'file')}, "
                 f"{plural(len(analysis.items), 'question')} (first attempts)")
    lines.append("facility: share right · disc: point-biserial against the rest of the score")
    lines.append("U–L: facility of the top 27% of students minus the bottom 27% · * the key")
    id_width = max(12, width - 44)
    lines.append("")
    lines.append(f"{'question':<{id_width}} {'n':>5}  {'facility':<15} {'disc':>6} {'U–L':>6}")
    for item in analysis.items:
        lines.append(f"{_cut(safe(item.question_id), id_width):<{id_width}} {item.answers:>5}  "
                     f"{item.facility:4.2f} {bar(item.facility)} {_num(item.discrimination):>6} "
                     f"{_num(item.upper_lower):>6}")
        if item.stem:
            lines.append("   " + _cut(safe(item.stem), width - 3))
        lines.append("   " + _cut(safe(_options(item)), width - 3))
        lines.extend("   ! " + _cut(safe(flag), width - 5) for flag in item.flags)
    if analysis.topics:
        lines += ["", f"{'topic':<{id_width}} {'questions':>9} {'answers':>8}  facility"]
        for t in analysis.topics:
            lines.append(f"{_cut(safe(t.topic), id_width):<{id_width}} {t.questions:>9} "
                         f"{t.answers:>8}  {t.facility:4.2f} {bar(t.facility)}")
    if analysis.learners:
        lines += ["", f"{'student':<{id_width}} {'answered':>8} {'right':>6}  score"]
        for s in analysis.learners[:LEARNERS_SHOWN]:
            lines.append(f"{_cut(safe(s.learner), id_width):<{id_width}} {s.answered:>8} "
                         f"{s.right:>6}  {s.score:4.2f} {bar(s.score)}")
        if students > LEARNERS_SHOWN:
            lines.append(f"… and {students - LEARNERS_SHOWN:,} more (--json or --csv --table "
                         "learners lists every student)")
    if analysis.never_answered:
        lines += ["", f"Never answered ({len(analysis.never_answered)}): "
                  + ", ".join(analysis.never_answered)]
    if analysis.messages:
        lines += ["", "Not read whole:"] + ["  " + safe(m) for m in analysis.messages]
    return "\n".join(lines) + "\n"


def to_csv(analysis: Analysis, table: str = "questions") -> str:
    """One of :data:`CSV_TABLES` as CSV: ``questions`` (a row per question), ``options`` (a row
    per question and option), ``topics`` or ``learners``. Shares are fractions 0–1."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\r\n")
    rows: Sequence[Sequence[object]]
    if table == "questions":
        out.writerow(["question_id", "topic", "answers", "right", "facility", "discrimination",
                      "upper_lower", "key", "flags"])
        rows = [[cell(i.question_id), cell(i.topic or ""), i.answers, i.right, f"{i.facility:.4f}",
                 "" if i.discrimination is None else f"{i.discrimination:.4f}",
                 "" if i.upper_lower is None else f"{i.upper_lower:.4f}", " ".join(i.key),
                 "; ".join(i.flags)] for i in analysis.items]
    elif table == "options":
        out.writerow(["question_id", "option", "keyed", "share"])
        rows = [[cell(i.question_id), k, int(k in i.key), f"{share:.4f}"]
                for i in analysis.items for k, share in i.options.items()]
    elif table == "topics":
        out.writerow(["topic", "questions", "answers", "right", "facility"])
        rows = [[cell(t.topic), t.questions, t.answers, t.right, f"{t.facility:.4f}"]
                for t in analysis.topics]
    elif table == "learners":
        out.writerow(["learner", "answered", "right", "score"])
        rows = [[cell(s.learner), s.answered, s.right, f"{s.score:.4f}"] for s in analysis.learners]
    else:
        raise ValueError(f"unknown table {table!r} (tables: {', '.join(CSV_TABLES)})")
    out.writerows(rows)
    return buffer.getvalue()
