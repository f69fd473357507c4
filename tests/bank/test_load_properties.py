"""Property tests: whatever the text, both parsers give located diagnostics, never an internal
error or a traceback (issue 6 §2). 5,000 generated inputs in all (2,500 texts, each read by libyaml
and by the pure-Python parser), derandomized so CI sees the same inputs every run."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quiz.bank.library import LoadReport
from quiz.bank.load import load_bank_text

from .helpers import bank, question

# Pieces that YAML reads as syntax, characters that the loader treats specially, and a few
# escapes: the texts built from them reach every branch of both parsers.
PIECES = [
    "a", "b", "id", "q1", "memory", ":", ": ", "- ", "? ", "|", ">", "|-", ">+", "#", " #", "&x",
    "*x", "!", "!!str ", "%", "@", "`", "[", "]", "{", "}", ",", '"', "'", "''", "\\", "\\e",
    "\\u", "\\uD800", "\\U00110000", "\\x9b", "\t", "\n", "\n", "\n  ", "\n    ", " ", "  ",
    "---\n", "...\n", "%YAML 1.1\n", "%TAG ! !x\n", "<<: ", "=", "~", "\r", "\r\n", "\x00",
    "\x1b", "\x85", "\x9b", "\u00ad", "\u061c", "\u200b", "\u200d", "\u2028", "\u202e", "\ufeff",
    "\ud800", "é", "漢", "e\u0301", "😀",
]


def runs(examples: int) -> settings:
    """Hypothesis settings for ``examples`` texts: the same inputs every run, no example
    database, no deadline (CI machines are slow and shared)."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


BASE = bank(question(), question("q2", options='{A: "x", B: \'y\', C: |-\n        z}',
                                 answer="[A, C]", review="{B: no}",
                                 extra="    infographic:\n      text: |\n        diagram\n"))


def check(text: str | bytes) -> None:
    """Load with both parsers: every diagnostic is located inside the text, none is internal."""
    shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    lines = shown.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
    for pure in (False, True):
        report: LoadReport = load_bank_text(text, "f.yaml", pure_python=pure)
        assert isinstance(report, LoadReport)
        for d in report.diagnostics:
            assert "internal error" not in d.message, (pure, str(d))
            assert 0 <= d.line <= lines + 1 and d.column >= 0, (pure, str(d))
            assert (d.line == 0) == (d.column == 0), (pure, str(d))
        assert (report.library is None) == any(d.severity == "error"
                                               for d in report.diagnostics)


@runs(1_200)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_any_text_of_yaml_pieces(text: str) -> None:
    check(text)


@runs(500)
@given(st.lists(st.tuples(st.integers(0, len(BASE)), st.integers(0, 3),
                          st.sampled_from(PIECES)), min_size=1, max_size=4))
def test_a_bank_with_a_few_edits(edits: list[tuple[int, int, str]]) -> None:
    text = BASE
    for at, cut, piece in edits:
        at = min(at, len(text))
        text = text[:at] + piece + text[at + cut:]
    check(text)


@runs(800)
@given(st.binary(max_size=60))
def test_any_bytes(data: bytes) -> None:
    check(data)
