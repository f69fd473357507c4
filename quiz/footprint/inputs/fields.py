"""The calculator's fields, declared once: validation, bounds, defaults and wording together.

Every field of a :class:`~quiz.footprint.inputs.spec.FootprintSpec` is an annotated pydantic field
whose
metadata says everything the rest of the program needs:

* a validator that is also data — :class:`Number` (a whole number with its bounds and unit),
  :class:`Choice` (one of a fixed tuple), :data:`YES_NO`, :data:`ZERO_STAGE` — so banks, the CLI
  and the TUI accept exactly the same values with the same messages;
* a :class:`Doc`: the help text, the TUI form label, the CLI metavar and group, and how the
  default reads when it is not a plain value.

:func:`spec_fields` reads them back as a flat list of :class:`SpecField`, in the models' order.
From that list :mod:`quiz.cli.footprint` builds the ``quiz footprint`` flags and ``--help``, the
TUI builds the calculator form, and :func:`format_table` writes the key table of
``question_bank/FORMAT.md`` (a test keeps the file equal to it). Model presets are validated by
:class:`ModelShape`, the same architecture fields. Adding a field means declaring it in one model
here or in :mod:`quiz.footprint.inputs.spec` — and writing its formula.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, ValidationError, model_validator
from pydantic_core import CoreSchema, InitErrorDetails, PydanticCustomError, core_schema

from quiz.footprint.inputs.arch import Norm
from quiz.footprint.inputs.units import TooLarge, format_count, parse_bool, parse_count
from quiz.footprint.inputs.units import parse_size as _parse_size

Precision = Literal["fp32", "mixed-fp16", "mixed-bf16", "bf16", "mixed-fp8"]
GradPrecision = Literal["fp32", "fp16", "bf16"]
Optimizer = Literal["sgd", "sgd-momentum", "adam", "adamw", "adam-8bit", "adafactor"]
Recompute = Literal["none", "selective", "full"]
WeightFormat = Literal[
    "fp32", "fp16", "bf16", "fp8", "int8", "int4",
    # named schemes (quiz/footprint/quant.py SCHEMES)
    "fp8-channel", "gptq-int4", "gptq-int4-sym", "awq-int4", "bnb-int8", "bnb-nf4", "bnb-nf4-dq",
    "bnb-fp4", "bnb-fp4-dq", "gguf-q8_0", "gguf-q6_k", "gguf-q5_k_m", "gguf-q5_k_s",
    "gguf-q4_k_m", "gguf-iq4_xs", "gguf-q4_0", "gguf-q3_k_m", "gguf-q2_k",
]
ScaleDtype = Literal["fp16", "bf16", "fp32", "fp8"]
ZeroPoint = Literal["none", "int4", "int8", "fp16", "bf16"]
KvDtype = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]
Phase = Literal["training", "inference", "both"]
Units = Literal["GB", "GiB"]
CheckpointKind = Literal["full", "weights"]
Convention = Literal["practice", "paper", "deepspeed"]
Attention = Literal["flash", "eager"]
Offload = Literal["none", "cpu", "nvme"]
Finetune = Literal["full", "lora", "qlora"]
LoraTarget = Literal["q", "k", "v", "o", "gate", "up", "down"]

CHOICES: dict[str, tuple[str, ...]] = {
    "precision": get_args(Precision),
    "grad_precision": get_args(GradPrecision),
    "optimizer": get_args(Optimizer),
    "recompute": get_args(Recompute),
    "weights": get_args(WeightFormat),
    "kv_dtype": get_args(KvDtype),
    "scale_dtype": get_args(ScaleDtype),
    "zero_point": get_args(ZeroPoint),
    "phase": get_args(Phase),
    "units": get_args(Units),
    "checkpoint_kind": get_args(CheckpointKind),
    "norm": get_args(Norm),
    "convention": get_args(Convention),
    "attention": get_args(Attention),
    "offload": get_args(Offload),
    "offload_params": get_args(Offload),
    "finetune": get_args(Finetune),
    "lora_targets": get_args(LoraTarget),
}
"""Allowed values of each choice field (the CLI, the TUI and the docs use the same tuples)."""


@dataclass(frozen=True, slots=True)
class Doc:
    """How a field is presented.

    Attributes:
        help: what the field means, one phrase without its default ("data-parallel size"); the
            ``--help`` text and the meaning column of FORMAT.md.
        label: the TUI form's label, or ``None`` when the form does not show the field.
        metavar: the CLI metavar of a number or name (``N``, ``SIZE``, ``PRESET``); choices
            list their values instead.
        group: the ``--help`` group of a top-level field (``model``, ``architecture``,
            ``output``; empty: ungrouped); nested fields are grouped by their section.
        default: how the default reads when the model's default is ``None`` ("as the weights");
            ``None`` when there is no default worth stating.
        values: FORMAT.md's example values when the generic text for the kind is not enough.
    """

    help: str
    label: str | None = None
    metavar: str | None = None
    group: str = ""
    default: str | None = None
    values: str | None = None


def _shown(value: object) -> str:
    """A value as the person gave it: an ``int`` with separators, anything else as its repr."""
    if isinstance(value, int) and not isinstance(value, bool):
        return format_count(value)
    return repr(value)


@dataclass(frozen=True, slots=True)
class Number:
    """Validator metadata: a whole number from ``minimum`` to ``maximum``; text is parsed by
    :func:`~quiz.footprint.inputs.units.parse_count` (``7B``, ``6.7e9``) or, with ``size``,
    :func:`~quiz.footprint.inputs.units.parse_size` (``500GB``, ``80GiB``). ``unit`` is the noun of
    the
    bound in the message ("must be at most 1,000,000,000 (10^9) tokens").

    Errors (``PydanticCustomError``): ``number`` (not a number), ``number_range`` (too small or
    too large, naming the bound)."""

    minimum: int
    maximum: int
    unit: str = ""
    size: bool = False

    @property
    def limit(self) -> str:
        """The upper bound as printed: ``1,000,000 (10^6) devices``."""
        text = format_count(self.maximum)
        power = len(str(self.maximum)) - 1
        if self.maximum >= 10**4 and self.maximum == 10**power:
            text += f" (10^{power})"
        return text + (f" {self.unit}" if self.unit else "")

    @property
    def short_limit(self) -> str:
        """The upper bound in short form: ``10^6`` (or ``64``)."""
        power = len(str(self.maximum)) - 1
        if self.maximum >= 10**4 and self.maximum == 10**power:
            return f"10^{power}"
        return format_count(self.maximum)

    def parse(self, value: Any) -> int:
        """The whole number in ``value`` (bounds not checked).

        Raises:
            TooLarge, TypeError, ValueError: as the units parser does.
        """
        return _parse_size(value) if self.size else parse_count(value)

    def check(self, value: Any) -> int:
        """Parse and bound-check ``value``; raises ``PydanticCustomError``."""
        try:
            number = self.parse(value)
        except TooLarge as exc:
            raise PydanticCustomError(
                "number_range",
                "must be at most {limit} (got {got})",
                {"limit": self.limit, "got": _shown(exc.original)},
            ) from None
        except (TypeError, ValueError) as exc:
            raise PydanticCustomError("number", "{reason}", {"reason": str(exc)}) from None
        if number < self.minimum:
            what = "positive" if self.minimum == 1 else "zero or more"
            raise PydanticCustomError(
                "number_range",
                "must be {what} (got {got})",
                {"what": what, "got": format_count(number)},
            )
        if number > self.maximum:
            raise PydanticCustomError(
                "number_range",
                "must be at most {limit} (got {got})",
                {"limit": self.limit, "got": format_count(number)},
            )
        return number

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_before_validator_function(self.check, handler(source))


@dataclass(frozen=True, slots=True)
class Tera(Number):
    """A :class:`Number` given in units of 10^12 (TFLOPS): ``165.2`` → 165,200,000,000,000;
    text with its own count suffix (``"165.2T"``) is read as it is."""

    def parse(self, value: Any) -> int:
        """``value`` × 10^12 unless it carries a count suffix."""
        if isinstance(value, bool):
            return parse_count(value)
        text = str(value).strip()
        if text and text[-1].isdigit():
            text += "T"
        return parse_count(text)


@dataclass(frozen=True, slots=True)
class Ratio:
    """Validator metadata: a fraction above 0 and at most 1, given as a number (``0.4``) or a
    percentage (``"40%"``); the value is a ``float`` whose decimal text is exact (``0.4``), so
    ``round(value × 10^6)`` is exact for integer arithmetic (six decimals at most).

    Errors (``PydanticCustomError``): ``ratio`` (not a number), ``ratio_range`` (outside (0, 1]).
    """

    what: str = "fraction"

    def check(self, value: Any) -> float:
        """Parse and bound-check ``value``; raises ``PydanticCustomError``."""
        if isinstance(value, bool):
            value = str(value)
        text = value.strip() if isinstance(value, str) else value
        scale = 1.0
        if isinstance(text, str) and text.endswith("%"):
            text, scale = text[:-1].strip(), 100.0
        try:
            number = float(text) / scale
        except (TypeError, ValueError):
            raise PydanticCustomError(
                "ratio", "expected a {what} such as 0.4 or 40% (got {got})",
                {"what": self.what, "got": repr(value)},
            ) from None
        if not 0 < number <= 1:  # also refuses nan
            raise PydanticCustomError(
                "ratio_range", "must be above 0 and at most 1 (100%) (got {got})",
                {"got": repr(value)},
            )
        return round(number, 6)

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_before_validator_function(self.check, handler(source))


@dataclass(frozen=True, slots=True)
class Choice:
    """Validator metadata: one of :data:`CHOICES` ``[name]``, case-insensitive, ``_`` and ``-``
    alike (``gguf-Q4-K-M`` is ``gguf-q4_k_m``); anything else is an error ``choice`` listing the
    values, with a "did you mean"."""

    name: str

    @property
    def allowed(self) -> tuple[str, ...]:
        """The values, in their canonical spelling."""
        return CHOICES[self.name]

    def check(self, value: Any) -> Any:
        """The canonical spelling of ``value``; raises ``PydanticCustomError``."""
        allowed = self.allowed
        if not isinstance(value, str):
            raise PydanticCustomError(
                "choice", "expected text, one of: {allowed}", {"allowed": ", ".join(allowed)}
            )
        canonical = {a.lower().replace("_", "-"): a for a in allowed}
        key = value.strip().lower().replace("_", "-")
        if key in canonical:
            return canonical[key]
        close = difflib.get_close_matches(key, list(canonical), n=1, cutoff=0.6)
        hint = f"; did you mean {canonical[close[0]]!r}?" if close else ""
        raise PydanticCustomError(
            "choice",
            "unknown {field} {value}; expected one of: {allowed}{hint}",
            {
                "field": self.name.replace("_", " "),
                "value": repr(value),
                "allowed": ", ".join(allowed),
                "hint": hint,
            },
        )

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_before_validator_function(self.check, handler(source))


@dataclass(frozen=True, slots=True)
class ChoiceList:
    """Validator metadata: some of :data:`CHOICES` ``[name]``, as text separated by commas
    (``"q,v"``, ``"q, v"``) or as a list (``[q, v]``), or ``all``; case-insensitive, ``-`` read as
    ``_``, a trailing ``suffix`` dropped (``q_proj`` → ``q``: the module names of Hugging Face
    models) and ``all_linear`` read as ``all`` (PEFT's spelling). The value is canonical text:
    ``"all"`` when every value is named, else the values named, in the order of
    :data:`CHOICES`, joined by ``,`` (``"q,v"``); repeats are harmless.

    Errors (``PydanticCustomError``): ``choice_list`` — an unknown value (named, with a "did
    you mean"), an empty list, or neither text nor a list of text."""

    name: str
    noun: str
    suffix: str = ""

    @property
    def allowed(self) -> tuple[str, ...]:
        """The values, in their canonical spelling and order."""
        return CHOICES[self.name]

    def _expected(self) -> str:
        return f"{', '.join(self.allowed)}, or all"

    def check(self, value: Any) -> str:
        """The canonical text of ``value``; raises ``PydanticCustomError``."""
        if isinstance(value, str):
            parts = value.split(",")
        elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            parts = list(value)
        else:
            raise PydanticCustomError(
                "choice_list", "expected {noun}s separated by commas, some of: {allowed}",
                {"noun": self.noun, "allowed": self._expected()},
            )
        words = [p.strip().lower().replace("-", "_") for p in parts]
        words = [w for w in words if w]
        if not words:
            raise PydanticCustomError(
                "choice_list", "give at least one {noun}: {allowed}",
                {"noun": self.noun, "allowed": self._expected()},
            )
        chosen: set[str] = set()
        for word in words:
            if self.suffix and word.endswith(self.suffix):
                word = word[: -len(self.suffix)]
            if word in ("all", "all_linear"):
                return "all"
            if word in self.allowed:
                chosen.add(word)
                continue
            close = difflib.get_close_matches(word, [*self.allowed, "all"], n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise PydanticCustomError(
                "choice_list", "unknown {noun} {value}; expected some of: {allowed}{hint}",
                {"noun": self.noun, "value": repr(word), "allowed": self._expected(),
                 "hint": hint},
            )
        if len(chosen) == len(self.allowed):
            return "all"
        return ",".join(a for a in self.allowed if a in chosen)

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: Any) -> dict[str, Any]:
        # Editors: text separated by commas, or a YAML list of text.
        return {"anyOf": [{"type": "string"},
                          {"type": "array", "items": {"type": "string"}, "minItems": 1}]}

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_before_validator_function(self.check, handler(source))


def choice_list_values(text: str, name: str) -> tuple[str, ...]:
    """The values of the canonical text of a :class:`ChoiceList` field: ``"all"`` → every value
    of :data:`CHOICES` ``[name]``; ``"q,v"`` → ``("q", "v")``."""
    return CHOICES[name] if text == "all" else tuple(text.split(","))


@dataclass(frozen=True, slots=True)
class _Check:
    """Validator metadata around a plain function (yes/no, ZeRO stage)."""

    kind: str
    function: Callable[[Any], Any]

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_before_validator_function(self.function, handler(source))


def _yes_no(value: Any) -> bool:
    try:
        return parse_bool(value)
    except ValueError as exc:
        raise PydanticCustomError("yes_no", "{reason}", {"reason": str(exc)}) from None


def _zero_stage(value: Any) -> int:
    try:
        stage = parse_count(value)
    except (TypeError, ValueError):
        stage = None
    if stage not in (0, 1, 2, 3):
        raise PydanticCustomError(
            "zero_stage", "ZeRO stage must be 0, 1, 2 or 3 (got {got})", {"got": value}
        )
    return stage


YES_NO = _Check("yes_no", _yes_no)
"""A yes/no value (text accepted: true/false, yes/no, on/off)."""
ZERO_STAGE = _Check("zero", _zero_stage)
"""A ZeRO stage: 0, 1, 2 or 3."""

MAX_PARAMS = 10**15
"""Largest parameter count, given or computed from an architecture."""


class Part(BaseModel):
    """Base of the spec models: immutable; an unknown key is an error with a hint."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @model_validator(mode="wrap")
    @classmethod
    def _known_keys(cls, data: Any, handler: Any) -> Any:
        # Unknown keys get a "did you mean" hint and are reported together with every other
        # error of the mapping (a "before" validator would hide those until the key is fixed).
        if not isinstance(data, Mapping):
            return handler(data)
        fields = cls.__pydantic_fields__
        if all(key in fields for key in data):
            return handler(data)
        known = list(fields)
        errors: list[Any] = []
        for key in data:
            if key in fields:
                continue
            text = str(key)
            close = difflib.get_close_matches(text.replace("-", "_"), known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            errors.append(
                InitErrorDetails(
                    type=PydanticCustomError(
                        "unknown_key", "unknown key {key}{hint}", {"key": repr(text), "hint": hint}
                    ),
                    loc=(text,),
                    input=data[key],
                )
            )
        try:
            handler({k: v for k, v in data.items() if k in fields})
        except ValidationError as exc:
            errors.extend(
                InitErrorDetails(type=PydanticCustomError(e["type"], e["msg"]), loc=e["loc"],
                                 input=e["input"])
                for e in exc.errors(include_url=False)
            )
        raise ValidationError.from_exception_data(cls.__name__, errors)


_ARCH = "architecture"


class ModelShape(Part):
    """The architecture fields of a spec (all optional: a preset or the defaults fill them in);
    model presets (``presets/models.yaml``) are validated by this same model when they load."""

    layers: Annotated[int, Number(1, 10**5, "layers"),
                      Doc("transformer layers", metavar="N", group=_ARCH)] | None = None
    hidden: Annotated[int, Number(1, 10**7),
                      Doc("hidden size (d_model)", metavar="N", group=_ARCH)] | None = None
    heads: Annotated[int, Number(1, 10**5, "heads"),
                     Doc("attention (query) heads", metavar="N", group=_ARCH)] | None = None
    kv_heads: Annotated[int, Number(1, 10**5, "heads"),
                        Doc("key/value heads (fewer than heads: grouped-query attention)",
                            metavar="N", group=_ARCH, default="heads")] | None = None
    head_dim: Annotated[int, Number(1, 10**6),
                        Doc("size of one head", metavar="N", group=_ARCH,
                            default="hidden / heads")] | None = None
    ffn: Annotated[int, Number(1, 10**8),
                   Doc("MLP inner size (per expert)", metavar="N", group=_ARCH)] | None = None
    vocab: Annotated[int, Number(1, 10**9, "entries"),
                     Doc("vocabulary size", metavar="N", group=_ARCH)] | None = None
    tied_embeddings: Annotated[bool, YES_NO,
                               Doc("the LM head shares the embedding matrix", group=_ARCH,
                                   default="false")] | None = None
    gated_mlp: Annotated[bool, YES_NO,
                         Doc("gated (SwiGLU) MLP with 3 matrices", group=_ARCH,
                             default="true")] | None = None
    norm: Annotated[Norm | None, Choice("norm"),
                    Doc("normalisation layers", group=_ARCH, default="rmsnorm")] = None
    linear_bias: Annotated[bool, YES_NO,
                           Doc("linear layers have biases", group=_ARCH,
                               default="false")] | None = None
    learned_positions: Annotated[int, Number(0, 10**9, "positions"),
                                 Doc("rows of a learned position table (0: rotary)", metavar="N",
                                     group=_ARCH, default="0")] | None = None
    experts: Annotated[int, Number(1, 10**5, "experts"),
                       Doc("mixture of experts: experts per layer (memory counts all)",
                           metavar="N", group=_ARCH, default="1")] | None = None
    active_experts: Annotated[int, Number(1, 10**5, "experts"),
                              Doc("mixture of experts: experts active per token", metavar="K",
                                  group=_ARCH)] | None = None
    sliding_window: Annotated[int, Number(1, 10**9, "tokens"),
                              Doc("sliding attention window", metavar="TOKENS",
                                  group=_ARCH)] | None = None
    sliding_layers: Annotated[int, Number(0, 10**5, "layers"),
                              Doc("layers with the sliding window", metavar="N", group=_ARCH,
                                  default="all")] | None = None


ARCH_FIELDS: tuple[str, ...] = tuple(ModelShape.model_fields)
"""The architecture fields, in the order of :class:`~quiz.footprint.inputs.arch.Architecture`."""

Kind = Literal["count", "size", "ratio", "choice", "list", "yes_no", "zero", "preset"]


@dataclass(frozen=True, slots=True)
class SpecField:
    """One field of a spec as every front end sees it (see :func:`spec_fields`).

    ``key`` is the bank path (``"training.dp"``), ``section`` the nested mapping (``None`` at the
    top), ``name`` the key inside it; ``kind`` picks the widget and the flag's shape; ``number``
    and ``choices`` carry the bounds and the allowed values; ``default`` is the model's default
    (``None``: none, or computed — then ``doc.default`` says how it reads)."""

    key: str
    section: str | None
    name: str
    kind: Kind
    doc: Doc
    default: Any
    number: Number | None = None
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        """The ``quiz footprint`` flag: ``--micro-batch``."""
        return "--" + self.name.replace("_", "-")

    @property
    def default_text(self) -> str | None:
        """The default as a person reads it, or ``None``."""
        if self.doc.default is not None:
            return self.doc.default
        if self.default is None:
            return None
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, int):
            return str(self.default)
        return str(self.default)


def _metadata(annotation: Any) -> list[Any]:
    """The Annotated metadata of ``annotation``, also inside ``X | None``."""
    found: list[Any] = []
    stack = [annotation]
    while stack:
        current = stack.pop()
        if hasattr(current, "__metadata__"):
            found.extend(current.__metadata__)
        origin = get_origin(current)
        if origin is Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
            stack.extend(get_args(current))
        elif origin is Annotated:
            stack.append(get_args(current)[0])
    return found


def fields_of(model: type[BaseModel], section: str | None = None) -> list[SpecField]:
    """The documented fields of ``model`` (those with a :class:`Doc`), in declaration order."""
    out: list[SpecField] = []
    for name, info in model.model_fields.items():
        meta = list(info.metadata) + _metadata(info.annotation)
        doc = next((m for m in meta if isinstance(m, Doc)), None)
        if doc is None:
            continue
        number = next((m for m in meta if isinstance(m, Number)), None)
        choice = next((m for m in meta if isinstance(m, Choice)), None)
        ratio = next((m for m in meta if isinstance(m, Ratio)), None)
        check = next((m for m in meta if isinstance(m, _Check)), None)
        listed = next((m for m in meta if isinstance(m, ChoiceList)), None)
        kind: Kind
        choices: tuple[str, ...] = ()
        if number is not None:
            kind = "size" if number.size else "count"
        elif ratio is not None:
            kind = "ratio"
        elif choice is not None:
            kind, choices = "choice", choice.allowed
        elif listed is not None:
            kind = "list"  # typed as text (the CLI and the form); the values are in its Doc
        elif check is YES_NO:
            kind = "yes_no"
        elif check is ZERO_STAGE:
            kind, choices = "zero", ("0", "1", "2", "3")
        else:
            kind = "preset"
        key = f"{section}.{name}" if section else name
        out.append(SpecField(key, section, name, kind, doc, info.default, number, choices))
    return out


def count_text(number: Number) -> str:
    """How FORMAT.md describes a count's values: ``count, 1 to 10^6``."""
    low = "0" if number.minimum == 0 else "1"
    return f"{low} to {number.short_limit}"


def values_text(field: SpecField, presets: Mapping[str, tuple[str, ...]]) -> str:
    """The values column of FORMAT.md's key table for ``field``, with its default in brackets.

    ``presets`` maps ``"model"`` and ``"gpu"`` to preset ids (the first three are shown)."""
    if field.doc.values is not None:
        text = field.doc.values
    elif field.kind == "choice":
        text = ", ".join(f"`{c}`" for c in field.choices)
    elif field.kind == "zero":
        text = "`0`–`3`"
    elif field.kind == "yes_no":
        text = "`true` / `false`"
    elif field.kind == "ratio":
        text = "fraction above 0 up to 1, e.g. `0.4` or `40%`"
    elif field.kind == "preset":
        ids = presets.get(field.name, ())
        text = ", ".join(f"`{i}`" for i in ids[:3]) + (", …" if len(ids) > 3 else "")
    elif field.number is not None:
        what = "size" if field.kind == "size" else "count"
        text = f"{what}, {count_text(field.number)}"
        if field.number.unit:
            text += f" {field.number.unit}"
    else:  # pragma: no cover - every kind is handled above
        text = ""
    default = field.default_text
    if default is not None:
        text += f" (default {default})"
    return text


def format_table(fields: list[SpecField], presets: Mapping[str, tuple[str, ...]]) -> str:
    """FORMAT.md's footprint key table (Markdown), one row per key, in the models' order."""
    rows = ["| key | meaning | values |", "| --- | --- | --- |"]
    for f in fields:
        rows.append(f"| `{f.key}` | {f.doc.help} | {values_text(f, presets)} |")
    return "\n".join(rows)


def bounds_text(fields: list[SpecField]) -> str:
    """One line per distinct upper bound of the count and size flags, for ``--help``:
    ``--dp, --tp, --pp: 10^6 devices``."""
    groups: dict[str, list[str]] = {}
    for f in fields:
        if f.number is not None and f.number.maximum >= 10**4:
            label = f"{f.number.short_limit}" + (f" {f.number.unit}" if f.number.unit else "")
            groups.setdefault(label, []).append(f.flag)
    return "; ".join(f"{', '.join(flags)} {label}" for label, flags in groups.items())

