"""What to estimate: :class:`FootprintSpec` and its training, inference and storage parts.

The spec is what the CLI flags express (same names, snake_case) and what a question bank writes
under ``footprint:`` (nested ``training:``, ``inference:``, ``storage:`` mappings). Because banks
hand over every scalar as the text the author typed, every number also accepts text (``"7B"``,
``"6.7b"``, ``"7e9"``, ``"4096"``, ``"1_000"``, ``"2T"``; see
:func:`~quiz.footprint.inputs.units.parse_count`) and every yes/no field accepts
``true/false/yes/no``.

Validation errors are :class:`pydantic.ValidationError` entries with a precise ``loc``:
``("training", "zero")`` → "ZeRO stage must be 0, 1, 2 or 3"; ``("training", "tp")`` →
"tensor parallel size 3 does not divide 32 attention heads"; ``("model",)`` →
"unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?". Unknown keys are errors with a
"did you mean" hint.

Every field, with its bounds (far above any real model or cluster, low enough that every result
stays an integer a person can read), default and help text, is declared once in the models below
and in :class:`quiz.footprint.inputs.fields.ModelShape`;
:func:`quiz.footprint.inputs.fields.spec_fields` lists
them for the CLI, the TUI form and FORMAT.md's key table. A value above a bound is an error
"must be at most …" at its ``loc``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from quiz.footprint.inputs.fields import (
    CHOICES,
    MAX_PARAMS,
    Choice,
    Doc,
    ModelShape,
    Number,
    Part,
    Phase,
    Ratio,
    SpecField,
    Tera,
    Units,
    fields_of,
)
from quiz.footprint.inputs.lora_targets import rank_limit
from quiz.footprint.inputs.parts import InferenceSpec, StorageSpec, TrainingSpec
from quiz.footprint.inputs.presets import GpuPreset, PresetError, custom_gpu, get_gpu, get_model
from quiz.footprint.inputs.resolve import REQUIRED_FOR_COUNT, ResolvedModel, SpecProblem, resolve
from quiz.footprint.inputs.rules import (
    ep_problems,
    gguf_problems,
    group_problems,
    hybrid_problems,
    layer_problems,
    offload_problems,
)
from quiz.footprint.inputs.units import count_noun, format_count

__all__ = ["CHOICES", "MAX_PARAMS", "FootprintSpec", "InferenceSpec", "StorageSpec",
           "TrainingSpec", "error_lines", "spec_fields"]

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

_TRAIN, _INFER, _STORE = "training", "inference", "storage"


class _ModelChoice(Part):
    """The model part of a spec that is not its shape: a preset, or a parameter count."""

    model: Annotated[str | None, Doc(
        "model preset (quiz footprint --list-presets lists them)", label="Model", metavar="PRESET",
        group="model")] = None
    params: Annotated[int, Number(1, MAX_PARAMS, "parameters"),
                      Doc("parameter count, when there is no preset: 7B, 6.7e9",
                          label="Params (custom)", metavar="N", group="model")] | None = None
    config: Annotated[str | None, Doc(
        "a Hugging Face config.json on disk to read the architecture from (nothing is "
        "downloaded)", metavar="PATH", group="model")] = None


class FootprintSpec(ModelShape, _ModelChoice):
    """A complete calculator scenario: the model, the phase(s), and how each phase runs.

    Model: a preset id (``model``), or a parameter count (``params``), or an architecture
    (``layers hidden heads ffn vocab`` at least); architecture fields given with a preset override
    it. ``gpu`` names a GPU preset for the fit (devices needed, headroom); ``units`` picks how the
    human output prints sizes (``GB`` = 10^9 bytes, ``GiB`` = 2^30 bytes; JSON is always bytes).

    Raises (on construction / :meth:`from_mapping`):
        pydantic.ValidationError: every problem at once, each with its ``loc``.
    """

    phase: Annotated[Phase, Choice("phase"), Doc("phase(s) to estimate", label="Phase")] = "both"
    training: TrainingSpec = TrainingSpec()
    inference: InferenceSpec = InferenceSpec()
    storage: StorageSpec = StorageSpec()
    overhead: Annotated[int, Number(0, 10**15, "bytes (1 PB)", size=True), Doc(
        "memory the framework takes per GPU (CUDA context, allocator fragmentation), e.g. 1GiB",
        label="Overhead/GPU", metavar="SIZE", group="output",
        values="`0`, `800MiB`, `2GB`, at most 10^15 bytes (1 PB)")] = 0
    gpu_memory: Annotated[int, Number(1, 10**15, "bytes (1 PB)", size=True), Doc(
        "your GPU's memory as the driver reports it, alone or overriding the preset's, e.g. "
        "24GB", label="GPU memory", metavar="SIZE", group="output",
        values="`24GB`, `80GiB`, at most 10^15 bytes (1 PB)")] | None = None
    gpu_bandwidth: Annotated[int, Number(1, 10**15, "bytes per second", size=True), Doc(
        "your GPU's peak memory bandwidth per second, e.g. 3.35TB (for the compute figures)",
        label="GPU bandwidth", metavar="SIZE", group="output",
        values="`936GB`, `3.35TB` per second")] | None = None
    gpu_tflops: Annotated[int, Tera(1, 10**18, "FLOP/s"), Doc(
        "your GPU's peak dense BF16/FP16 matrix TFLOPS (for the compute figures), e.g. 165.2",
        label="GPU TFLOPS", metavar="N", group="output",
        values="`165.2`, `989.4` (TFLOPS)")] | None = None
    gpu_util: Annotated[float, Ratio("usable fraction of GPU memory"), Doc(
        "fraction of GPU memory the job may use, e.g. 0.9", label="GPU usable", group="output",
        metavar="FRACTION", default="0.9 for serving (vLLM's gpu_memory_utilization), all but "
        "a 1 GiB CUDA context and allocator reserve for training, 0.75 of unified memory")
    ] | None = None
    gpu: Annotated[str | None, Doc("GPU preset for the fit, e.g. h100-80gb", label="GPU",
                                   metavar="PRESET", group="output")] = None
    units: Annotated[Units, Choice("units"),
                     Doc("how sizes print: GB = 10^9 bytes, GiB = 2^30 bytes", label="Units",
                         group="output")] = "GB"

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

        if self.gpu is None and self.gpu_memory is None and (
                self.gpu_bandwidth is not None or self.gpu_tflops is not None):
            flag = "gpu_bandwidth" if self.gpu_bandwidth is not None else "gpu_tflops"
            problem((flag,), "gpu_memory_needed",
                    "a GPU needs its memory: give --gpu-memory (or a --gpu preset to override)",
                    getattr(self, flag))
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
            for loc, kind, message, value in offload_problems(t) + layer_problems(t, resolved):
                problem(loc, kind, message, value)
            if resolved.heads and resolved.heads % t.tp:
                problem(
                    ("training", "tp"),
                    "tp_heads",
                    f"tensor parallel size {format_count(t.tp)} does not divide "
                    f"{count_noun(resolved.heads, 'attention head')}",
                    t.tp,
                )
            if t.cp > 1 and t.seq_len % (2 * t.cp):
                problem(
                    ("training", "cp"),
                    "cp_seq_len",
                    f"context parallel size {format_count(t.cp)} needs a sequence length that "
                    f"is a multiple of 2 × cp = {format_count(2 * t.cp)} (each rank takes two "
                    f"chunks, for load balance, as Megatron-LM requires); seq_len is "
                    f"{format_count(t.seq_len)}",
                    t.cp,
                )
            for loc, kind, message, value in ep_problems(t, resolved):
                problem(loc, kind, message, value)
            from quiz.footprint.inputs.format_rules import pipeline_problems

            for loc, kind, message, value in pipeline_problems(t, resolved):
                problem(loc, kind, message, value)
        if resolved is not None and self.phase != "training":
            from quiz.footprint.inputs.format_rules import inference_problems

            for loc, kind, message, value in (group_problems(self.inference, resolved)
                                              + gguf_problems(self.inference, resolved)
                                              + inference_problems(self.inference, resolved)):
                problem(loc, kind, message, value)
        if resolved is not None and resolved.arch is not None and resolved.arch.mamba_layers:
            for loc, kind, message, value in hybrid_problems(
                    None if self.phase == "inference" else self.training,
                    None if self.phase == "training" else self.inference, resolved):
                problem(loc, kind, message, value)
        if (resolved is not None and self.phase != "inference"
                and self.training.finetune != "full" and resolved.arch is None):
            method = "LoRA" if self.training.finetune == "lora" else "QLoRA"
            missing = ", ".join(k for k in REQUIRED_FOR_COUNT if getattr(resolved, k) is None)
            how = (f"a full architecture (missing: {missing})" if missing else
                   "the architecture without a parameter count (params)")
            problem(
                ("training", "finetune"),
                "finetune_shapes",
                f"{method} needs the shape of every projection: give a model preset (model) or "
                f"{how}",
                self.training.finetune,
            )
        if (resolved is not None and resolved.arch is not None and self.phase != "inference"
                and not resolved.arch.gated_mlp
                and "gate" in self.training.lora_targets.split(",")):
            problem(
                ("training", "lora_targets"),
                "lora_target_missing",
                "this model's MLP is not gated, so it has no gate projection: its MLP targets "
                "are up (the first matrix) and down",
                self.training.lora_targets,
            )
        if self.phase != "inference" and self.training.finetune != "full" \
                and self.training.precision == "mixed-fp8":
            problem(
                ("training", "precision"),
                "fp8_adapters",
                "FP8 training (mixed-fp8) is modelled for full fine-tuning; LoRA and QLoRA "
                "train in 16-bit (mixed-bf16 or mixed-fp16)",
                self.training.precision,
            )
        if self.phase != "inference" and self.training.finetune != "full" \
                and self.training.convention == "deepspeed":
            problem(
                ("training", "convention"),
                "deepspeed_adapters",
                "DeepSpeed's estimators count full fine-tuning (every parameter trained): use "
                "the paper convention with LoRA or QLoRA",
                self.training.convention,
            )
        if (resolved is not None and resolved.arch is not None and self.phase != "inference"
                and self.training.finetune != "full"):
            side, names = rank_limit(resolved.arch, self.training.lora_targets)
            if names and self.training.lora_rank > side:
                problem(
                    ("training", "lora_rank"),
                    "lora_rank",
                    f"LoRA rank {format_count(self.training.lora_rank)} is larger than the "
                    f"smallest side of the targeted matrices ({format_count(side)}: "
                    f"{', '.join(names)}), the highest rank their update can have",
                    self.training.lora_rank,
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
            elif isinstance(value, Mapping):
                data[key] = {k: v for k, v in value.items() if v is not None}
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
        """The GPU: the preset named by ``gpu`` with ``gpu_memory``, ``gpu_bandwidth`` and
        ``gpu_tflops`` overriding its figures, a custom GPU of those figures alone, or
        ``None``."""
        if self.gpu_memory is None and self.gpu_bandwidth is None and self.gpu_tflops is None:
            return None if self.gpu is None else get_gpu(self.gpu)
        return custom_gpu(self.gpu, self.gpu_memory, self.gpu_bandwidth, self.gpu_tflops)

    @property
    def phases(self) -> tuple[str, ...]:
        """The phases to estimate: ``("training", "inference")``, or one of them."""
        return ("training", "inference") if self.phase == "both" else (self.phase,)


def error_lines(exc: ValidationError) -> list[tuple[tuple[str | int, ...], str]]:
    """The errors of ``exc`` as ``(loc, message)`` pairs, in order."""
    return [(tuple(err["loc"]), err["msg"]) for err in exc.errors(include_url=False)]


def spec_fields() -> list[SpecField]:
    """Every field of a :class:`FootprintSpec`, flat, in declaration order: the model and its
    shape, phase, GPU and units, then ``training.*``, ``inference.*`` and ``storage.*``. The
    CLI flags, the TUI form and FORMAT.md's key table are built from this list."""
    return [
        *fields_of(FootprintSpec),
        *fields_of(TrainingSpec, _TRAIN),
        *fields_of(InferenceSpec, _INFER),
        *fields_of(StorageSpec, _STORE),
    ]


def key_table() -> str:
    """The Markdown key table of ``question_bank/FORMAT.md`` ("Footprint keys"), generated from
    :func:`spec_fields`; ``tests/footprint/test_footprint_fields.py`` keeps the file equal."""
    from quiz.footprint.inputs.fields import format_table
    from quiz.footprint.inputs.presets import gpu_presets, model_presets

    presets = {"model": tuple(model_presets()), "gpu": tuple(gpu_presets()),
               "draft_model": tuple(model_presets())}
    return format_table(spec_fields(), presets)
