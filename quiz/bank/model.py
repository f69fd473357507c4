"""The question bank model (format v1): pydantic models for a bank and its questions.

The YAML loader (:mod:`quiz.bank.load`) builds plain values in which every scalar is the string
the author typed, then validates them with :meth:`BankFile.model_validate`. Only a few fields are
coerced from text (``version``, ``pass_mark``, ``time_limit``, ``shuffle``, an infographic's
``compute``); every other text field must be a string, so a list or a mapping where text
belongs is an error rather than a rendered Python ``repr``.

Cross-field rules (the answer key names an option; one distractor review per wrong option and none
for a right one; ...) are plain functions in :mod:`quiz.bank.rules`, called by the after-validators
here and raised as :class:`pydantic.ValidationError` entries whose ``loc`` points at the offending
key, so the loader can report ``path:line:col`` for them like any other error.

The format is documented for instructors in ``question_bank/FORMAT.md``.
"""

from __future__ import annotations

import difflib
import marshal
from collections.abc import Callable
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictStr,
    ValidationError,
    ValidationInfo,
    WrapValidator,
    field_validator,
    model_validator,
)
from pydantic.functional_validators import ModelWrapValidatorHandler
from pydantic_core import InitErrorDetails, PydanticCustomError

from quiz.bank.expect import (
    FIGURES,
    FigureMissing,
    Kind,
    Quantity,
    parse_value,
    quantities_in,
    read_figure,
    rounds_to,
    shown,
    states,
)
from quiz.bank.option_letters import LetterReference, references_in
from quiz.bank.rules import (
    Loc,
    answer_errors,
    error,
    infographic_kind_errors,
    raise_if_any,
    review_errors,
    row_length_errors,
    same_options_errors,
    topic_errors,
)
from quiz.footprint import FootprintSpec

OPTION_KEYS = "ABCDEFGH"
"""Allowed option keys, in order. At most eight options: the TUI binds A–H (and 1–8) to them."""

SLUG_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
"""Bank ids, question ids and topic keys: lowercase letters, digits, ``.``, ``_`` and ``-``."""

Slug = Annotated[StrictStr, Field(pattern=SLUG_PATTERN, max_length=120)]
OptionKey = Annotated[StrictStr, Field(pattern=r"^[A-H]$")]


def _not_blank(value: str) -> str:
    if not value or value.isspace():  # as ``not value.strip()``, without copying the text
        raise PydanticCustomError("blank_text", "must not be empty")
    return value


Text = Annotated[StrictStr, AfterValidator(_not_blank)]
"""Required text: a string (never a list or mapping), not empty or only whitespace. Kept exactly
as written. Every text field of a bank uses it: stems, options, explanations, reviews, references,
table columns, an infographic's text, the bank's title and topic names."""


class _Strict(BaseModel):
    """Base for every bank model: unknown keys are errors, models are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False,
                              defer_build=True)


def _frozen(value: Any) -> bytes | None:
    """A key for a plain value as the loader builds it (text, and mappings and lists of them, in
    their order; numbers, ``None`` and booleans as tests and exports write them): its
    :mod:`marshal` bytes (format 2, which writes each value the same way wherever it is shared),
    equal exactly when the values and their types and order are; ``None`` when it holds anything
    else (a model, a mark).

    One C call, where walking the value in Python cost about three times as much: a 10,000
    question bank looks up about 30,000 scenarios."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:  # "unmarshallable object": an instance of another class
        return None


_SPECS: dict[bytes, FootprintSpec] = {}
"""Footprint scenarios validated by :func:`_shared_spec`, by their plain value."""

_SPECS_KEPT = 4096
"""Most scenarios kept in :data:`_SPECS` (it is emptied when full)."""


def _shared_spec(value: Any, handler: Callable[[Any], Any]) -> FootprintSpec:
    """Validate a footprint scenario once per plain value: the same mapping (text, in the same
    order) gives the same frozen :class:`~quiz.footprint.inputs.spec.FootprintSpec`, shared, so a
    bank
    whose questions repeat a scenario (an infographic and its worked example, a series of
    questions on one model) validates it once. A value that fails is validated each time (its
    errors are located where it is)."""
    key = _frozen(value)
    if key is not None:
        found = _SPECS.get(key)
        if found is not None:
            return found
    spec: FootprintSpec = handler(value)
    if key is not None:
        if len(_SPECS) >= _SPECS_KEPT:
            _SPECS.clear()
        _SPECS[key] = spec
    return spec


