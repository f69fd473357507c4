"""What to estimate: :class:`FootprintSpec` and its training, inference and storage parts.

The spec is what the CLI flags express (same names, snake_case) and what a question bank writes
under ``footprint:`` (nested ``training:``, ``inference:``, ``storage:`` mappings). Because banks
hand over every scalar as the text the author typed, every number also accepts text (``"7B"``,
``"6.7b"``, ``"7e9"``, ``"4096"``, ``"1_000"``, ``"2T"``; see
:func:`~quiz.footprint.units.parse_count`) and every yes/no field accepts ``true/false/yes/no``.

Validation errors are :class:`pydantic.ValidationError` entries with a precise ``loc``:
``("training", "zero")`` → "ZeRO stage must be 0, 1, 2 or 3"; ``("training", "tp")`` →
"tensor parallel size 3 does not divide 32 attention heads"; ``("model",)`` →
"unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?". Unknown keys are errors with a
"did you mean" hint.

Upper bounds (far above any real model or cluster, low enough that every result stays an
integer a person can read; a value above one is an error "must be at most …" at its ``loc``):

=============================================  ===================================
field                                          at most
=============================================  ===================================
``params``                                     10^15 parameters (also the count an
                                               architecture gives)
``layers``, ``sliding_layers``                 10^5 layers
``hidden``                                     10^7
``heads``, ``kv_heads``                        10^5 heads
``head_dim``                                   10^6
``ffn``                                        10^8
``vocab``                                      10^9 entries
``learned_positions``                          10^9 positions
``experts``, ``active_experts``                10^5 experts
``sliding_window``                             10^9 tokens
``training.dp``, ``training.tp``, ``training.pp``  10^6 devices
``training.micro_batch``, ``inference.batch``  10^7 sequences
``training.seq_len``, ``inference.context``    10^9 tokens
``inference.group_size``                       10^7 weights
``storage.dataset_tokens``                     10^16 tokens
``storage.dataset_size``                       10^18 bytes (1 EB)
``storage.bytes_per_token``                    64 bytes
``storage.checkpoints``                        10^6 checkpoints
=============================================  ===================================
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from quiz.footprint.model_arch import Norm
from quiz.footprint.presets import GpuPreset, PresetError, get_gpu, get_model
from quiz.footprint.resolve import ResolvedModel, SpecProblem, resolve
from quiz.footprint.units import (
    TooLarge,
    count_noun,
    format_count,
    parse_bool,
    parse_count,
    parse_size,
)

Precision = Literal["fp32", "mixed-fp16", "mixed-bf16", "bf16"]
GradPrecision = Literal["fp32", "fp16", "bf16"]
Optimizer = Literal["sgd", "sgd-momentum", "adam", "adamw", "adam-8bit", "adafactor"]
Recompute = Literal["none", "selective", "full"]
WeightFormat = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4"]
KvDtype = Literal["fp32", "fp16", "bf16", "fp8", "int8"]
Phase = Literal["training", "inference", "both"]
Units = Literal["GB", "GiB"]
CheckpointKind = Literal["full", "weights"]

CHOICES: dict[str, tuple[str, ...]] = {
    "precision": get_args(Precision),
    "grad_precision": get_args(GradPrecision),
    "optimizer": get_args(Optimizer),
    "recompute": get_args(Recompute),
    "weights": get_args(WeightFormat),
    "kv_dtype": get_args(KvDtype),
    "phase": get_args(Phase),
    "units": get_args(Units),
    "checkpoint_kind": get_args(CheckpointKind),
    "norm": get_args(Norm),
}
"""Allowed values of each choice field (the CLI uses the same tuples)."""


def _choice(field: str) -> BeforeValidator:
    allowed = CHOICES[field]
    canonical = {a.lower(): a for a in allowed}

    def check(value: Any) -> Any:
        if not isinstance(value, str):
            raise PydanticCustomError(
                "choice", "expected text, one of: {allowed}", {"allowed": ", ".join(allowed)}
            )
        key = value.strip().lower().replace("_", "-")
        if key in canonical:
            return canonical[key]
        close = difflib.get_close_matches(key, list(canonical), n=1, cutoff=0.6)
        hint = f"; did you mean {canonical[close[0]]!r}?" if close else ""
        raise PydanticCustomError(
            "choice",
            "unknown {field} {value}; expected one of: {allowed}{hint}",
            {
                "field": field.replace("_", " "),
                "value": repr(value),
                "allowed": ", ".join(allowed),
                "hint": hint,
            },
        )

    return BeforeValidator(check)


def _shown(value: object) -> str:
    """A value as the person gave it: an ``int`` with separators, anything else as its repr."""
    if isinstance(value, int) and not isinstance(value, bool):
        return format_count(value)
    return repr(value)


def _number(
    minimum: int, maximum: int, unit: str = "", parser: Callable[[Any], int] = parse_count
) -> BeforeValidator:
    """A whole number from ``minimum`` to ``maximum`` (``unit``: the noun of the bound in the
    message, "must be at most 1,000,000,000 tokens")."""
    limit = format_count(maximum)
    power = len(str(maximum)) - 1
    if maximum >= 10**4 and maximum == 10**power:
        limit += f" (10^{power})"
    limit += f" {unit}" if unit else ""

    def check(value: Any) -> int:
        try:
            number: int = parser(value)
        except TooLarge as exc:
            raise PydanticCustomError(
                "number_range",
                "must be at most {limit} (got {got})",
                {"limit": limit, "got": _shown(exc.original)},
            ) from None
        except (TypeError, ValueError) as exc:
            raise PydanticCustomError("number", "{reason}", {"reason": str(exc)}) from None
        if number < minimum:
            what = "positive" if minimum == 1 else "zero or more"
            raise PydanticCustomError(
                "number_range",
                "must be {what} (got {got})",
                {"what": what, "got": format_count(number)},
            )
        if number > maximum:
            raise PydanticCustomError(
                "number_range",
                "must be at most {limit} (got {got})",
                {"limit": limit, "got": format_count(number)},
            )
        return number

    return BeforeValidator(check)


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


MAX_PARAMS = 10**15
"""Largest parameter count, given or computed from an architecture."""


def _count(maximum: int, unit: str = "") -> BeforeValidator:
    return _number(1, maximum, unit)


def _count0(maximum: int, unit: str = "") -> BeforeValidator:
    return _number(0, maximum, unit)


Size = Annotated[int, _number(1, 10**18, "bytes (1 EB)", parse_size)]
"""A size in bytes from 1 to 10^18 (text accepted: "500GB", "80 GiB", "1e12")."""
Devices = Annotated[int, _count(10**6, "devices")]
Sequences = Annotated[int, _count(10**7, "sequences")]
Tokens = Annotated[int, _count(10**9, "tokens")]
Layers = Annotated[int, _count(10**5, "layers")]
Heads = Annotated[int, _count(10**5, "heads")]
Experts = Annotated[int, _count(10**5, "experts")]
YesNo = Annotated[bool, BeforeValidator(_yes_no)]
"""A yes/no value (text accepted: true/false, yes/no, on/off)."""
ZeroStage = Annotated[int, BeforeValidator(_zero_stage)]
"""A ZeRO stage: 0, 1, 2 or 3."""


_SCALING_FIELDS = (
    "hidden",
    "ffn",
    "vocab",
    "layers",
    "experts",
    "heads",
    "kv_heads",
    "head_dim",
    "learned_positions",
)
"""Architecture fields blamed (the first one given) when the parameter count is too large."""


class _Part(BaseModel):
    """Base of the spec models: immutable; an unknown key is an error with a hint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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


