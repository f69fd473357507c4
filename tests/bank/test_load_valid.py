"""Valid banks load into exactly the values written, with both YAML parsers."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.bank.load import load_bank_text, load_library
from quiz.bank.model import Infographic, TableInfographic

from .helpers import HEAD, bank, found, question

TWO_QUESTIONS = """\
bank:
  id: ai-infra
  title: "AI infrastructure: training vs inference"
  version: 2
  pass_mark: 0.75
  description: For the exam.
  topics:
    memory: Memory footprint
    precision: Precision and quantization
questions:
  - id: memory-001
    topic: memory
    difficulty: medium
    tags: [vram, optimizer-states]
    question: |
      How does training memory compare
      to inference memory?
    options:
      A: Training needs less
      B: "They are equal"
      C: 'Inference needs more'
      D: Training needs far more
    answer: D
    short_explanation: >
      Training keeps gradients
      and optimizer states.
    infographic:
      table:
        columns: [Item, Training, Inference]
        rows:
          - [Weights, "yes", "yes"]
          - [Optimizer states, "yes", "no"]
      caption: What is in memory
    full_explanation: |
      Weights, gradients, optimizer states and activations.

      Inference keeps the weights and a KV cache.
    distractor_review:
      A: Training adds gradients and states.
      B: They differ by the optimizer states.
      C: Inference has no optimizer states.
    references: ["Rajbhandari et al. 2020, ZeRO, sec. 3"]
  - id: precision-002
    topic: precision
    question: Which two formats use 16 bits?
    options: {A: FP16, B: INT8, C: BF16}
    answer: [A, C]
    shuffle: false
    short_explanation: FP16 and BF16 are 16-bit formats.
    full_explanation: INT8 is 8 bits.
    distractor_review: {B: INT8 has 8 bits.}
"""


def test_two_question_bank_loads_exact_values(pure: bool) -> None:
    report = load_bank_text(TWO_QUESTIONS, "two.yaml", pure_python=pure)
    assert report.diagnostics == []
    assert report.ok
    library = report.library
    assert library is not None
    assert len(library.banks) == 1
    loaded = library.banks[0]
    assert loaded.path == Path("two.yaml")
    info = loaded.info
    assert info.id == "ai-infra"
    assert info.title == "AI infrastructure: training vs inference"
    assert info.version == 2
    assert info.pass_mark == 0.75
    assert info.description == "For the exam."
    assert list(info.topics.items()) == [("memory", "Memory footprint"),
                                         ("precision", "Precision and quantization")]
    assert library.topics == {"memory": "Memory footprint",
                              "precision": "Precision and quantization"}

    first, second = loaded.questions
    assert first.id == "memory-001"
    assert first.topic == "memory"
    assert first.difficulty == "medium"
    assert first.tags == ["vram", "optimizer-states"]
    assert first.stem == "How does training memory compare\nto inference memory?\n"
    assert list(first.options) == ["A", "B", "C", "D"]
    assert first.options == {"A": "Training needs less", "B": "They are equal",
                             "C": "Inference needs more", "D": "Training needs far more"}
    assert first.answer == "D"
    assert first.answer_keys == frozenset({"D"})
    assert first.multiple_response is False
    assert first.shuffle is True
    assert first.short_explanation == "Training keeps gradients and optimizer states.\n"
    assert first.full_explanation == ("Weights, gradients, optimizer states and activations.\n"
                                      "\nInference keeps the weights and a KV cache.\n")
    assert first.infographic == Infographic(
        table=TableInfographic(columns=["Item", "Training", "Inference"],
                               rows=[["Weights", "yes", "yes"],
                                     ["Optimizer states", "yes", "no"]]),
        caption="What is in memory")
    assert first.infographic.kind == "table"
    assert first.distractor_review == {"A": "Training adds gradients and states.",
                                       "B": "They differ by the optimizer states.",
                                       "C": "Inference has no optimizer states."}
    assert first.references == ["Rajbhandari et al. 2020, ZeRO, sec. 3"]
    assert first.worked_example is None

    assert second.id == "precision-002"
    assert second.stem == "Which two formats use 16 bits?"
    assert list(second.options.items()) == [("A", "FP16"), ("B", "INT8"), ("C", "BF16")]
    assert second.answer == ["A", "C"]
    assert second.answer_keys == frozenset({"A", "C"})
    assert second.multiple_response is True
    assert second.shuffle is False
    assert second.difficulty is None
    assert second.tags == []
    assert second.infographic is None
    assert second.distractor_review == {"B": "INT8 has 8 bits."}
    assert library.question("precision-002") is second


def test_yaml_never_retypes_text(pure: bool) -> None:
    text = HEAD + """\
  - id: q1
    topic: memory
    question: =
    options:
      A: No
      B: yes
      C: True
      D: 8
      E: 1:30
      F: 0o17
      G: ~
      H: null
    answer: A
    short_explanation: 1e3
    full_explanation: .inf
    distractor_review:
      B: off
      C: 2001-12-14
      D: 0x1F
      E: = and more
      F: <<
      G: 3.0
      H: ''
    references: [Null, NO, +1, -0]