Scenario = Annotated[FootprintSpec, WrapValidator(_shared_spec)]


def _scenario(value: Any) -> FootprintSpec:
    """A scenario mapping validated as :data:`Scenario` is (shared by value).

    Raises:
        pydantic.ValidationError: the scenario is not valid.
    """
    return _shared_spec(value, FootprintSpec.model_validate)
"""A footprint scenario in a bank (validated once per plain value: :func:`_shared_spec`)."""


RuleName = Annotated[StrictStr, Field(pattern=r"^(Q[0-9]{3}|[a-z][a-z-]*)$", max_length=60)]
"""A lint rule, by code (``Q104``) or by name (``longest-option-is-key``); see
:mod:`quiz.bank.lint`."""


class LintSettings(_Strict):
    """``lint:`` on a question or on the bank header: ``ignore`` lists the lint rules (codes or
    names) that are deliberately not followed there. Unknown rule names are reported by
    ``quiz validate``."""

    ignore: list[RuleName] = Field(default_factory=list)


class TableInfographic(_Strict):
    """A table: ``columns`` (header cells) and ``rows`` (each a list of cells, same length)."""

    columns: list[Text] = Field(min_length=1)
    rows: list[list[StrictStr]] = Field(min_length=1)
    caption: StrictStr | None = None

    @model_validator(mode="after")
    def _rows_match_columns(self) -> TableInfographic:
        raise_if_any("TableInfographic", row_length_errors(len(self.columns), self.rows))
        return self


class Infographic(_Strict):
    """An infographic: exactly one of ``table``, ``text`` (a preformatted diagram) or
    ``footprint`` (a calculator scenario drawn by :mod:`quiz.footprint`). ``compute: true`` (a
    footprint only) also shows the scenario's time and throughput beside its memory bars
    (:func:`quiz.footprint.words.render.compute_lines`); off by default, because a chart shown with
    the question must not give away an answer about time or throughput."""

    table: TableInfographic | None = None
    text: Text | None = None
    footprint: Scenario | None = None
    caption: StrictStr | None = None
    compute: bool = False

    @model_validator(mode="after")
    def _exactly_one_kind(self) -> Infographic:
        kinds = [k for k in ("table", "text", "footprint") if getattr(self, k) is not None]
        raise_if_any("Infographic", infographic_kind_errors(kinds, self.compute))
        return self

    @property
    def kind(self) -> Literal["table", "text", "footprint"]:
        """Which kind this infographic is."""
        if self.table is not None:
            return "table"
        if self.text is not None:
            return "text"
        return "footprint"


class Expect(_Strict):
    """What a worked example's keyed option states: ``figure``, a name of
    :data:`quiz.bank.expect.FIGURES` (``training.total``, ``inference.kv_cache``, ...), and
    ``value``, the figure as the keyed option writes it (``"112 GB"``); its digits set the
    rounding. Checked against the calculator by :class:`WorkedExample` and :class:`Question`."""

    figure: Annotated[StrictStr, Field(pattern=r"^[a-z_]+(\.[a-z_]+)?$")]
    value: Text

    @field_validator("figure")
    @classmethod
    def _known_figure(cls, name: str) -> str:
        if name not in FIGURES:
            close = difflib.get_close_matches(name, list(FIGURES), n=1, cutoff=0.6)
            raise PydanticCustomError(
                "unknown_figure",
                "unknown figure {name}{hint}; figures: params, training.total, "
                "training.<item>, inference.total, inference.<item>, storage.<item>, ... "
                "(see FORMAT.md)",
                {"name": repr(name), "hint": f" (did you mean {close[0]!r}?)" if close else ""},
            )
        return name

    @model_validator(mode="after")
    def _value_fits_figure(self) -> Expect:
        try:
            parse_value(self.value, self.kind)
        except ValueError as exc:
            raise ValidationError.from_exception_data("Expect", [InitErrorDetails(
                type=PydanticCustomError("expect_value", "{reason}", {"reason": str(exc)}),
                loc=("value",), input=self.value)]) from None
        return self

    @property
    def kind(self) -> Kind:
        """``"size"`` (bytes) or ``"count"``."""
        return FIGURES[self.figure][0]

    @property
    def quantity(self) -> Quantity:
        """``value`` parsed (exact amount and rounding step). Raises ValueError if malformed."""
        return parse_value(self.value, self.kind)


