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
    YES_NO,
    ZERO_STAGE,
    CheckpointKind,
    Choice,
    ChoiceList,
    Convention,
    Doc,
    Finetune,
    GradPrecision,
    KvDtype,
    ModelShape,
    Number,
    Offload,
    Optimizer,
    Part,
    Phase,
    Precision,
    Ratio,
    Recompute,
    ScaleDtype,
    SpecField,
    Units,
    WeightFormat,
    ZeroPoint,
    fields_of,
)
from quiz.footprint.inputs.presets import GpuPreset, PresetError, get_gpu, get_model
from quiz.footprint.inputs.resolve import REQUIRED_FOR_COUNT, ResolvedModel, SpecProblem, resolve
from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.ep import ep_problems
from quiz.footprint.items.offload import problems as offload_problems

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


class TrainingSpec(Part):
    """How the model is trained (all sizes per device unless stated).

    ``precision``: ``fp32`` (weights, gradients and optimizer states in FP32; no master copy);
    ``mixed-fp16`` / ``mixed-bf16`` (16-bit working weights, FP32 master copy and optimizer
    states; Micikevicius et al. 2018); ``bf16`` (pure BF16: weights, gradients and optimizer
    states all BF16, no master copy); ``mixed-fp8`` (Transformer Engine style: FP8 GEMMs, BF16
    weights plus an FP8 copy of each GEMM weight, FP32 master copy and optimizer states, GEMM
    inputs saved in FP8; :mod:`quiz.footprint.items.fp8`). ``grad_precision`` defaults to the
    working
    weights' dtype (16-bit in mixed precision, as in the ZeRO paper; ``fp32`` gives the 18-byte
    count of Hugging Face's guide). ``dp × tp × pp`` devices; ZeRO stages partition over ``dp``.

    Defaults: mixed BF16, AdamW, ZeRO stage 0, one device, micro-batch 1 × 2,048 tokens, no
    recomputation.
    """

    precision: Annotated[Precision, Choice("precision"),
                         Doc("number format of weights, gradients and optimizer states",
                             label="Train precision")] = "mixed-bf16"
    grad_precision: Annotated[GradPrecision | None, Choice("grad_precision"),
                              Doc("gradient dtype (16-bit in mixed precision as in the ZeRO "
                                  "paper; fp32 gives Hugging Face's 18-byte count)",
                                  default="as the weights")] = None
    optimizer: Annotated[Optimizer, Choice("optimizer"),
                         Doc("optimizer", label="Optimizer")] = "adamw"
    zero: Annotated[int, ZERO_STAGE, Doc("ZeRO stage", label="ZeRO stage")] = 0
    finetune: Annotated[Finetune, Choice("finetune"),
                        Doc("what is trained: every weight (full), or low-rank adapters on a "
                            "frozen 16-bit base (lora) or a frozen 4-bit NF4 base (qlora)",
                            label="Fine-tuning")] = "full"
    lora_rank: Annotated[int, Number(1, 10**6),
                         Doc("LoRA rank r of every adapter", default="8, as PEFT's LoraConfig",
                             label="LoRA rank", metavar="R")] = 8
    lora_alpha: Annotated[int, Number(1, 10**6),
                          Doc("LoRA scaling alpha (the update is scaled by alpha/r; no effect "
                              "on memory)", label="LoRA alpha", metavar="N",
                              default="not set")] | None = None
    lora_targets: Annotated[str, ChoiceList("lora_targets", "LoRA target", suffix="_proj"),
                            Doc("projections that get an adapter, separated by commas: q, k, "
                                "v, o (attention), gate, up, down (MLP), or all",
                                label="LoRA targets", metavar="LIST",
                                default="all: every linear layer of the blocks",
                                values="some of `q`, `k`, `v`, `o`, `gate`, `up`, `down` "
                                "separated by commas (a list in YAML, `q_proj` also read), or "
                                "`all`")] = "all"
    double_quant: Annotated[bool, YES_NO,
                            Doc("QLoRA: double quantization of the NF4 block scales (8-bit "
                                "scales, Dettmers et al. 2023, sec. 3)",
                                label="Double quant")] = True
    dp: Annotated[int, Number(1, 10**6, "devices"),
                  Doc("data-parallel size", label="Data-parallel", metavar="N")] = 1
    tp: Annotated[int, Number(1, 10**6, "devices"),
                  Doc("tensor-parallel size", label="Tensor-parallel", metavar="N")] = 1
    pp: Annotated[int, Number(1, 10**6, "devices"),
                  Doc("pipeline-parallel size", metavar="N")] = 1
    cp: Annotated[int, Number(1, 10**6, "devices"),
                  Doc("context-parallel size: each sequence split over N devices (Megatron-LM "
                      "--context-parallel-size)", label="Context-parallel", metavar="N")] = 1
    ep: Annotated[int, Number(1, 10**6, "devices"),
                  Doc("expert-parallel size (mixture of experts): each rank holds E/N experts "
                      "of every MoE layer; carved out of dp × cp (Megatron-Core "
                      "--expert-model-parallel-size)", label="Expert-parallel",
                      metavar="N")] = 1
    sequence_parallel: Annotated[bool, YES_NO, Doc(
        "Megatron sequence parallelism (needs tensor parallelism)")] = False
    micro_batch: Annotated[int, Number(1, 10**7, "sequences"),
                           Doc("sequences per micro-batch", label="Micro-batch",
                               metavar="N")] = 1
    seq_len: Annotated[int, Number(1, 10**9, "tokens"),
                       Doc("tokens per sequence", label="Sequence length", metavar="N")] = 2048
    recompute: Annotated[Recompute, Choice("recompute"),
                         Doc("activation recomputation", label="Recomputation")] = "none"
    train_tokens: Annotated[int, Number(1, 10**16, "tokens"),
                            Doc("training tokens D for the compute and time estimate, e.g. 2T",
                                label="Train tokens", metavar="N",
                                default="dataset tokens")] | None = None
    mfu: Annotated[float, Ratio("model FLOPs utilization"),
                   Doc("model FLOPs utilization assumed for the training time (Chowdhery et al. "
                       "2022, app. B)", label="MFU", metavar="FRACTION")] = 0.4
    offload: Annotated[Offload, Choice("offload"), Doc(
        "where the optimizer states, FP32 master weights and gradients live (ZeRO-Offload; "
        "DeepSpeed offload_optimizer)", label="Offload optim")] = "none"
    offload_params: Annotated[Offload, Choice("offload_params"), Doc(
        "where the 16-bit parameters live, ZeRO-3 only (ZeRO-Infinity; DeepSpeed "
        "offload_param)", label="Offload params")] = "none"
    convention: Annotated[Convention, Choice("convention"), Doc(
        "how model states are counted: the ZeRO paper's 16 bytes/param, or DeepSpeed's "
        "estimator (FP32 gradient shards, the largest layer gathered, buffer factor 1.5)",
        label="Convention")] = "paper"
    largest_layer: Annotated[int, Number(1, MAX_PARAMS, "parameters"), Doc(
        "parameters of the largest layer (one module), which DeepSpeed's ZeRO-3 estimate "
        "gathers whole", metavar="N", default="from the architecture")] | None = None

    @property
    def devices(self) -> int:
        """Devices in the layout: dp × tp × pp × cp."""
        return self.dp * self.tp * self.pp * self.cp


