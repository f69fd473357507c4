"""A data folder (``--data-dir`` or ``QUIZ_DATA_DIR``) that is a file: a clear message and
exit 1, the file untouched (it said "cannot be written now (File exists); it is read as it
is", with nothing to read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.cli import main


@pytest.mark.parametrize("command", [["stats"], ["stats", "--json"]])
def test_a_data_folder_that_is_a_file_is_named(tmp_path: Path, command: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "notes.txt"
    data.write_text("my notes", "utf-8")
    assert main([*command, "--data-dir", str(data)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"quiz: the data folder {data} is a file, not a folder: progress cannot be kept "
        "there; name a folder with --data-dir DIR or QUIZ_DATA_DIR\n")
    assert data.read_text("utf-8") == "my notes"