class WorkedExample(_Strict):
    """A calculator scenario whose derivation steps are shown after the answer, and optionally
    (``expect``) the figure of it that the keyed option states.

    With ``expect``, the estimate is computed while the bank loads: a figure the estimate lacks
    is an error at ``expect.figure``, a value that is not the figure rounded to the digits
    written an error at ``expect.value`` (see :mod:`quiz.bank.expect`)."""

    footprint: Scenario
    caption: StrictStr | None = None
    expect: Expect | None = None

    @model_validator(mode="after")
    def _expect_agrees(self) -> WorkedExample:
        if self.expect is None:
            return self
        exp = self.expect
        try:
            exact = self.figure()
        except FigureMissing as exc:
            loc: tuple[str, ...] = ("expect", "figure")
            raise ValidationError.from_exception_data("WorkedExample", [InitErrorDetails(
                type=PydanticCustomError("expect_figure", "{reason}", {"reason": str(exc)}),
                loc=loc, input=exp.figure)]) from None
        quantity = exp.quantity
        if not rounds_to(exact, quantity):
            raise ValidationError.from_exception_data("WorkedExample", [InitErrorDetails(
                type=PydanticCustomError(
                    "expect_disagrees",
                    "the calculator gives {figure} = {exact} ({given}), which rounded to the "
                    "digits written is not {value}; write the calculator's figure "
                    "(quiz footprint ... --json)",
                    {"figure": exp.figure, "exact": shown(exact, exp.kind, quantity.scale),
                     "given": shown(exact, exp.kind, "B"), "value": repr(exp.value)}),
                loc=("expect", "value"), input=exp.value)])
        return self

    def figure(self) -> int:
        """The calculator's exact ``expect.figure`` for this scenario (bytes, or a count).

        Computed once per scenario and figure (:func:`_figure`): a bank checks each worked
        example twice, and many questions share a scenario.

        Raises:
            ValueError: there is no ``expect``.
            FigureMissing: the estimate lacks the figure (the message says why).
        """
        if self.expect is None:
            raise ValueError("this worked example has no 'expect'")
        return _figure(self.footprint, self.expect.figure)


_FIGURES: dict[tuple[FootprintSpec, str], int | str] = {}
"""Figures computed by :func:`_figure`: (scenario, figure name) → the exact figure, or the
message of the :class:`~quiz.bank.expect.FigureMissing` it raised."""

_FIGURES_KEPT = 4096
"""Most figures kept in :data:`_FIGURES` (it is emptied when full)."""


def _figure(spec: FootprintSpec, name: str) -> int:
    """The calculator's exact figure ``name`` of ``spec`` (:func:`quiz.bank.expect.read_figure`
    of :func:`quiz.footprint.engine.estimate.estimate`), kept by the scenario's value: an estimate
    depends on nothing else (its presets are data files that do not change while quiz runs).
    Scenarios are frozen models, equal when their values are; one that cannot be hashed is
    estimated each time.

    Raises:
        FigureMissing: the estimate lacks the figure.
    """
    try:
        key = (spec, name)
        found = _FIGURES.get(key)
    except TypeError:  # a value that cannot be hashed
        key, found = None, None
    if found is None:
        from quiz.footprint.engine.estimate import estimate

        try:
            found = read_figure(estimate(spec), name)
        except FigureMissing as exc:
            found = str(exc)
        if key is not None:
            if len(_FIGURES) >= _FIGURES_KEPT:
                _FIGURES.clear()
            _FIGURES[key] = found
    if isinstance(found, str):
        raise FigureMissing(found)
    return found


_VARIANTS: dict[tuple[int, tuple[tuple[str, Any], ...]], tuple[Question, Question]] = {}
"""Variants rendered by :meth:`Question.with_variant`, by (question, values): a question drawn
again in a session is rendered once."""