class TrainingSpec(_Part):
    """How the model is trained (all sizes per device unless stated).

    ``precision``: ``fp32`` (weights, gradients and optimizer states in FP32; no master copy);
    ``mixed-fp16`` / ``mixed-bf16`` (16-bit working weights, FP32 master copy and optimizer
    states; Micikevicius et al. 2018); ``bf16`` (pure BF16: weights, gradients and optimizer
    states all BF16, no master copy). ``grad_precision`` defaults to the working weights' dtype
    (16-bit in mixed precision, as in the ZeRO paper; ``fp32`` gives the 18-byte count of
    Hugging Face's guide). ``dp × tp × pp`` devices; ZeRO stages partition over ``dp``.

    Defaults: mixed BF16, AdamW, ZeRO stage 0, one device, micro-batch 1 × 2,048 tokens, no
    recomputation.
    """

    precision: Annotated[Precision, _choice("precision")] = "mixed-bf16"
    grad_precision: Annotated[GradPrecision | None, _choice("grad_precision")] = None
    optimizer: Annotated[Optimizer, _choice("optimizer")] = "adamw"
    zero: ZeroStage = 0
    dp: Devices = 1
    tp: Devices = 1
    pp: Devices = 1
    sequence_parallel: YesNo = False
    micro_batch: Sequences = 1
    seq_len: Tokens = 2048
    recompute: Annotated[Recompute, _choice("recompute")] = "none"

    @property
    def devices(self) -> int:
        """Devices in the layout: dp × tp × pp."""
        return self.dp * self.tp * self.pp


