"""``quiz show`` prints bank text as data: control characters never reach the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.cli import main


def test_quiz_show_shows_control_characters_as_pictures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = tmp_path / "b.yaml"
    bank.write_text(
        "bank: {id: b, title: B, topics: {memory: Memory}}\n"
        "questions:\n"
        "  - id: q1\n    topic: memory\n    question: \"Which one is red?\"\n"
        "    options: {A: \"plain \\e[31mred\\a\", B: \"blue\"}\n"
        "    answer: A\n    short_explanation: Short.\n    full_explanation: Full.\n"
        "    distractor_review: {B: \"Blue is not red.\"}\n", encoding="utf-8")
    assert main(["show", str(bank), "q1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "plain ␛[31mred␇" in out and "Which one is red?" in out