class Question(_Strict):
    """One question.

    ``stem`` is written ``question:`` in YAML. ``answer`` is one option key, or a list of two or
    more keys for a multiple-response ("choose N") question. ``distractor_review`` has one entry per
    wrong option and none for a right one.
    """

    model_config = ConfigDict(populate_by_name=True)

    id: Slug
    topic: Slug
    difficulty: Literal["easy", "medium", "hard"] | None = None
    tags: list[Slug] = Field(default_factory=list)
    stem: Text = Field(alias="question")
    options: dict[OptionKey, Text]
    answer: OptionKey | list[OptionKey]
    shuffle: bool = True
    short_explanation: Text
    infographic: Infographic | None = None
    full_explanation: Text
    distractor_review: dict[OptionKey, Text]
    worked_example: WorkedExample | None = None
    references: list[Text] = Field(default_factory=list)
    lint: LintSettings | None = None
    answer_figure: StrictStr | None = Field(default=None, description=(
        "Computed questions: the calculator figure the keyed option states, as a placeholder's "
        "inside (figure | UNIT:digits); the options, answer and distractor reviews are then "
        "generated from 'misconceptions' (FORMAT.md, Computed questions)."),
        examples=["training.model_states | GB:1"])
    """Computed questions: the figure the key states (``training.model_states | GB:1``); the
    options are generated (:mod:`quiz.bank.computed`)."""
    misconceptions: list[StrictStr] = Field(default_factory=list, description=(
        "With answer_figure: the misconceptions that generate the distractors, in order of "
        "preference (a collision moves on to the next); names from the catalog in FORMAT.md."),
        examples=[["forget-optimizer-states", "forget-master-weights", "gib-labelled-gb"]])
    """The misconceptions that generate the distractors, in order of preference."""
    distractors: int | None = Field(default=None, ge=1, le=7, description=(
        "With answer_figure: how many distractors to generate (default 3, or fewer "
        "misconceptions)."), examples=[3])
    """How many distractors to generate (default: 3, or fewer misconceptions)."""
    misconception_reviews: dict[StrictStr, Text] | None = Field(default=None, description=(
        "With answer_figure: this question's own review of the distractor a misconception "
        "generates, by misconception name (one listed in 'misconceptions'), instead of the "
        "catalog's; {value}, {key} and {part} are filled in, placeholders work as in any text."),
        examples=[{"forget-optimizer-states": "{value} leaves out SGD's momentum buffer "
                   "({part}), 4 bytes per parameter; the full count is {key}."}])
    """A question's own wording of a misconception's distractor review, by name."""
    vary: dict[StrictStr, list[StrictStr]] | None = Field(default=None, description=(
        "Scenario keys of worked_example.footprint, dotted, to lists of values: each time the "
        "question is drawn one combination is used (at most 64 combinations)."),
        examples=[{"model": ["llama-2-7b", "llama-2-13b"], "inference.batch": ["1", "8"]}])
    """Scenario keys (dotted) → the values a variant draws from."""

    _template: dict[str, Any] | None = PrivateAttr(default=None)
    _variant: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _render_computed(cls, value: Any, handler: ModelWrapValidatorHandler[Self],
                         info: ValidationInfo) -> Self:
        """A computed question (placeholders, ``answer_figure`` or ``vary``: see
        :mod:`quiz.bank.computed`) is rendered for one variant, then validated as any other
        question. Its raw values are kept for other variants (:meth:`with_variant`)."""
        from quiz.bank.computed.template import (
            COMPUTED_KEYS,
            ComputedErrors,
            is_computed,
            render_question,
        )

        context = info.context if isinstance(info.context, dict) else {}
        hinted = context.get("placeholders")
        if hinted is not None and isinstance(value, dict) and id(value) not in hinted and \
                value.keys().isdisjoint(COMPUTED_KEYS):
            return handler(value)  # the loader saw no '{{' in its lines: nothing to render
        if not is_computed(value):
            return handler(value)
        variant = context.get("variant")
        try:
            rendered, chosen = render_question(value, _scenario, variant,
                                               check_all=variant is None)
        except ComputedErrors as exc:
            raise ValidationError.from_exception_data("Question", [InitErrorDetails(
                type=PydanticCustomError("computed", "{reason}", {
                    "reason": e.message, **({} if e.offset is None else {"offset": e.offset})}),
                loc=e.loc, input=None) for e in exc.errors]) from None
        except ValidationError as exc:  # the scenario as written
            raise ValidationError.from_exception_data("Question", [InitErrorDetails(
                type=PydanticCustomError("computed", "{reason}", {"reason": e["msg"]}),
                loc=("worked_example", "footprint", *e["loc"]), input=None)
                for e in exc.errors(include_url=False)]) from None
        question = handler(rendered)
        question._template = value
        question._variant = chosen
        return question

    def __eq__(self, other: object) -> bool:
        """Questions are equal when their fields are: a computed question equals the plain
        question that states what it renders (an export read back), whatever raw values
        (``_template``) it keeps for its other variants."""
        if not isinstance(other, Question):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = _Strict.__hash__

    @property
    def computed(self) -> bool:
        """True for a computed question: its text and options come from the calculator."""
        return self._template is not None

    @property
    def variant(self) -> dict[str, Any]:
        """The values this rendering drew, keyed as in ``vary`` (``{}`` without ``vary``)."""
        return dict(self._variant)

    def variants(self) -> list[dict[str, Any]]:
        """Every variant of this question, in order (``[{}]`` without ``vary``)."""
        from quiz.bank.computed.template import variants_of

        return variants_of(self.vary)

    def with_variant(self, values: dict[str, Any]) -> Question:
        """This question rendered for the variant ``values`` (one of :meth:`variants`); itself
        when that is the variant it shows. Every variant was checked when the bank loaded.

        Raises:
            ValueError: this question has no such variant.
        """
        if self._template is None or values == self._variant:
            if values and values != self._variant:
                raise ValueError(f"question {self.id} has no variant {values}")
            return self
        if values not in self.variants():
            raise ValueError(f"question {self.id} has no variant {values}")
        key = (id(self), tuple(values.items()))
        found = _VARIANTS.get(key)
        if found is None or found[0] is not self:
            if len(_VARIANTS) >= 1024:
                _VARIANTS.clear()
            rendered = type(self).model_validate(self._template, context={"variant": values})
            found = _VARIANTS[key] = (self, rendered)
        return found[1]

    @field_validator("options")
    @classmethod
    def _options_lettered_in_order(cls, options: dict[str, str]) -> dict[str, str]:
        if len(options) < 2:
            raise PydanticCustomError("too_few_options", "a question needs at least 2 options")
        expected = OPTION_KEYS[: len(options)]
        if "".join(options) != expected:
            raise PydanticCustomError(
                "option_letters",
                "options must be lettered {expected} in this order (found {found})",
                {"expected": ", ".join(expected), "found": ", ".join(options)},
            )
        return options

    @property
    def answer_keys(self) -> frozenset[str]:
        """The set of right option keys (one key for a single-answer question)."""
        return frozenset([self.answer] if isinstance(self.answer, str) else self.answer)

    @property
    def multiple_response(self) -> bool:
        """True when the answer is a list: the student must choose exactly ``len(answer_keys)``."""
        return isinstance(self.answer, list)

    def letter_references(self) -> list[tuple[tuple[str, ...], LetterReference]]:
        """Each place where an option, an explanation or a review names options by letter or by
        position ("Both A and B", "Option C", "All of the above"; see
        :mod:`quiz.bank.option_letters`), as ``(path of the field, reference)``; the path is
        ``("options", "C")``, ``("full_explanation",)``, ``("distractor_review", "A")``..."""
        options, reviews = self.options, self.distractor_review
        found = references_in([*options.values(), self.short_explanation,
                               self.full_explanation, *reviews.values()], options)
        if not found:
            return []
        paths = [*(("options", key) for key in options), ("short_explanation",),
                 ("full_explanation",), *(("distractor_review", key) for key in reviews)]
        return [(paths[i], ref) for i, ref in found]

    @property
    def keeps_order(self) -> bool:
        """True when the options are shown in bank order, never shuffled: ``shuffle: false``, or
        text that names options by letter or position (:meth:`letter_references`), which
        shuffling would make false."""
        return not self.shuffle or bool(self.letter_references())

    @property
    def calculator_spec(self) -> FootprintSpec | None:
        """The footprint scenario the calculator opens with from this question: its worked
        example, else its footprint infographic, else ``None``."""
        if self.worked_example is not None:
            return self.worked_example.footprint
        if self.infographic is not None:
            return self.infographic.footprint
        return None

    @model_validator(mode="after")
    def _answer_and_reviews_agree(self) -> Question:
        errors = answer_errors(self.answer, self.options)
        right = None if errors else self.answer_keys
        errors += review_errors(self.distractor_review, self.options, right)
        errors += same_options_errors(self.options)
        if right is not None:
            def err(loc: Loc, kind: str, msg: str, value: Any, **ctx: Any) -> None:
                errors.append(error(loc, kind, msg, value, **ctx))

            self._expect_stated_by_key(err, set(right))
        raise_if_any("Question", errors)
        return self


    def _expect_stated_by_key(self, err: Any, right: set[str]) -> None:
        """The keyed option states ``expect.value``; every figure a distractor states differs from
        the calculator's by at least the rounding step of ``expect.value`` (one unit of its last
        digit: 1 GB for "112 GB"; any other whole number for a count such as "2 GPUs")."""
        example = self.worked_example
        if example is None or example.expect is None or not right <= set(self.options):
            return
        exp = example.expect
        quantity = exp.quantity
        if not any(states(self.options[k], exp.value) for k in sorted(right)):
            err(("worked_example", "expect", "value"), "expect_not_in_key",
                "no keyed option ({keys}) states {expected} as written; the keyed option must "
                "contain the expected value word for word", exp.value,
                keys=", ".join(sorted(right)), expected=repr(exp.value))
        exact = example.figure()
        for key, text in self.options.items():
            if key in right:
                continue
            for found in quantities_in(text, quantity, exp.kind):
                if abs(found.amount - exact) < quantity.step:
                    err(("options", key), "expect_distractor_close",
                        "this distractor states {found}, less than {step} from the calculator's "
                        "{figure} ({exact}): it reads as right; make it differ by at least "
                        "the rounding step of the expected value {expected}", text,
                        found=repr(found.text), step=quantity.step_text,
                        figure=exp.figure, exact=shown(exact, exp.kind, quantity.scale or "B"),
                        expected=repr(exp.value))


