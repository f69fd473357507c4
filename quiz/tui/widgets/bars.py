"""Text bars and sparklines for scores: plain characters, so they read in any terminal and in
SVG snapshots alike."""

from __future__ import annotations

from quiz.bank.terminal import cell_width
from quiz.study.score import Score
from quiz.study.stats import clock_text
from quiz.tui.text_layout import cut_cells

BAR_WIDTH = 20
"""Cells of a full bar."""

__all__ = ["bar", "clock_text", "score_line", "sparkline"]

SPARK = "▁▂▃▄▅▆▇█"
"""Eighth-block levels of a sparkline, lowest first."""


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A bar of ``width`` cells filled to ``fraction`` (0–1, clamped), rounded to the nearest
    cell: ``█`` filled, ``░`` empty."""
    fraction = min(1.0, max(0.0, fraction))
    filled = int(round(fraction * width))
    return "█" * filled + "░" * (width - filled)


def fit_label(label: str, width: int) -> str:
    """``label`` in exactly ``width`` terminal cells: padded with spaces, or, when longer, cut
    at a whole character and ended with ``…`` (wide characters count two cells)."""
    cells = cell_width(label)
    if cells <= width:
        return label + " " * (width - cells)
    head, _ = cut_cells(label, width - 1)
    head = head.rstrip(" ")
    return head + "…" + " " * max(width - 1 - cell_width(head), 0)


def score_line(label: str, score: Score, label_width: int) -> str:
    """``label  ████░░░  3/4  75%``: right over total questions (unanswered count as wrong);
    the label fitted to ``label_width`` cells (:func:`fit_label`)."""
    fraction = score.correct / score.total if score.total else 0.0
    return (f"{fit_label(label, label_width)}  {bar(fraction)}  "
            f"{score.correct}/{score.total}  {fraction:>4.0%}")


def sparkline(values: list[float]) -> str:
    """One character per value in 0–1 (clamped): ``▁`` for 0 up to ``█`` for 1."""
    out = []
    for v in values:
        v = min(1.0, max(0.0, v))
        out.append(SPARK[min(len(SPARK) - 1, int(v * (len(SPARK) - 1) + 0.5))])
    return "".join(out)
