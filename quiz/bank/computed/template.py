"""A computed question's raw values (as the YAML loader builds them) rendered for one variant.

:func:`render_question` takes a question mapping whose text has placeholders, or that has
``answer_figure:``/``misconceptions:`` or ``vary:``, and returns the same mapping as a plain
question: every text written out, the options, answer key and distractor reviews generated, the
scenario of the chosen variant in place. The bank model validates that result as any other
question (:mod:`quiz.bank.model`), so every rule of the format holds for a computed question too.

Every variant (every combination of the ``vary:`` lists, at most :data:`MAX_VARIANTS`) is
rendered and checked, unless the caller says they were checked already. Problems are
:class:`ComputedError` entries with the ``loc`` of the value they are about (relative to the
question) and, for text, the offset of the placeholder in it.

Pure: no Textual, no I/O.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from quiz.bank.computed.figures import Figures, scenario_keys
from quiz.bank.computed.misconceptions import BY_NAME, CATALOG
from quiz.bank.computed.placeholders import (
    Format,
    PlaceholderError,
    Template,
    parse,
    parse_format,
)
from quiz.bank.expect import FigureMissing

if TYPE_CHECKING:
    from pydantic import ValidationError

    from quiz.footprint import FootprintSpec

MAX_VARIANTS = 64
"""Most variants (combinations of the ``vary:`` lists) one question may have: each is rendered
and checked when the bank loads."""

DEFAULT_DISTRACTORS = 3
"""Distractors generated when ``distractors:`` is not given (fewer if fewer misconceptions are
listed)."""

COMPUTED_KEYS = ("answer_figure", "misconceptions", "distractors", "vary",
                 "misconception_reviews")
"""The keys that make a question computed (besides placeholders in its text)."""

REVIEW_FIELDS = ("value", "key", "part")
"""What a distractor review fills in: ``{value}`` (the distractor as shown), ``{key}`` (the
answer as shown) and ``{part}`` (the amount they differ by, in the answer's unit)."""

_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
"""A ``{name}`` field of a review (not a ``{{ placeholder }}``)."""

Loc = tuple[str | int, ...]
SpecOf = Callable[[Any], "FootprintSpec"]
"""Validates a scenario mapping (raises ``pydantic.ValidationError``)."""


@dataclass(frozen=True)
class ComputedError:
    """One problem: ``loc`` relative to the question, the ``message``, and ``offset``, the index
    of the placeholder in the text at ``loc`` (``None``: the value as a whole)."""

    loc: Loc
    message: str
    offset: int | None = None


class ComputedErrors(Exception):
    """Every problem found while rendering a question (:attr:`errors`)."""

    def __init__(self, errors: list[ComputedError]) -> None:
        super().__init__("; ".join(e.message for e in errors))
        self.errors = errors


def text_fields(question: Mapping[str, Any]) -> Iterator[tuple[Loc, str]]:
    """Every text field of a question mapping that placeholders may use, with its ``loc``: the
    stem, options, explanations, distractor reviews (and the reviews a question gives for its
    misconceptions), captions, an infographic's text and table cells."""
    for key in ("question", "short_explanation", "full_explanation"):
        if isinstance(question.get(key), str):
            yield (key,), question[key]
    for key in ("options", "distractor_review", "misconception_reviews"):
        mapping = question.get(key)
        if isinstance(mapping, dict):
            for k, v in mapping.items():
                if isinstance(v, str):
                    yield (key, k), v
    info = question.get("infographic")
    if isinstance(info, dict):
        for key in ("caption", "text"):
            if isinstance(info.get(key), str):
                yield ("infographic", key), info[key]
        table = info.get("table")
        if isinstance(table, dict):
            if isinstance(table.get("caption"), str):
                yield ("infographic", "table", "caption"), table["caption"]
            for i, cell in enumerate(table.get("columns") or []):
                if isinstance(cell, str):
                    yield ("infographic", "table", "columns", i), cell
            for i, row in enumerate(table.get("rows") or []):
                for j, cell in enumerate(row if isinstance(row, list) else []):
                    if isinstance(cell, str):
                        yield ("infographic", "table", "rows", i, j), cell
    example = question.get("worked_example")
    if isinstance(example, dict) and isinstance(example.get("caption"), str):
        yield ("worked_example", "caption"), example["caption"]


def is_computed(question: Any) -> bool:
    """True when a question mapping needs rendering: a computed key, or ``{{`` in its text."""
    if not isinstance(question, dict):
        return False
    if any(key in question for key in COMPUTED_KEYS):
        return True
    return any("{{" in text for _, text in text_fields(question))


def placeholder_questions(text: str, bank: Any, marks: Mapping[int, Any]) -> frozenset[int]:
    """The ``id()`` of each question mapping whose lines in ``text`` hold a ``{{``: every other
    question of the bank has no placeholder (a question's value is written between its start
    and the next question's). ``bank`` and ``marks`` are what
    :func:`quiz.bank.yaml_reader.build` read from ``text``.

    One search per question that has a ``{{`` (and one more), where looking through the
    text fields of every question (:func:`is_computed`) cost about 8 µs each."""
    found = text.find("{{")
    questions = bank.get("questions") if isinstance(bank, dict) else None
    if found < 0 or not isinstance(questions, list) or id(questions) not in marks:
        return frozenset()
    starts = [mark.index for mark in marks[id(questions)][2]]
    ids: set[int] = set()
    while found >= 0:
        i = bisect.bisect_right(starts, found) - 1
        if i + 1 >= len(starts):
            if i >= 0:
                ids.add(id(questions[i]))
            break
        if i >= 0:
            ids.add(id(questions[i]))
        found = text.find("{{", starts[i + 1])
    return frozenset(ids)


@dataclass(frozen=True)
class _Plan:
    """What a computed question asks for, parsed once for all its variants."""

    templates: list[tuple[Loc, Template]]
    answer: Format | None
    misconceptions: list[str]
    distractors: int
    vary: list[tuple[str, list[Any]]]
    reviews: dict[str, str]
    """The question's own review of a misconception's distractor, by name, as written."""
    names: frozenset[str] = frozenset()
    """Every figure the templates name."""


def variants_of(vary: Any) -> list[dict[str, Any]]:
    """Every combination of a ``vary:`` mapping's lists, in order (the first value of every
    list first, the last key changing fastest); ``[{}]`` without ``vary``."""
    if not isinstance(vary, dict) or not vary:
        return [{}]
    keys = list(vary)
    lists = [v if isinstance(v, list) else [v] for v in vary.values()]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*lists)]