class InferenceSpec(Part):
    """How the model is served. ``context`` counts every token held per sequence (prompt and
    generated). ``kv_dtype`` defaults to the 16-bit activation type (FP32 for FP32 weights).

    ``weights``: a plain format (``fp32`` … ``int4``) or a named quantization scheme
    (:data:`quiz.footprint.quant.schemes.SCHEMES`: GPTQ, AWQ, bitsandbytes, FP8 per-channel, GGUF).
    ``group_size`` applies to INT8/INT4 and GPTQ/AWQ. ``scale_dtype`` and ``zero_point`` choose
    the per-group metadata of plain INT8/INT4 (default: an FP16 scale and a zero point of the
    weight's width); a named scheme fixes its own, so giving them with one is an error.
    ``prefill_chunk`` bounds the tokens of one forward step (chunked prefill), hence the working
    memory; it defaults to vLLM's ``max_num_batched_tokens`` for the GPU
    (:func:`quiz.footprint.items.serving.default_prefill_chunk`)."""

    weights: Annotated[WeightFormat, Choice("weights"),
                       Doc("weight format or quantization scheme", label="Infer weights")] = "bf16"
    group_size: Annotated[int, Number(1, 10**7, "weights"),
                          Doc("INT8/INT4, GPTQ and AWQ quantization group", label="Quant group",
                              metavar="N")] = 128
    scale_dtype: Annotated[ScaleDtype | None, Choice("scale_dtype"),
                           Doc("dtype of each group's scale (INT8/INT4 without a named scheme)",
                               label="Scale dtype", default="fp16")] = None
    zero_point: Annotated[ZeroPoint | None, Choice("zero_point"),
                          Doc("zero point per group (INT8/INT4 without a named scheme; none: "
                              "symmetric)", label="Zero point",
                              default="as weights")] = None
    kv_dtype: Annotated[KvDtype | None, Choice("kv_dtype"),
                        Doc("KV cache dtype", label="KV precision", default="16-bit")] = None
    batch: Annotated[int, Number(1, 10**7, "sequences"),
                     Doc("concurrent sequences", label="Infer batch", metavar="N")] = 1
    context: Annotated[int, Number(1, 10**9, "tokens"),
                       Doc("tokens held per sequence", label="Context tokens",
                           metavar="N")] = 2048
    prefill_chunk: Annotated[int, Number(1, 10**9, "tokens"),
                             Doc("tokens per forward step of the serving engine (chunked "
                                 "prefill; vLLM's max_num_batched_tokens)",
                                 label="Prefill chunk", metavar="N",
                                 default="vLLM's: 8,192 on GPUs of 70 GiB or more other than "
                                 "A100, else 2,048")] | None = None

    @model_validator(mode="after")
    def _scheme_fixes_metadata(self) -> InferenceSpec:
        if self.weights in ("int4", "int8"):
            return self
        from quiz.footprint.quant.schemes import fixed_metadata

        errors = [
            InitErrorDetails(
                type=PydanticCustomError("scheme_fixed", "{message}", {
                    "message": f"applies to plain int4/int8 weights only; "
                               f"{fixed_metadata(self.weights)}"}),
                loc=(name,), input=getattr(self, name))
            for name in ("scale_dtype", "zero_point") if getattr(self, name) is not None
        ]
        if errors:
            raise ValidationError.from_exception_data(type(self).__name__, errors)
        return self


