"""Import and export (quiz.bank.formats): seed-layout documents, GIFT, Moodle XML, Aiken, CSV and
Anki decks; round trips keep every field a format can carry."""

from __future__ import annotations

import io
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest

from quiz.bank.formats import aiken, anki, complete, csv_format, gift, moodle_xml, seed
from quiz.bank.formats.export import export_banks
from quiz.bank.formats.transfer import TransferError, import_files
from quiz.bank.library import Library
from quiz.bank.load import load_library
from quiz.bank.model import Question
from quiz.cli import main

ROOT = Path(__file__).resolve().parents[2]

# --- Seed-layout documents (written for these tests in the seeds' layout) ------------------------

PROSE = """\
A team serves a 13B model in BF16 and wants to halve its weight memory. Which change does it?
Select an answer to reveal the explanation.
Short Explanation and Infographic
Think of a library that moves from hardcover to paperback: same books, half the shelf.
Full explanation below image
Full Explanation
Weights in BF16 take 2 bytes each. INT8 quantization stores 1 byte per weight plus small scales.
Let's look at the distractors: Option A is incorrect because batching shares the weights, it \
does not shrink them. Option C is incorrect because FP32 doubles the weights instead. Option D \
is wrong: the KV cache is separate from the weights."""

MARKDOWN = """\
# Which two resources does a training run hold that inference does not?

**Select an answer to reveal the explanation.**

## Short Explanation and Infographic

Training is a **workshop** full of tools; inference is the *finished* product.

![diagram](memory.png)

## Full explanation below image

## Full Explanation

Gradients and optimizer states exist only to change the weights.

Let's review why the other options are incorrect:
- Option A is incorrect because the weights are needed in both phases.
- Option B is incorrect because inference reads [input](https://example.org) too.
- Option D is correct because Adam keeps two moments per weight.
"""


def test_seed_prose_review_infers_the_key_and_strips_prefixes() -> None:
    parsed = seed.parse(PROSE)
    assert parsed.notes == []
    [q] = parsed.questions
    assert q["question"].startswith("A team serves a 13B model")
    assert q["answer"] == "B"
    assert list(q["options"]) == ["A", "B", "C", "D"]
    assert q["options"]["C"] == ("TODO: write this option's text (the source calls it C but "
                                 "does not give its text)")
    assert q["distractor_review"] == {
        "A": "Batching shares the weights, it does not shrink them.",
        "C": "FP32 doubles the weights instead.",
        "D": "The KV cache is separate from the weights."}
    assert q["short_explanation"].startswith("Think of a library")
    assert q["full_explanation"] == ("Weights in BF16 take 2 bytes each. INT8 quantization "
                                     "stores 1 byte per weight plus small scales.")


def test_seed_markdown_list_review_and_an_affirmed_option() -> None:
    parsed = seed.parse(MARKDOWN, markdown=True)
    [q] = parsed.questions
    assert q["question"] == "Which two resources does a training run hold that inference does not?"
    assert q["answer"] == "D"  # called correct, so it is the key although C is unrefuted too
    assert q["short_explanation"] == ("Training is a workshop full of tools; inference is the "
                                      "finished product.")
    assert q["full_explanation"] == ("Gradients and optimizer states exist only to change the "
                                     "weights.")
    assert q["distractor_review"]["B"] == ("Inference reads input (https://example.org) too.")
    assert set(q["distractor_review"]) == {"A", "B"}
    filled = complete(q)["distractor_review"]  # C has no review in the source
    assert list(filled) == ["A", "B", "C"] and filled["C"].startswith("TODO: why this option")


def test_seed_ambiguous_key_and_missing_sections_are_said() -> None:
    two_left = PROSE.replace(" Option D is wrong: the KV cache is separate from the weights.", "")
    parsed = seed.parse(two_left)
    assert [(n.line, n.severity) for n in parsed.notes] == [(8, "warning")]
    assert "cannot tell the answer key: the review refutes A, C, which leaves B, D of A–D" in (
        parsed.notes[0].message)
    parsed = seed.parse("Just a stem\nand some text\n")
    assert parsed.questions == [] and parsed.notes[0].severity == "error"
    assert "no 'Short Explanation and Infographic' line and no 'Full Explanation' line" in (
        parsed.notes[0].message)