def with_values(footprint: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the scenario mapping ``footprint`` with each dotted key of ``values`` set
    (``inference.batch`` sets ``batch`` in its ``inference:`` mapping, made if absent)."""
    out: dict[str, Any] = dict(footprint)
    for key, value in values.items():
        part, _, field = key.partition(".")
        if field:
            inner = out.get(part)
            out[part] = {**(inner if isinstance(inner, dict) else {}), field: value}
        else:
            out[part] = value
    return out


def render_question(question: dict[str, Any], spec_of: SpecOf,
                    variant: Mapping[str, Any] | None = None, *,
                    check_all: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """Render a computed question mapping for one variant.

    Args:
        question: the question as the loader built it (text stays as written).
        spec_of: validates a scenario mapping into a ``FootprintSpec``.
        variant: the drawn values, keyed as in ``vary`` (``None``: the first combination).
        check_all: render and check every other variant too (at load); ``False`` when they
            were checked before (a variant drawn in a session).

    Returns:
        ``(rendered question mapping, the variant's values)``.

    Raises:
        ComputedErrors: every problem found, each at its ``loc``.
    """
    errors: list[ComputedError] = []
    plan = _plan(question, errors)
    example = question.get("worked_example")
    footprint = example.get("footprint") if isinstance(example, dict) else None
    if not isinstance(footprint, dict) and not errors and not any(
            key in question for key in COMPUTED_KEYS) and all(
            not template.formats for _, template in plan.templates):
        # Only '{{{{' escapes: a plain question that writes a literal '{{' (a Twig or Jinja
        # snippet, say) needs no scenario; its text is the escapes written out.
        return _replace_texts(question, {loc: template.render({})
                                         for loc, template in plan.templates}), {}
    if not isinstance(footprint, dict):
        where = next((loc for loc, _ in plan.templates), None) or next(
            (k,) for k in (*COMPUTED_KEYS, "question") if k in question)
        errors.append(ComputedError(where, "a computed question (placeholders, answer_figure or "
                                    "vary) needs 'worked_example: footprint:', the scenario its "
                                    "figures come from"))
        raise ComputedErrors(errors)
    _check_vary(question, plan, footprint, spec_of, errors)
    if errors:
        raise ComputedErrors(errors)
    combos = variants_of(question.get("vary"))
    chosen = dict(variant) if variant is not None else combos[0]
    if variant is not None and set(chosen) != {k for k, _ in plan.vary}:
        raise ComputedErrors([ComputedError(("vary",), f"the variant {_shown(chosen)} does not "
                                            "name every key of 'vary'")])
    rendered = _render(question, plan, footprint, chosen, spec_of, errors)
    if check_all:
        for combo in combos:
            if combo != chosen:
                _render(question, plan, footprint, combo, spec_of, errors, shown=False)
    if errors or rendered is None:
        raise ComputedErrors(_first_each(errors))
    return rendered, chosen


def _label(values: Mapping[str, Any]) -> str:
    """What starts a problem of one variant: ``"in the variant model=llama-2-13b: "``."""
    return f"in the variant {_shown(values)}: " if values else ""


def _shown(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _first_each(errors: list[ComputedError]) -> list[ComputedError]:
    """One error per place (the first variant that fails there): 64 variants failing the same
    way say it once."""
    seen: set[tuple[Loc, int | None]] = set()
    out = []
    for e in errors:
        if (e.loc, e.offset) not in seen:
            seen.add((e.loc, e.offset))
            out.append(e)
    return out


def _plan(question: dict[str, Any], errors: list[ComputedError]) -> _Plan:
    templates: list[tuple[Loc, Template]] = []
    for loc, text in text_fields(question):
        if "{{" not in text:
            continue
        try:
            templates.append((loc, parse(text)))
        except PlaceholderError as exc:
            errors.append(ComputedError(loc, str(exc), exc.offset))
    answer = None
    raw = question.get("answer_figure")
    if raw is not None:
        if not isinstance(raw, str):
            errors.append(ComputedError(("answer_figure",), "answer_figure: expected text such "
                                        "as 'training.model_states | GB:1'"))
        else:
            try:
                answer = parse_format(raw.strip().removeprefix("{{").removesuffix("}}"))
                if answer.kind == "text":
                    errors.append(ComputedError(("answer_figure",), f"{answer.name} is text: "
                                                "answer_figure must be a size or a count"))
                    answer = None
            except PlaceholderError as exc:
                errors.append(ComputedError(("answer_figure",), str(exc)))
        for key in ("options", "answer", "distractor_review"):
            if key in question:
                errors.append(ComputedError((key,), f"a question either writes its options or "
                                            f"generates them with answer_figure: remove "
                                            f"'{key}' (or answer_figure)"))
        if "expect" in (question.get("worked_example") or {}):
            errors.append(ComputedError(("worked_example", "expect"), "answer_figure already "
                                        "states the calculator's figure in the key: remove "
                                        "'expect'"))
    names = _misconceptions(question, answer, errors)
    reviews = _own_reviews(question, names, errors)
    distractors = min(DEFAULT_DISTRACTORS, len(names)) or 1
    given = question.get("distractors")
    if given is not None:
        text = str(given).strip()
        if not text.isdigit() or not 1 <= int(text) <= 7:
            errors.append(ComputedError(("distractors",), "distractors: expected a whole number "
                                        "from 1 to 7"))
        else:
            distractors = int(text)
            if distractors > len(names) and names:
                errors.append(ComputedError(("distractors",), f"{distractors} distractors need "
                                            f"at least {distractors} misconceptions (listed: "
                                            f"{len(names)})"))
    vary = question.get("vary")
    pairs: list[tuple[str, list[Any]]] = []
    if vary is not None:
        if not isinstance(vary, dict) or not vary:
            errors.append(ComputedError(("vary",), "vary: expected a mapping of scenario keys "
                                        "to lists of values, e.g. {inference.batch: [1, 8, 32]}"))
        else:
            pairs = [(k, v if isinstance(v, list) else [v]) for k, v in vary.items()]
            if "expect" in (question.get("worked_example") or {}) and answer is None:
                errors.append(ComputedError(("worked_example", "expect"), "expect states one "
                                            "variant's figure: with vary, write the figure as "
                                            "{{ ... }} in the key, or use answer_figure"))
    return _Plan(templates, answer, names, distractors, pairs, reviews,
                 frozenset(fmt.name for _, template in templates for fmt in template.formats))


def _misconceptions(question: dict[str, Any], answer: Format | None,
                    errors: list[ComputedError]) -> list[str]:
    raw = question.get("misconceptions")
    if raw is None:
        if answer is not None:
            errors.append(ComputedError(("answer_figure",), "answer_figure generates the "
                                        "distractors from 'misconceptions:' (a list of names "
                                        "from the catalog in FORMAT.md): add it"))
        return []
    if answer is None and "answer_figure" not in question:
        errors.append(ComputedError(("misconceptions",), "misconceptions generate distractors "
                                    "for answer_figure: add 'answer_figure:'"))
    if not isinstance(raw, list) or not raw:
        errors.append(ComputedError(("misconceptions",), "misconceptions: expected a list of "
                                    "names, e.g. [forget-optimizer-states, gib-labelled-gb]"))
        return []
    names = []
    for i, name in enumerate(raw):
        found = BY_NAME.get(name) if isinstance(name, str) else None
        if found is None:
            import difflib

            close = difflib.get_close_matches(str(name), list(BY_NAME), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            errors.append(ComputedError(("misconceptions", i), f"unknown misconception "
                                        f"{name!r}; {hint}the catalog: "
                                        f"{', '.join(m.name for m in CATALOG)}"))
        elif answer is not None and not found.applies_to(answer):
            where = ("every size figure in SI units (GB, ...)" if found.name == "gib-labelled-gb"
                     else "every size figure in IEC units (GiB, ...)"
                     if found.name == "gb-labelled-gib" else ", ".join(found.figures))
            errors.append(ComputedError(("misconceptions", i), f"{name} does not apply to "
                                        f"{answer.name} in {answer.unit or 'count'}: it applies "
                                        f"to {where}"))
        elif name in names:
            errors.append(ComputedError(("misconceptions", i), f"{name} is listed twice"))
        else:
            names.append(name)
    return names


def _own_reviews(question: dict[str, Any], names: list[str],
                 errors: list[ComputedError]) -> dict[str, str]:
    """``misconception_reviews:``, a question's own wording of the review of a distractor a
    misconception generates, by the misconception's name: each a name from the catalog listed
    in the question's ``misconceptions:``, each text using no field but :data:`REVIEW_FIELDS`."""
    raw = question.get("misconception_reviews")
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not raw:
        errors.append(ComputedError(("misconception_reviews",), "expected a mapping of "
                                    "misconception names to the review "
                                    "of their distractor, e.g. {forget-optimizer-states: "
                                    "'{value} leaves out ...; the full count is {key}.'}"))
        return {}
    reviews = {}
    for name, text in raw.items():
        if name not in BY_NAME:
            import difflib

            close = difflib.get_close_matches(str(name), list(BY_NAME), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            errors.append(ComputedError(("misconception_reviews", name, "[key]"),
                                        f"misconception_reviews: unknown misconception "
                                        f"{name!r}; {hint}the catalog: "
                                        f"{', '.join(m.name for m in CATALOG)}"))
            continue
        if name not in names:
            errors.append(ComputedError(("misconception_reviews", name, "[key]"),
                                        f"misconception_reviews: {name} is not in this "
                                        "question's misconceptions: list it there, or remove "
                                        "its review"))
            continue
        if not isinstance(text, str) or not text.strip():
            errors.append(ComputedError(("misconception_reviews", name),
                                        "expected the text of the review"))
            continue
        unknown = [m for m in _FIELD.finditer(text) if m.group(1) not in REVIEW_FIELDS]
        if unknown:
            field = unknown[0]
            errors.append(ComputedError(("misconception_reviews", name),
                                        f"{{{field.group(1)}}} is not a field of a review: "
                                        "write {value} (the distractor), {key} (the answer) "
                                        "or {part} (the difference)", field.start()))
            continue
        reviews[name] = text
    return reviews


def _check_vary(question: dict[str, Any], plan: _Plan, footprint: dict[str, Any],
                spec_of: SpecOf, errors: list[ComputedError]) -> None:
    """Each ``vary`` key is a scenario key, each value one the scenario accepts, and there are
    at most :data:`MAX_VARIANTS` combinations."""
    keys = scenario_keys()
    count = 1
    for key, values in plan.vary:
        if key not in keys:
            import difflib

            close = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else " (see FORMAT.md's footprint keys)"
            errors.append(ComputedError(("vary", key, "[key]"),
                                        f"vary: {key!r} is not a scenario key{hint}"))
            continue
        if not values:
            errors.append(ComputedError(("vary", key), f"vary: {key} needs at least one value"))
            continue
        count *= len(values)
        for i, value in enumerate(values):
            if isinstance(value, dict | list):
                errors.append(ComputedError(("vary", key, i), f"vary: {key}: expected a value "
                                            "(text or a number), found a "
                                            f"{'mapping' if isinstance(value, dict) else 'list'}"))
                continue
            try:
                spec_of(with_values(footprint, {key: value}))
            except _validation_error() as exc:
                reason = "; ".join(str(e["msg"]) for e in exc.errors(include_url=False))
                errors.append(ComputedError(("vary", key, i), f"vary: {key}: the scenario "
                                            f"refuses {value!r}: {reason}"))
            seen = [str(v) for v in values[:i]]
            if str(value) in seen:
                errors.append(ComputedError(("vary", key, i), f"vary: {key}: {value!r} is "
                                            "listed twice"))
    if count > MAX_VARIANTS:
        errors.append(ComputedError(("vary",), f"vary gives {count} combinations; at most "
                                    f"{MAX_VARIANTS} per question (each is checked when the "
                                    "bank loads): shorten the lists"))


def _render(question: dict[str, Any], plan: _Plan, footprint: dict[str, Any],
            values: dict[str, Any], spec_of: SpecOf, errors: list[ComputedError], *,
            shown: bool = True) -> dict[str, Any] | None:
    """One variant rendered, or ``None`` with its problems added to ``errors`` (each message
    starts with :func:`_label` of ``values``).

    With ``shown`` false (a variant checked at load but not shown) the same problems are found,
    in the same order, but only the texts the checks read are written (the options, and the
    question's own reviews that generated options use) and nothing is returned."""
    scenario = with_values(footprint, values)
    try:
        spec = spec_of(scenario)
    except _validation_error() as exc:
        reason = "; ".join(str(e["msg"]) for e in exc.errors(include_url=False))
        errors.append(ComputedError(("vary",) if values else ("worked_example", "footprint"),
                                    f"{_label(values)}the scenario is not valid: {reason}"))
        return None
    figures = Figures.of(spec)
    before = len(errors)
    texts: dict[Loc, str] = {}
    if shown or not _has_every(figures, plan.names):
        for loc, template in plan.templates:
            done = figures.rendered.get(template)
            if isinstance(done, str):
                texts[loc] = done
                continue
            found: dict[str, int | str] = {}
            for fmt, offset in zip(template.formats, template.offsets, strict=True):
                try:
                    found[fmt.name] = figures.get(fmt.name)
                except FigureMissing as exc:
                    errors.append(ComputedError(loc, f"{_label(values)}{fmt.name}: {exc}",
                                                offset))
            if len(found) == len({f.name for f in template.formats}) and (
                    shown or loc[0] in _CHECKED_TEXTS):
                texts[loc] = text = template.render(found)
                figures.remember(template, text)
    else:  # every figure is there: write only what the checks read
        for loc, template in plan.templates:
            if loc[0] in _CHECKED_TEXTS:
                done = figures.rendered.get(template)
                if not isinstance(done, str):
                    done = template.render({f.name: figures.get(f.name)
                                            for f in template.formats})
                    figures.remember(template, done)
                texts[loc] = done
    generated = None
    if plan.answer is not None:
        own = {name: texts.get(("misconception_reviews", name), text)
               for name, text in plan.reviews.items()}
        key = (plan.answer, tuple(plan.misconceptions), plan.distractors,
               tuple(sorted(own.items())))
        done = figures.rendered.get(key)
        if isinstance(done, tuple):
            generated = cast(tuple[dict[str, str], str, dict[str, str]], done)
        else:
            generated = _generate(plan, figures, own, errors, _label(values))
            if generated is not None:
                figures.remember(key, generated)
    if len(errors) > before:
        return None
    written = question.get("options")
    if isinstance(written, dict) and values:  # one variant only: the model checks its options
        seen: dict[str, str] = {}
        for letter, option in written.items():
            option = texts.get(("options", letter), option)
            if not isinstance(option, str):
                continue
            same = " ".join(option.split())
            if same in seen:
                errors.append(ComputedError(("options", letter), f"{_label(values)}options "
                                            f"{seen[same]} and {letter} both read {same!r}: a "
                                            "student could not tell them apart"))
                return None
            seen[same] = letter
    if not shown:
        return None
    out = _replace_texts(question, texts)
    example = dict(out["worked_example"])
    example["footprint"] = scenario
    out["worked_example"] = example
    info = out.get("infographic")
    if values and isinstance(info, dict) and info.get("footprint") == footprint:
        out["infographic"] = {**info, "footprint": scenario}
    if generated is not None:
        out["options"], out["answer"], out["distractor_review"] = generated
    return out


_CHECKED_TEXTS = frozenset({"options", "misconception_reviews"})
"""Where the texts are that a variant's checks read (:func:`_render` with ``shown`` false)."""


def _has_every(figures: Figures, names: frozenset[str]) -> bool:
    """True when ``figures`` has every figure named (none missing for the scenario)."""
    try:
        for name in names:
            figures.get(name)
    except FigureMissing:
        return False
    return True


_VALIDATION_ERROR: list[type[ValidationError]] = []


def _validation_error() -> type[ValidationError]:
    """pydantic's ``ValidationError``, imported on first use (as this module was before: quiz
    does not import pydantic before its first paint) and kept (an import statement in a loop
    costs a call into the import system each time)."""
    if not _VALIDATION_ERROR:
        from pydantic import ValidationError as error

        _VALIDATION_ERROR.append(error)
    return _VALIDATION_ERROR[0]


def _replace_texts(question: dict[str, Any], texts: dict[Loc, str]) -> dict[str, Any]:
    """A copy of ``question`` with the text at each ``loc`` replaced (containers on the way are
    copied; the rest is shared)."""
    out = dict(question)
    for loc, text in texts.items():
        node: Any = out
        for i, part in enumerate(loc[:-1]):
            child = node[part]
            child = dict(child) if isinstance(child, dict) else list(child)
            node[part] = child
            node = child
            del i
        node[loc[-1]] = text
    return out


def _generate(plan: _Plan, figures: Figures, own: dict[str, str],
              errors: list[ComputedError], label: str,
              ) -> tuple[dict[str, str], str, dict[str, str]] | None:
    """The options (in ascending order of value), the key's letter and a review per distractor
    (the question's ``own`` wording for a misconception, rendered for this variant, else the
    catalog's, written for this scenario), or ``None`` with the problem added to ``errors``."""
    fmt = plan.answer
    assert fmt is not None
    try:
        exact = figures.number(fmt.name)
    except FigureMissing as exc:
        errors.append(ComputedError(("answer_figure",), f"{label}{fmt.name}: {exc}"))
        return None
    key_text = fmt.write(exact)
    chosen: list[tuple[int, str, str]] = [(fmt.rounded(exact), key_text, "")]
    taken = {fmt.rounded(exact)}
    skipped = []
    for name in plan.misconceptions:
        if len(chosen) > plan.distractors:
            break
        misconception = BY_NAME[name]
        try:
            value = misconception.compute(figures, fmt)
        except FigureMissing:
            value = None
        if value is None or value <= 0:
            skipped.append(f"{name} (does not arise here)")
            continue
        rounded = fmt.rounded(value)
        if rounded in taken:
            skipped.append(f"{name} (gives {fmt.write(value)} again)")
            continue
        taken.add(rounded)
        text = fmt.write(value)
        review = fill_review(own.get(name) or misconception.review_text(figures, fmt),
                             value=text, key=key_text, part=fmt.write(abs(exact - value)))
        chosen.append((rounded, text, review))
    if len(chosen) <= plan.distractors:
        errors.append(ComputedError(("misconceptions",), f"{label}only {len(chosen) - 1} of "
                                    f"{plan.distractors} distractors are distinct from the key "
                                    f"{key_text} and each other: {'; '.join(skipped)}; list "
                                    "more misconceptions or write more digits"))
        return None
    chosen.sort(key=lambda c: c[0])
    letters = "ABCDEFGH"
    options = {letters[i]: text for i, (_, text, _) in enumerate(chosen)}
    answer = next(letters[i] for i, c in enumerate(chosen) if not c[2])
    reviews = {letters[i]: review for i, (_, _, review) in enumerate(chosen) if review}
    return options, answer, reviews


def fill_review(template: str, **fields: str) -> str:
    """``template`` with each ``{value}``, ``{key}`` and ``{part}`` replaced by ``fields``;
    nothing else in it is read (a question's own review is data: a brace stays a brace)."""
    return _FIELD.sub(lambda m: fields.get(m.group(1), m.group(0)), template)