class StorageSpec(Part):
    """What is kept on disk: the dataset (``dataset_tokens`` × ``bytes_per_token``, or
    ``dataset_size`` in bytes), ``checkpoints`` kept (full training state or weights only).

    ``bytes_per_token`` defaults to the token-id width Megatron-LM picks: 2 bytes (uint16) when
    the vocabulary has fewer than 65,500 entries, else 4 (int32)."""

    dataset_tokens: Annotated[int, Number(0, 10**16, "tokens"),
                              Doc("training tokens, e.g. 2T", metavar="N")] | None = None
    dataset_size: Annotated[int, Number(1, 10**18, "bytes (1 EB)", size=True),
                            Doc("dataset size on disk, instead of tokens, e.g. 500GB",
                                metavar="SIZE", values="`500GB`, `2TiB`, `8Gbit` (see above), "
                                "at most 10^18 bytes (1 EB)")] | None = None
    bytes_per_token: Annotated[int, Number(1, 64, "bytes"),
                               Doc("bytes per stored token id", metavar="N",
                                   default="2 for vocabularies under 65,500, else 4")
                               ] | None = None
    checkpoints: Annotated[int, Number(0, 10**6, "checkpoints"),
                           Doc("checkpoints kept", metavar="N")] = 1
    checkpoint_kind: Annotated[CheckpointKind, Choice("checkpoint_kind"),
                               Doc("full training state, or weights only")] = "full"


class _ModelChoice(Part):
    """The model part of a spec that is not its shape: a preset, or a parameter count."""

    model: Annotated[str | None, Doc(
        "model preset (quiz footprint --list-presets lists them)", label="Model", metavar="PRESET",
        group="model")] = None
    params: Annotated[int, Number(1, MAX_PARAMS, "parameters"),
                      Doc("parameter count, when there is no preset: 7B, 6.7e9",
                          label="Params (custom)", metavar="N", group="model")] | None = None


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
            for loc, kind, message, value in offload_problems(t):
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
            if resolved.layers and resolved.layers % t.pp:
                problem(
                    ("training", "pp"),
                    "pp_layers",
                    f"pipeline parallel size {format_count(t.pp)} does not divide "
                    f"{count_noun(resolved.layers, 'layer')}",
                    t.pp,
                )
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
            from quiz.footprint.items.lora import rank_limit

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

    presets = {"model": tuple(model_presets()), "gpu": tuple(gpu_presets())}
    return format_table(spec_fields(), presets)