def test_import_seed_documents_then_validate_flags_the_placeholders(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "one.txt").write_text(PROSE, encoding="utf-8")
    (tmp_path / "two.md").write_text(MARKDOWN, encoding="utf-8")
    bank = tmp_path / "imported.yaml"
    assert main(["import", str(tmp_path / "one.txt"), str(tmp_path / "two.md"), "--to",
                 str(bank)]) == 0
    assert "imported 2 questions (created the bank)" in capsys.readouterr().out
    assert main(["validate", "--select", "Q102", str(bank)]) == 1
    out = capsys.readouterr().out
    assert len(re.findall(r"error: Q102 placeholder-text: option [A-D] holds", out)) == 8
    main(["validate", str(bank)])
    assert "names options by letter" not in capsys.readouterr().out  # not in placeholders
    assert "the review of C holds the placeholder" in out
    library = load_library([bank]).library
    assert library is not None
    assert [q.answer for q in library.questions] == ["B", "D"]
    assert [q.id for q in library.questions] == ["imported-imported-001",
                                                 "imported-imported-002"]


# --- GIFT ----------

GIFT = r"""// A comment line is ignored.
$CATEGORY: $course$/top/Memory Footprint

::Q1 \: escapes::[markdown]What do \{braces\}, \~, \=, \# and \\ look like?{
  =Themselves#right
  ~Escaped\: twice#this option doubles them
  ~Gone#this option drops them
  ####General\nfeedback
}

::Weighted::Which two are training-only? {
  ~%50%Gradients
  ~%50%Optimizer states
  ~%-100%Weights#both phases hold the weights
}

::Uneven::Pick the right ones{~%33.33333%a ~%66.66667%b ~%-50%c}

::TF::[html]Inference <b>stores</b> gradients.{FALSE#Only training keeps them.#Right.}

The KV cache grows with {=context length ~model width} and batch.

::Short::Name the optimizer.{=Adam =AdamW}

::Num::How many bytes?{#16:0}

::Match::Match{=a -> 1 =b -> 2}

::Essay::Discuss.{}

Only a description here.
"""


def test_gift_table_of_escapes_weights_feedback_and_categories() -> None:
    parsed = gift.parse(GIFT)
    by_id = {q.get("id"): q for q in parsed.questions}
    q1 = by_id["q1-escapes"]
    assert q1["topic"] == "memory-footprint"
    assert q1["question"] == r"What do {braces}, ~, =, # and \ look like?"
    assert q1["options"] == {"A": "Themselves", "B": "Escaped: twice", "C": "Gone"}
    assert q1["answer"] == "A"
    assert q1["distractor_review"] == {"B": "this option doubles them",
                                       "C": "this option drops them"}
    assert q1["full_explanation"] == "General\nfeedback"
    weighted = by_id["weighted"]
    assert weighted["answer"] == ["A", "B"]
    assert weighted["distractor_review"] == {"C": "both phases hold the weights"}
    assert by_id["uneven"]["answer"] == ["A", "B"]
    tf = by_id["tf"]
    assert tf["question"] == "Inference stores gradients."
    assert (tf["options"], tf["answer"]) == ({"A": "True", "B": "False"}, "B")
    assert tf["distractor_review"] == {"A": "Only training keeps them."}
    missing = by_id[None]
    assert missing["question"] == "The KV cache grows with _____ and batch."
    assert missing["options"] == {"A": "context length", "B": "model width"}
    notes = [(n.line, n.severity, n.message.split(" (")[0].split(":")[0]) for n in parsed.notes]
    assert notes == [
        (17, "warning", "unequal weights"),
        (23, "error", "a short-answer question"),
        (25, "error", "a numerical question"),
        (27, "error", "a matching question"),
        (29, "error", "an essay question"),
        (31, "error", "a description"),
    ]