"""
    report = load_bank_text(text, pure_python=pure)
    # H's review is empty: the only error, and it proves '' stayed '' (not None).
    assert found(report) == [(28, 10, "error", "distractor_review.H: must not be empty")]
    text = text.replace("H: ''", "H: ' x '")
    report = load_bank_text(text, pure_python=pure)
    assert report.diagnostics == []
    q = report.library.questions[0]
    assert q.stem == "="
    assert q.options == {"A": "No", "B": "yes", "C": "True", "D": "8", "E": "1:30",
                         "F": "0o17", "G": "~", "H": "null"}
    assert q.short_explanation == "1e3"
    assert q.full_explanation == ".inf"
    assert q.distractor_review == {"B": "off", "C": "2001-12-14", "D": "0x1F",
                                   "E": "= and more", "F": "<<", "G": "3.0", "H": " x "}
    assert q.references == ["Null", "NO", "+1", "-0"]


def test_numbers_and_booleans_are_coerced_only_where_the_model_says(pure: bool) -> None:
    head = HEAD.replace("  id: demo\n", "  id: demo\n  version: '3'\n  pass_mark: .5\n")
    report = load_bank_text(bank(question(extra="    shuffle: No\n"), head=head),
                            pure_python=pure)
    assert report.diagnostics == []
    assert report.library.banks[0].info.version == 3
    assert report.library.banks[0].info.pass_mark == 0.5
    assert report.library.questions[0].shuffle is False


def test_comments_after_non_text_fields_are_fine(pure: bool) -> None:
    text = bank(question(answer="B  # the right one", short='"Costs 2 # bytes"  # quoted',
                         extra="    difficulty: easy # x\n    tags: [a, b] # c\n"))
    report = load_bank_text(text, pure_python=pure)
    assert report.diagnostics == []
    q = report.library.questions[0]
    assert (q.answer, q.difficulty, q.tags) == ("B", "easy", ["a", "b"])
    assert q.short_explanation == "Costs 2 # bytes"


def test_leading_byte_order_mark_and_crlf_are_fine(pure: bool) -> None:
    text = "\ufeff" + bank().replace("\n", "\r\n")
    report = load_bank_text(text.encode("utf-8"), pure_python=pure)
    assert report.diagnostics == []
    assert report.library.questions[0].stem == "What is stored?"


def test_folder_loads_sorted_banks_and_merges_topics(tmp_path: Path, pure: bool) -> None:
    second = HEAD.replace("demo", "other").replace(
        "{memory: Memory footprint, precision: Precision}", "{memory: Memory, storage: Storage}")
    (tmp_path / "b.yml").write_text(bank(question("q2", topic="storage"), head=second))
    (tmp_path / "a.yaml").write_text(bank(question("q1", topic="precision")))
    (tmp_path / "notes.md").write_text("not a bank")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.yaml").write_text("ignored: not recursive")
    report = load_library([tmp_path], pure_python=pure)
    # Both banks name the topic 'memory': the first name is used, the second one is a warning.
    assert [str(d) for d in report.diagnostics] == [
        f"{tmp_path / 'b.yml'}:4:20: warning: topic 'memory' is already named 'Memory footprint' "
        f"by {tmp_path / 'a.yaml'}; this bank's name 'Memory' is not used"]
    library = report.library
    assert [q.id for q in library.questions] == ["q1", "q2"]
    assert library.topics == {"memory": "Memory footprint", "precision": "Precision",
                              "storage": "Storage"}
    assert library.title == "2 banks: Demo bank, Demo bank"


def test_undeclared_topics_show_under_their_key(pure: bool) -> None:
    head = HEAD.replace("  topics: {memory: Memory footprint, precision: Precision}\n", "")
    report = load_bank_text(bank(question(topic="kv-cache"), head=head), pure_python=pure)
    assert report.diagnostics == []
    assert report.library.topics == {"kv-cache": "kv-cache"}


def test_same_file_twice_is_loaded_once(tmp_path: Path, pure: bool) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(bank())
    report = load_library([path, tmp_path, str(path)], pure_python=pure)
    assert report.diagnostics == []
    assert len(report.library.banks) == 1


def test_a_diagram_wider_than_the_screen_is_a_warning(pure: bool) -> None:
    from quiz.bank.load import load_bank_text

    from .helpers import bank, found, question

    extra = "    infographic:\n      text: |\n        " + "x" * 77 + "\n        short\n"
    report = load_bank_text(bank(question(extra=extra)), pure_python=pure)
    assert report.ok
    # At the line that is too wide (the block's first line, 16), in terminal columns.
    assert found(report) == [(16, 9, "warning", "this diagram has lines 77 columns wide: on an "
                              "80-column terminal lines over 76 wrap, which breaks its columns; "
                              "keep them to 76 or fewer")]
    fits = extra.replace("x" * 77, "x" * 76)
    assert found(load_bank_text(bank(question(extra=fits)), pure_python=pure)) == []


def test_banks_of_one_series_are_titled_by_what_they_share(tmp_path: Path) -> None:
    for name, title in (("a", "AI infra: Memory"), ("b", "AI infra: Serving")):
        head = HEAD.replace("demo", name).replace("title: Demo bank", f'title: "{title}"')
        (tmp_path / f"{name}.yaml").write_text(bank(question(f"q-{name}"), head=head))
    library = load_library([tmp_path]).library
    assert library.title == "AI infra (2 banks)"


def test_the_library_records_keep_the_dataclass_behaviour_they_replace() -> None:
    """Diagnostic, BankHeader, Library, LoadReport and StartSettings are named tuples and plain
    classes (made before the first frame, where dataclasses took 1.9 ms): equal by value,
    read-only where they were frozen, hashable where they were."""
    import pickle

    from quiz.bank.library import BankHeader, Diagnostic, Library, LoadReport
    from quiz.study.start_settings import StartSettings

    d = Diagnostic("b.yaml", 3, 5, "m")
    assert d == Diagnostic("b.yaml", 3, 5, "m", "error") and hash(d) == hash(d._replace())
    assert d._replace(severity="warning").severity == "warning" and d.severity == "error"
    assert str(d) == "b.yaml:3:5: error: m"
    header = BankHeader("b", "B", None, 0.7, None, {"t": "T"})
    assert pickle.loads(pickle.dumps(header)) == header
    library = Library(banks=(), topics={"t": "T"})
    assert library == Library(banks=(), topics={"t": "T"}) != Library(banks=())
    assert "topics={'t': 'T'}" in repr(library)
    settings = StartSettings(frozenset({"t"}), 5)
    assert settings == StartSettings(frozenset({"t"}), 5, True, False)
    assert hash(settings) == hash(StartSettings(frozenset({"t"}), 5))
    for record, field in ((d, "line"), (header, "title"), (library, "banks"),
                          (settings, "count")):
        with pytest.raises(AttributeError):
            setattr(record, field, None)
    for unhashable in (library, LoadReport(library, [])):
        with pytest.raises(TypeError):
            hash(unhashable)
    assert LoadReport(None, [d]) == LoadReport(None, [d], []) != LoadReport(None, [])