class InferenceSpec(_Part):
    """How the model is served. ``context`` counts every token held per sequence (prompt and
    generated). ``kv_dtype`` defaults to the 16-bit activation type (FP32 for FP32 weights).
    ``group_size`` applies to INT8/INT4 weights."""

    weights: Annotated[WeightFormat, _choice("weights")] = "bf16"
    group_size: Annotated[int, _count(10**7, "weights")] = 128
    kv_dtype: Annotated[KvDtype | None, _choice("kv_dtype")] = None
    batch: Sequences = 1
    context: Tokens = 2048


class StorageSpec(_Part):
    """What is kept on disk: the dataset (``dataset_tokens`` × ``bytes_per_token``, or
    ``dataset_size`` in bytes), ``checkpoints`` kept (full training state or weights only).

    ``bytes_per_token`` defaults to the token-id width Megatron-LM picks: 2 bytes (uint16) when
    the vocabulary has fewer than 65,500 entries, else 4 (int32)."""

    dataset_tokens: Annotated[int, _count0(10**16, "tokens")] | None = None
    dataset_size: Size | None = None
    bytes_per_token: Annotated[int, _count(64, "bytes")] | None = None
    checkpoints: Annotated[int, _count0(10**6, "checkpoints")] = 1
    checkpoint_kind: Annotated[CheckpointKind, _choice("checkpoint_kind")] = "full"