def test_gift_escape_round_trips_every_special_character() -> None:
    text = "a ~ b = c # d { e } f : g \\ h \\n i \\~ j\nk \\\nl"
    assert gift.unescape(gift.escape(text)) == text
    assert "\n" not in gift.escape(text)


# --- Aiken ----------

AIKEN = """\
Which memory holds the optimizer states?
A. The GPU's HBM
B) The CPU's L1 cache
C. The NVMe drive
ANSWER: A

This one forgets its answer line
A. yes
B. no

Out of range
A. one
B. two
ANSWER: E

Out of order
A. one
C. three
ANSWER: A
ANSWER: B
Trailing question
A. x
B. y"""


def test_aiken_questions_and_error_cases_with_lines() -> None:
    parsed = aiken.parse(AIKEN)
    assert [q["question"] for q in parsed.questions] == ["Which memory holds the optimizer states?"]
    assert parsed.questions[0]["options"]["B"] == "The CPU's L1 cache"
    assert [(n.line, n.message.split(" (")[0].split(";")[0]) for n in parsed.notes] == [
        (7, "this question has no 'ANSWER:' line"),
        (14, "ANSWER E is not one of the options"),
        (18, "option C is out of order"),
        (20, "an 'ANSWER:' line without a question before it"),
        (21, "this question has no 'ANSWER:' line before the end of the file"),
    ]
    assert all(n.severity == "error" for n in parsed.notes)


# --- CSV ----------

def test_csv_bom_multiline_cells_and_errors_with_lines() -> None:
    text = ("\ufeffquestion,A,B,C,answer,references,review_A\r\n"
            '"Which two,\nover two lines?",x,y,z,"A, B","Ref one\nRef two",\r\n'
            "Missing answer,x,y,z,,,\r\n"
            "Too many,x,y,z,A,,,extra\r\n"
            "Bad letter,x,y,,C,,\r\n")
    parsed = csv_format.parse(text)
    [q] = parsed.questions
    assert q["question"] == "Which two,\nover two lines?"
    assert q["answer"] == ["A", "B"] and q["references"] == ["Ref one", "Ref two"]
    assert [(n.line, n.message.split(";")[0]) for n in parsed.notes] == [
        (5, "this row has no answer"),
        (6, "this row has 8 cells but the header has 7 columns"),
        (7, "answer 'C' is not one of the options (A, B)"),
    ]
    bad = csv_format.parse("question,A,B,anwser\n")
    assert [n.message for n in bad.notes] == [
        "unknown column 'anwser'; did you mean 'answer'? (columns: see FORMAT.md)",
        "the header lacks the column answer"]


# --- Moodle XML ----------

XML = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="category"><category><text>$course$/top/KV Cache</text></category></question>
  <question type="multichoice">
    <name><text>KV growth</text></name>
    <questiontext format="html"><text><![CDATA[<p>What grows the <b>KV cache</b>?</p>]]></text>
    </questiontext>
    <generalfeedback format="html"><text>It is per token.</text></generalfeedback>
    <single>true</single>
    <answer fraction="100"><text>Context length</text></answer>
    <answer fraction="0"><text>Vocabulary</text><feedback><text>Not per token.</text></feedback>
    </answer>
    <tags><tag><text>kv-cache</text></tag></tags>
  </question>
  <question type="multichoice">
    <name><text>Two</text></name>
    <questiontext format="plain_text"><text>Choose two.</text></questiontext>
    <single>false</single>
    <answer fraction="50" format="plain_text"><text>a</text></answer>
    <answer fraction="50" format="plain_text"><text>b</text></answer>
    <answer fraction="-100" format="plain_text"><text>c</text></answer>
  </question>
  <question type="essay"><name><text>E</text></name></question>
  <question type="truefalse">
    <name><text>TF</text></name>
    <questiontext format="plain_text"><text>Inference stores gradients.</text></questiontext>
    <answer fraction="0"><text>true</text><feedback><text>Only training.</text></feedback></answer>
    <answer fraction="100"><text>false</text></answer>
  </question>
