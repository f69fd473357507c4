"""Warnings about how a valid bank shows on screen and in a shuffled session.

- :func:`wide_diagrams`: a ``text`` infographic with lines wider than an 80-column terminal shows
  unwrapped, measured in terminal cells.
- :func:`letter_references`: text that names options by letter or position, which shuffling would
  make false (see :mod:`quiz.bank.option_letters`).

Each warning is at the place in the file where the trouble is written, inside block and multi-line
values too (:func:`quiz.bank.problems.value_positions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quiz.bank import yaml_reader
from quiz.bank.model import BankFile, Question
from quiz.bank.problems import Problem, line_col, mark_position, value_positions
from quiz.bank.terminal import cell_width, expand_tabs

if TYPE_CHECKING:
    from quiz.bank.computed.figures import Figures

DIAGRAM_COLUMNS = 76
"""Widest line of a ``text`` infographic that fits an 80-column terminal unwrapped (the reveal
has a margin and a scrollbar)."""


def _variant_figures(question: Question, raw: Any,
                     values: dict[str, Any]) -> Figures | None:
    """The figures of the scenario of ``question``'s variant ``values`` (not the one it shows),
    taken from the question as written (``raw``): its worked example's scenario with the
    variant's values set, as the rendering sets them (:mod:`quiz.bank.computed.template`),
    validated once and estimated once per scenario (shared with the rendering at load). ``None``
    when the question as written has no scenario mapping (the variant is then rendered)."""
    from quiz.bank.computed.figures import Figures
    from quiz.bank.computed.template import with_values
    from quiz.bank.model import _scenario

    written = raw.get("worked_example") if isinstance(raw, dict) else None
    written = written.get("footprint") if isinstance(written, dict) else None
    if not isinstance(written, dict):
        return None
    return Figures.of(_scenario(with_values(written, values)))


def _rendered_diagrams(question: Question, raw: Any) -> list[str]:
    """The ``text`` infographic of a computed question as each of its variants shows it (the
    placeholders written out as numbers); the first is the variant ``question`` renders.

    Another variant's diagram is its template written with that variant's figures, as the
    rendering writes it (:mod:`quiz.bank.computed.template`), without rendering the rest of
    the question; the question is rendered for the variant only should that fail."""
    from quiz.bank.computed.placeholders import Template, parse

    found = []
    shown = question.variant
    written = raw.get("infographic") if isinstance(raw, dict) else None
    written = written.get("text") if isinstance(written, dict) else None
    template: Template | None = None
    for values in question.variants():
        if values != shown and isinstance(written, str):
            figures = _variant_figures(question, raw, values)
            try:
                template = template or parse(written)
                kept = figures.rendered.get(template) if figures is not None else None
                if figures is not None and not isinstance(kept, str):
                    kept = template.render({f.name: figures.get(f.name)
                                            for f in template.formats})
            except Exception:  # rendered in full below, which says why
                kept = None
            if isinstance(kept, str):
                found.append(kept)
                continue
        info = question.with_variant(values).infographic
        if info is not None and info.text is not None:
            found.append(info.text)
    return found


def wide_diagrams(text: str, value: dict[str, Any],
                  marks: dict[int, yaml_reader.Marks],
                  bank: BankFile | None = None) -> list[Problem]:
    """A warning for each ``text`` infographic with lines wider than :data:`DIAGRAM_COLUMNS`
    terminal cells (tabs expanded to stops every 4, as the app shows them; a CJK character takes
    two cells, a combining accent none): the app wraps them (nothing is cut), which breaks a
    diagram's columns. The warning is at the first such line. A diagram with placeholders
    (``{{ training.total | GB }}``) is measured as shown, in every variant of its question
    (``bank``: the file's questions as validated, in file order; without it, as written)."""
    found = []
    questions = value.get("questions", [])
    for position, question in enumerate(questions):
        info = question.get("infographic") if isinstance(question, dict) else None
        if not isinstance(info, dict) or not isinstance(info.get("text"), str):
            continue
        diagram: str = info["text"]
        lines = diagram.split("\n")
        shown = [lines]
        if "{{" in diagram and bank is not None and len(bank.questions) == len(questions):
            shown = [d.split("\n") for d in _rendered_diagrams(bank.questions[position], question)]
        widest, first = 0, 0
        for rendered in shown:
            widths = [cell_width(expand_tabs(line)) for line in rendered]
            if max(widths) > widest:
                widest = max(widths)
                first = next((i for i, w in enumerate(widths) if w > DIAGRAM_COLUMNS), 0)
        if widest <= DIAGRAM_COLUMNS:
            continue
        first = min(first, len(lines) - 1)  # a placeholder's text has no line break
        offset = sum(len(line) + 1 for line in lines[:first])
        offset += len(lines[first]) - len(lines[first].lstrip(" "))
        mark = marks[id(info)][2]["text"]
        index = value_positions(text, mark.index, diagram, [offset])[0]
        found.append(Problem(
            *(line_col(text, index) if index is not None else mark_position(mark)),
            f"this diagram has lines {widest} columns wide: on an 80-column terminal lines over "
            f"{DIAGRAM_COLUMNS} wrap, which breaks its columns; keep them to {DIAGRAM_COLUMNS} "
            "or fewer", "warning"))
    return found


def letter_references(text: str, bank: BankFile, value: dict[str, Any],
                      marks: dict[int, yaml_reader.Marks]) -> list[Problem]:
    """A warning at each place where a question to be shuffled names its options by letter or
    position (see :mod:`quiz.bank.option_letters`): the question keeps its options in bank
    order instead."""
    found = []
    for question, raw in zip(bank.questions, value["questions"], strict=True):
        if not question.shuffle:
            continue
        for path, ref in question.letter_references():
            container = raw
            for part in path[:-1]:
                container = container[part]
            mark = marks[id(container)][2][path[-1]]
            index = value_positions(text, mark.index, container[path[-1]], [ref.start])[0]
            found.append(Problem(
                *(line_col(text, index) if index is not None else mark_position(mark)),
                f"{ref.text!r} names options by letter or position, which shuffling changes: "
                "this question keeps its options in bank order; write 'shuffle: false' to say "
                "so, or name the option by its content", "warning"))
    return found


def idle_misconceptions(text: str, bank: BankFile, value: dict[str, Any],
                        marks: dict[int, yaml_reader.Marks]) -> list[Problem]:
    """A warning at each name in a computed question's ``misconceptions:`` that gives no
    distractor in any of its variants (the mistake does not arise in its scenario: 8-bit Adam
    for ``adam-one-moment``, say), so it is skipped silently wherever the question is drawn."""
    from quiz.bank.computed.figures import Figures
    from quiz.bank.computed.misconceptions import BY_NAME
    from quiz.bank.computed.placeholders import parse_format
    from quiz.bank.expect import FigureMissing

    found = []
    for question, raw in zip(bank.questions, value["questions"], strict=True):
        if question.answer_figure is None or not question.misconceptions:
            continue
        fmt = parse_format(question.answer_figure)
        idle = set(question.misconceptions)
        shown = question.variant
        for values in question.variants():
            # Another variant's figures are taken from its scenario, rather than from the
            # whole question rendered again for it.
            figures = _variant_figures(question, raw, values) if values != shown else None
            if figures is None:
                example = question.with_variant(values).worked_example
                if example is None:
                    idle.clear()
                    break
                figures = Figures.of(example.footprint)
            for name in list(idle):
                try:
                    produced = BY_NAME[name].compute(figures, fmt)
                except FigureMissing:
                    produced = None
                if produced is not None and produced > 0:
                    idle.discard(name)
            if not idle:
                break
        listed = raw.get("misconceptions")
        for position, name in enumerate(question.misconceptions):
            if name not in idle or not isinstance(listed, list):
                continue
            where = marks[id(listed)][2][position]
            found.append(Problem(
                *mark_position(where),
                f"{name} gives no distractor in any variant of this question (the mistake does "
                "not arise in its scenario): remove it or list one that does", "warning"))
    return found
