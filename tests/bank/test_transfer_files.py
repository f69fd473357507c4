"""Issue 19 §3: import, ``quiz new`` and export never leave a half-written or broken file, never
write over what is not theirs, and never hang or crash on odd input."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from quiz.bank.files import PART_SUFFIX, remove_stale
from quiz.bank.formats import csv_format, gift, moodle_xml
from quiz.bank.formats.transfer import _Ids, import_files
from quiz.bank.load import load_library
from quiz.cli import main

AIKEN = "Which memory holds the weights?\nA. HBM\nB. Disk\nANSWER: A\n"


def _bank(tmp_path: Path) -> Path:
    (tmp_path / "q.aiken").write_text(AIKEN, encoding="utf-8")
    bank = tmp_path / "bank.yaml"
    assert main(["import", str(tmp_path / "q.aiken"), "--to", str(bank)]) == 0
    return bank


def _limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``quiz ARGS`` with a file-size limit of ``limit`` bytes (a disk that fills)."""
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, "
            f"({limit}, {limit})); from quiz.cli import main; sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120)


def test_full_disk_leaves_the_bank_byte_for_byte(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bank = _bank(tmp_path)
    before = bank.read_bytes()
    (tmp_path / "more.aiken").write_text(AIKEN * 40, encoding="utf-8")
    done = _limited(len(before) + 200, "import", str(tmp_path / "more.aiken"), "--to",
                    str(bank))
    assert done.returncode == 2 and "the bank is unchanged" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert bank.read_bytes() == before
    done = _limited(len(before) + 200, "new", str(bank))
    assert done.returncode == 1 and "the file is unchanged" in done.stderr, done.stderr
    assert bank.read_bytes() == before
    done = _limited(100, "new", str(tmp_path / "fresh.yaml"))
    assert done.returncode == 1 and not (tmp_path / "fresh.yaml").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(PART_SUFFIX)]