</quiz>
"""


def test_moodle_xml_import_with_lines() -> None:
    parsed = moodle_xml.parse(XML)
    first, second, tf = parsed.questions
    assert (first["id"], first["topic"], first["tags"]) == ("kv-growth", "kv-cache", ["kv-cache"])
    assert first["question"] == "What grows the KV cache?"
    assert first["answer"] == "A" and first["distractor_review"] == {"B": "Not per token."}
    assert first["full_explanation"] == "It is per token."
    assert second["answer"] == ["A", "B"]
    assert tf["answer"] == "B" and tf["shuffle"] is False
    assert [(n.line, n.severity) for n in parsed.notes] == [(23, "error")]
    assert "a essay question: skipped" in parsed.notes[0].message or (
        "essay question" in parsed.notes[0].message)
    broken = moodle_xml.parse("<quiz><question></quiz>")
    assert broken.notes[0].line == 1 and "not well-formed XML" in broken.notes[0].message


# --- Round trips ----------

SPECIAL = """\
bank:
  id: special
  title: "Special: characters"
  topics: {memory: Memory}
questions:
  - id: special-001
    topic: memory
    question: "Which of {a}, b~c, d=e, f#g and h:i \\\\ j is No?"
    options: {A: "No", B: "8", C: "~tilde", D: "=equals"}
    answer: A
    short_explanation: |
      Line one.

      Line three has a backslash \\ at the end \\
    full_explanation: "Two\\nlines"
    distractor_review: {B: "b {review}", C: "c #review", D: "d :review"}
    references: [Ref]