class FootprintSpec(_Part):
    """A complete calculator scenario: the model, the phase(s), and how each phase runs.

    Model: a preset id (``model``), or a parameter count (``params``), or an architecture
    (``layers hidden heads ffn vocab`` at least); architecture fields given with a preset override
    it. ``gpu`` names a GPU preset for the fit (devices needed, headroom); ``units`` picks how the
    human output prints sizes (``GB`` = 10^9 bytes, ``GiB`` = 2^30 bytes; JSON is always bytes).

    Raises (on construction / :meth:`from_mapping`):
        pydantic.ValidationError: every problem at once, each with its ``loc``.
    """

    model: str | None = None
    params: Annotated[int, _count(MAX_PARAMS, "parameters")] | None = None
    layers: Layers | None = None
    hidden: Annotated[int, _count(10**7)] | None = None
    heads: Heads | None = None
    kv_heads: Heads | None = None
    head_dim: Annotated[int, _count(10**6)] | None = None
    ffn: Annotated[int, _count(10**8)] | None = None
    vocab: Annotated[int, _count(10**9, "entries")] | None = None
    tied_embeddings: YesNo | None = None
    gated_mlp: YesNo | None = None
    norm: Annotated[Norm | None, _choice("norm")] = None
    linear_bias: YesNo | None = None
    learned_positions: Annotated[int, _count0(10**9, "positions")] | None = None
    experts: Experts | None = None
    active_experts: Experts | None = None
    sliding_window: Tokens | None = None
    sliding_layers: Annotated[int, _count0(10**5, "layers")] | None = None
    phase: Annotated[Phase, _choice("phase")] = "both"
    training: TrainingSpec = TrainingSpec()
    inference: InferenceSpec = InferenceSpec()
    storage: StorageSpec = StorageSpec()
    gpu: str | None = None
    units: Annotated[Units, _choice("units")] = "GB"

    @field_validator("model", "gpu", mode="before")
    @classmethod
    def _known_preset(cls, value: Any, info: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str):
            raise PydanticCustomError("preset", "expected a preset name (text)")
        try:
            preset = get_model(value) if info.field_name == "model" else get_gpu(value)
        except PresetError as exc:
            raise PydanticCustomError(
                "unknown_preset", "{message}", {"message": str(exc)}
            ) from None
        return preset.id

    @model_validator(mode="after")
    def _consistent(self) -> FootprintSpec:
        errors: list[InitErrorDetails] = []

        def problem(loc: tuple[str, ...], kind: str, message: str, value: Any) -> None:
            errors.append(
                InitErrorDetails(
                    type=PydanticCustomError(kind, "{message}", {"message": message}),
                    loc=loc,
                    input=value,
                )
            )

        resolved = None
        try:
            resolved = resolve(self)
        except SpecProblem as exc:
            problem(exc.loc, exc.kind, exc.message, getattr(self, exc.loc[0], None))
        if resolved is not None and resolved.params > MAX_PARAMS:
            given = [f for f in _SCALING_FIELDS if getattr(self, f) is not None] or ["model"]
            problem(
                (given[0],),
                "number_range",
                f"the architecture has {format_count(resolved.params)} parameters; at most "
                f"{format_count(MAX_PARAMS)} are supported",
                getattr(self, given[0]),
            )
        if resolved is not None and self.phase != "inference":
            t = self.training
            if resolved.heads and resolved.heads % t.tp:
                problem(
                    ("training", "tp"),
                    "tp_heads",
                    f"tensor parallel size {format_count(t.tp)} does not divide "
                    f"{count_noun(resolved.heads, 'attention head')}",
                    t.tp,
                )
            if resolved.layers and resolved.layers % t.pp:
                problem(
                    ("training", "pp"),
                    "pp_layers",
                    f"pipeline parallel size {format_count(t.pp)} does not divide "
                    f"{count_noun(resolved.layers, 'layer')}",
                    t.pp,
                )
        if self.storage.dataset_tokens is not None and self.storage.dataset_size is not None:
            problem(
                ("storage", "dataset_size"),
                "dataset_twice",
                "give dataset_tokens or dataset_size, not both",
                self.storage.dataset_size,
            )
        if errors:
            raise ValidationError.from_exception_data(type(self).__name__, errors)
        return self

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> FootprintSpec:
        """Build a spec from its bank form: a mapping with nested ``training:``, ``inference:``
        and ``storage:`` mappings, scalars as numbers, booleans or text.

        Raises:
            pydantic.ValidationError: every problem, each with its ``loc`` relative to ``data``.
        """
        return cls.model_validate(data)

    def to_mapping(self) -> dict[str, Any]:
        """The bank form of this spec: only the values that differ from the defaults."""
        data = self.model_dump(mode="json", exclude_defaults=True)
        return {k: v for k, v in data.items() if v != {}}

    def replace(self, changes: Mapping[str, Any]) -> FootprintSpec:
        """Return a validated copy with ``changes`` merged in (nested mappings merge, ``None``
        resets a field to its default): ``spec.replace({"training": {"zero": 3}})``.

        Raises:
            pydantic.ValidationError: the changed spec is invalid.
        """
        data = self.model_dump(exclude_defaults=True)
        for key, value in changes.items():
            if isinstance(value, Mapping) and isinstance(data.get(key), dict):
                merged = {**data[key], **value}
                data[key] = {k: v for k, v in merged.items() if v is not None}
            elif value is None:
                data.pop(key, None)
            else:
                data[key] = value
        return type(self).model_validate(data)

    @property
    def resolved(self) -> ResolvedModel:
        """The model in exact numbers (parameter count, active count, shapes); cached."""
        return resolve(self)

    @property
    def gpu_preset(self) -> GpuPreset | None:
        """The GPU preset named by ``gpu``, or ``None``."""
        return None if self.gpu is None else get_gpu(self.gpu)

    @property
    def phases(self) -> tuple[str, ...]:
        """The phases to estimate: ``("training", "inference")``, or one of them."""
        return ("training", "inference") if self.phase == "both" else (self.phase,)


def error_lines(exc: ValidationError) -> list[tuple[tuple[str | int, ...], str]]:
    """The errors of ``exc`` as ``(loc, message)`` pairs, in order."""
    return [(tuple(err["loc"]), err["msg"]) for err in exc.errors(include_url=False)]