def test_import_writes_only_what_the_loader_accepts(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    bank = _bank(tmp_path)
    before = bank.read_bytes()
    long_word = "x" * 25_000
    (tmp_path / "odd.aiken").write_text(
        "Line one\u2028line two: which is it?\nA. first\u2029para\nB. second\nANSWER: A\n\n"
        f"Which is too long to write?\nA. {long_word}\nB. short\nANSWER: B\n", encoding="utf-8")
    assert main(["import", str(tmp_path / "odd.aiken"), "--to", str(bank)]) == 1
    out = capsys.readouterr().out
    assert "odd.aiken:1: warning: a line or paragraph separator" in out
    assert "odd.aiken:6: error: this question would not load in a bank: " in out
    assert "imported 1 question (appended to the bank), skipped 1 question" in out
    after = bank.read_bytes()
    assert after.startswith(before) and "\u2028".encode() not in after
    report = load_library([bank])
    assert report.library is not None and report.library.questions[-1].stem == (
        "Line one\nline two: which is it?")


def test_a_huge_csv_field_loses_no_row() -> None:
    rows = ["question,A,B,answer", f'"{"word " * 30_000}",a,b,A']
    rows += [f"Question {n}?,a,b,B" for n in range(50)]
    parsed = csv_format.parse("\n".join(rows) + "\n")
    assert len(parsed.questions) == 51 and parsed.notes == []


@pytest.mark.parametrize("comment", [
    '// quiz: {"id": ["a"]}', '// quiz: {"topic": 7}', '// quiz-bank: {"topics": "abc"}',
    '// quiz: ["not", "an", "object"]'])
def test_metadata_comments_of_the_wrong_type_are_warnings(tmp_path: Path, comment: str,
                                                          capsys: pytest.CaptureFixture[str],
                                                          ) -> None:
    (tmp_path / "m.gift").write_text(f"{comment}\n::q::Which holds the weights?{{=HBM ~Disk}}\n",
                                     encoding="utf-8")
    assert main(["import", str(tmp_path / "m.gift"), "--to", str(tmp_path / "b.yaml")]) == 0
    out = capsys.readouterr().out
    assert "m.gift:1: warning: " in out and "ignored" in out
    xml = ("<quiz><!-- quiz-bank: {\"id\": 3, \"title\": \"T\"} --><question type=\"multichoice\">"
           "<!-- quiz: {\"tags\": [1]} --><questiontext><text>Q?</text></questiontext>"
           "<answer fraction=\"100\"><text>a</text></answer><answer fraction=\"0\"><text>b"
           "</text></answer></question></quiz>")
    parsed = moodle_xml.parse(xml)
    assert [n.message for n in parsed.notes] == [
        "in the 'quiz-bank:' comment, 'id' should be text, not a number; ignored",
        "in the 'quiz:' comment, 'tags' should be a list of text, not a list; ignored"]
    assert len(parsed.questions) == 1


def test_fresh_ids_take_linear_time() -> None:
    class Counting(set[str]):
        checks = 0

        def __contains__(self, item: object) -> bool:
            Counting.checks += 1
            return super().__contains__(item)

    ids = _Ids(Counting())
    made = [ids.fresh("bank-imported", numbered=True) for _ in range(8000)]
    assert made[0] == "bank-imported-001" and made[-1] == "bank-imported-8000"
    assert Counting.checks == 8000  # one look per id, not one per id already given


def test_moodle_xml_export_of_a_control_character_is_valid_xml(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = _bank(tmp_path)
    text = bank.read_text(encoding="utf-8")
    bank.write_text(text.replace("A: HBM", 'A: "HBM\\a"'), encoding="utf-8")
    out = tmp_path / "o.xml"
    assert main(["export", str(bank), "--to", str(out), "--allow-unfinished"]) == 0
    assert "U+0007 cannot be written in XML" in capsys.readouterr().err
    root = ET.fromstring(out.read_bytes())
    assert "HBM\u2407" in [a.findtext("text") for a in root.iter("answer")]


def test_export_never_replaces_what_is_not_a_plain_writable_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = _bank(tmp_path)
    args = [str(bank), "--allow-unfinished", "--force"]
    link = tmp_path / "link.gift"
    link.symlink_to(tmp_path / "elsewhere.gift")  # dangling
    assert main(["export", str(bank), "--allow-unfinished", "--to", str(link)]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere.gift").exists() and link.is_symlink()
    fifo = tmp_path / "pipe.gift"
    os.mkfifo(fifo)
    assert main(["export", *args, "--to", str(fifo)]) == 2
    assert "is a named pipe, not a file" in capsys.readouterr().err
    assert main(["export", *args, "--to", "/dev/null", "--format", "gift"]) == 2
    assert "is a character device" in capsys.readouterr().err
    locked = tmp_path / "locked.gift"
    locked.write_text("keep", encoding="utf-8")
    locked.chmod(0o444)
    assert main(["export", *args, "--to", str(locked)]) == 2
    assert "is read-only" in capsys.readouterr().err
    assert locked.read_text(encoding="utf-8") == "keep" and locked.stat().st_mode & 0o777 == 0o444
    before = bank.read_bytes()
    assert main(["export", *args, "--to", str(bank), "--format", "csv"]) == 2
    assert "is the bank" in capsys.readouterr().err and bank.read_bytes() == before
    assert main(["export", *args, "--to", str(tmp_path / "deck.apkg"), "--format", "gift"]) == 2
    assert "has the extension of Anki deck files but --format is gift" in (
        capsys.readouterr().err)


def test_export_to_standard_output(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    capfd.readouterr()
    assert main(["export", str(bank), "--to", "-", "--format", "gift",
                 "--allow-unfinished"]) == 0
    out, err = capfd.readouterr()
    assert out.startswith("// quiz-bank: ") and "exported 1 question" in err
    assert not (tmp_path / "-").exists()


def test_a_killed_exports_temporary_files_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    target = tmp_path / "out.gift"
    stale = tmp_path / f".out.gift.{dead}.ab12cd34{PART_SUFFIX}"
    live = tmp_path / f".out.gift.{os.getppid()}.ab12cd34{PART_SUFFIX}"
    stale.write_text("half", encoding="utf-8")
    live.write_text("being written", encoding="utf-8")
    assert remove_stale(target) == [stale]
    assert not stale.exists() and live.exists()


def test_import_sources_once_real_banks_only_and_no_hang_on_a_pipe(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q.aiken").write_text(AIKEN, encoding="utf-8")
    bank = tmp_path / "bank.yaml"
    assert main(["import", str(tmp_path / "q.aiken"), str(tmp_path / "q.aiken"),
                 str(tmp_path / "." / "q.aiken"), "--to", str(bank)]) == 0
    out = capsys.readouterr().out
    assert out.count("given again: imported once") == 2 and "imported 1 question" in out
    compose = tmp_path / "compose.yaml"
    compose.write_text("services:\n  web: {image: nginx}\nquestions:\n  - id: x\n",
                       encoding="utf-8")
    assert main(["import", str(tmp_path / "q.aiken"), "--to", str(compose)]) == 2
    assert "is not a question bank" in capsys.readouterr().err
    fifo = tmp_path / "pipe.aiken"
    os.mkfifo(fifo)
    report = import_files([fifo], tmp_path / "other.yaml")
    assert [n.message for _, n in report.notes] == [
        "this is a named pipe, not a file; skipped (save the questions to a file first)"]


def test_gift_meta_with_a_bad_footprint_is_skipped_not_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.gift").write_text(
        '// quiz: {"infographic": {"footprint": {"nosuchkey": 1}}}\n'
        "::q::Which holds the weights?{=HBM ~Disk}\n\n::r::Which is slower?{=Disk ~HBM}\n",
        encoding="utf-8")
    assert len(gift.parse((tmp_path / "m.gift").read_text(encoding="utf-8")).questions) == 2
    bank = tmp_path / "b.yaml"
    assert main(["import", str(tmp_path / "m.gift"), "--to", str(bank)]) == 1
    out = capsys.readouterr().out
    assert "m.gift:2: error: this question would not load in a bank: " in out
    assert [q.id for q in load_library([bank]).library.questions] == ["r"]  # type: ignore[union-attr]


def test_an_alias_as_a_value_in_a_file_with_comments_is_an_error_not_a_crash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by fuzzing certificationy files: an alias (``*name``) where a value goes, in a file
    with a comment, made the YAML reader ask the alias for a scalar's style."""
    (tmp_path / "forms.yml").write_text(
        "- {value: an option # a comment\n  , correct: false}\n- {value: *widget, correct: x}\n",
        encoding="utf-8")
    bank = tmp_path / "forms.yaml"
    bank.write_bytes((tmp_path / "forms.yml").read_bytes())
    assert main(["validate", str(bank)]) == 1
    out = capsys.readouterr().out
    assert "internal error" not in out and "alias" in out
    assert main(["import", str(tmp_path / "forms.yml"), "--to", str(tmp_path / "b.yaml"),
                 "--format", "certificationy"]) == 1
    assert "not a certificationy file" in capsys.readouterr().out


def test_an_import_that_writes_nothing_leaves_nothing(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.aiken").write_text("A stem\nA. only one\nANSWER: A\n", encoding="utf-8")
    assert main(["import", str(tmp_path / "bad.aiken"), "--to", str(tmp_path / "b.yaml")]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.aiken"]
    assert main(["import", str(tmp_path / "bad.aiken"), str(tmp_path / "bad.aiken"),
                 "--to", str(tmp_path / "b.yaml")]) == 1
    assert "nothing imported (1 question skipped)" in capsys.readouterr().out