"""


def _library(*paths: Path) -> Library:
    report = load_library(list(paths))
    assert report.library is not None, [str(d) for d in report.diagnostics]
    return report.library


@pytest.mark.parametrize("suffix", [".gift", ".xml", ".csv"])
def test_round_trip_keeps_every_field(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "special.yaml").write_text(SPECIAL, encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```",
                        (ROOT / "question_bank" / "FORMAT.md").read_text(encoding="utf-8"), re.S)
    assert example
    (tmp_path / "example.yaml").write_text(example.group(1), encoding="utf-8")
    sources = [*sorted((ROOT / "question_bank").glob("*.yaml")), tmp_path / "special.yaml",
               tmp_path / "example.yaml"]
    for source in sources:
        original = _library(source)
        out = tmp_path / f"out{suffix}"
        export_banks(list(original.banks), out, force=True)
        back = tmp_path / "back" / "bank.yaml"
        back.parent.mkdir(exist_ok=True)
        report = import_files([out], back, force=True)
        assert [n for _, n in report.notes] == []
        again = _library(back)
        assert _plain(again.questions) == _plain(original.questions)
        if suffix != ".csv":  # CSV carries questions only, no bank header
            assert again.banks[0].info == original.banks[0].info


def _plain(questions: tuple[Question, ...]) -> list[dict[str, object]]:
    """The questions as a format without variants carries them: every field, rendered, but not
    the keys that compute options or draw variants (a computed question is exported as the
    variant it shows, in plain text: issue 20 §6)."""
    return [q.model_dump(exclude={"answer_figure", "misconceptions", "distractors", "vary"})
            for q in questions]


@pytest.mark.parametrize("suffix", [".gift", ".xml"])
def test_round_trip_of_the_bundled_library(tmp_path: Path, suffix: str) -> None:
    """Every bundled bank in one file, and back into one bank: the same questions, and every
    topic with its name."""
    original = _library(ROOT / "question_bank")
    out = tmp_path / f"all{suffix}"
    export_banks(list(original.banks), out)
    with pytest.raises(TransferError, match="does not exist; create it first"):
        import_files([out], tmp_path / "back" / "all.yaml")
    (tmp_path / "back").mkdir()
    report = import_files([out], tmp_path / "back" / "all.yaml")
    assert [n.message for _, n in report.notes] == [
        f"the sources hold {len(original.banks)} banks; they go into one bank here (give --to "
        "FOLDER to keep them apart)"]
    assert (tmp_path / "back" / "all.yaml").stat().st_mode & 0o644 == 0o644
    again = _library(tmp_path / "back" / "all.yaml")
    assert _plain(again.questions) == _plain(original.questions)
    assert any(q.computed for q in original.questions)
    assert not any(q.answer_figure or q.vary for q in again.questions)
    assert again.topics == original.topics
    # --to FOLDER: several banks come back as several banks, each header whole.
    (tmp_path / "apart").mkdir()
    report = import_files([out], tmp_path / "apart")
    assert [n for _, n in report.notes] == []
    assert len(report.written) == len(original.banks) > 1
    apart = _library(tmp_path / "apart")
    assert _plain(apart.questions) == _plain(original.questions)
    assert [b.info for b in apart.banks] == [b.info for b in original.banks]


def test_anki_package_is_a_zip_with_one_note_per_question(tmp_path: Path) -> None:
    library = _library(ROOT / "question_bank")
    data = anki.render(list(library.banks), timestamp=1_700_000_000)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert set(archive.namelist()) == {"collection.anki2", "media"}
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    connection = sqlite3.connect(tmp_path / "c.anki2")
    try:
        notes = connection.execute("select guid, flds, tags from notes order by id").fetchall()
        cards = connection.execute("select count(*) from cards").fetchone()[0]
    finally:
        connection.close()
    assert len(notes) == len(library.questions) == cards
    for (guid, fields, tags), question in zip(notes, library.questions, strict=True):
        assert guid == anki.guid(question.id)
        front, back, qid = fields.split("\x1f")
        assert qid == question.id and question.topic in tags.split()
        assert re.search(r"Answers?: ", back) and "Why the other options are wrong" in back
        assert "Full explanation" in back
    assert anki.guid("a") == anki.guid("a") != anki.guid("b")


# --- The commands ----------

def test_import_appends_with_fresh_ids_and_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "q.aiken").write_text("Stem?\nA. x\nB. y\nANSWER: B\n", encoding="utf-8")
    bank = tmp_path / "bank.yaml"
    first = import_files([tmp_path / "q.aiken"], bank)
    assert first.created and first.imported == ["bank-imported-001"]
    before = bank.read_text(encoding="utf-8")
    second = import_files([tmp_path / "q.aiken"], bank)
    assert not second.created and second.imported == ["bank-imported-002"]
    after = bank.read_text(encoding="utf-8")
    assert after.startswith(before)
    assert [q.id for q in _library(bank).questions] == ["bank-imported-001",
                                                        "bank-imported-002"]
    third = import_files([tmp_path / "q.aiken"], bank, force=True)
    assert third.created and [q.id for q in _library(bank).questions] == ["bank-imported-001"]
    (tmp_path / "q.doc").write_text("just some words\n", encoding="utf-8")
    with pytest.raises(TransferError, match="cannot tell the format"):
        import_files([tmp_path / "q.doc"], bank)


def test_export_refuses_to_replace_without_force(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bank.gift"
    out.write_text("keep me", encoding="utf-8")
    assert main(["export", str(ROOT / "question_bank"), "--to", str(out)]) == 2
    assert "already exists; give --force" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "keep me"
    assert main(["export", str(ROOT / "question_bank"), "--to", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith("// quiz-bank: ")
    assert main(["export", str(ROOT / "question_bank"), "--to", str(tmp_path / "x.aiken")]) == 2


def test_import_summary_counts_skipped_questions_and_unread_files_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An unreadable file is one file skipped, not one question; a bad question is a question."""
    missing = tmp_path / "nosuch.aiken"
    bank = tmp_path / "b.yaml"
    assert main(["import", str(missing), "--to", str(bank)]) == 1
    assert "nothing imported (1 file skipped);" in capsys.readouterr().out
    assert not bank.exists()
    (tmp_path / "q.aiken").write_text(AIKEN, encoding="utf-8")
    assert main(["import", str(tmp_path / "q.aiken"), str(missing), "--to", str(bank)]) == 1
    out = capsys.readouterr().out
    assert "imported 1 question (created the bank), skipped 5 questions and 1 file; next:" in out


def test_plural_says_one_answer_and_two_answers() -> None:
    from quiz.wording import plural

    assert [plural(n, "answer") for n in (0, 1, 2)] == ["0 answers", "1 answer", "2 answers"]