def _question_private_defaults(self: Question, context: Any, /) -> None:
    """``Question``'s private attributes at their defaults, as pydantic's generic
    ``init_private_attributes`` sets them after validation, in one call instead of its eleven
    (40 ms of a 10,000-question bank)."""
    if getattr(self, "__pydantic_private__", None) is None:
        object.__setattr__(self, "__pydantic_private__", {"_template": None, "_variant": {}})


Question.model_post_init = _question_private_defaults  # type: ignore[method-assign,assignment]


class BankInfo(_Strict):
    """The ``bank:`` header: a stable ``id``, a ``title``, a format ``version``, the exam
    ``pass_mark`` (a fraction 0–1), the exam ``time_limit`` (minutes, optional) and the
    ``topics`` (key → display name)."""

    id: Slug
    title: Text
    version: int = Field(default=1, ge=1)
    pass_mark: float = Field(default=0.7, ge=0.0, le=1.0)
    time_limit: float | None = Field(default=None, gt=0.0, le=1440.0)
    """Minutes allowed for an exam from this bank (exam mode's clock); ``None``: 1.2 minutes
    per question."""
    description: Text | None = None
    topics: dict[Slug, Text] = Field(default_factory=dict)
    lint: LintSettings | None = None


class BankFile(_Strict):
    """One bank file: the ``bank:`` header and its ``questions``.

    Question ids are unique within the file (and across a library: see
    :func:`quiz.bank.load.load_library`); every question's topic is declared in ``bank.topics``
    when that mapping is given.
    """

    bank: BankInfo
    questions: list[Question] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids_unique_topics_known(self) -> BankFile:
        errors: list[InitErrorDetails] = []
        first: dict[str, int] = {}
        for i, q in enumerate(self.questions):
            if q.id in first:
                errors.append(error(("questions", i, "id"), "duplicate_id",
                                     "question id '{id}' is already used by question {n} of this "
                                     "file", q.id, id=q.id, n=first[q.id] + 1))
            else:
                first[q.id] = i
            errors += [{**e, "loc": ("questions", i, *e["loc"])}
                       for e in topic_errors(q.topic, self.bank.topics)]
        raise_if_any("BankFile", errors)
        return self
