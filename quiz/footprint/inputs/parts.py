"""The parts of a spec: how the model is trained (:class:`TrainingSpec`), served
(:class:`InferenceSpec`) and stored (:class:`StorageSpec`). Each checks its own fields; the
rules that need the model or several parts live in :mod:`quiz.footprint.inputs.rules` and
:class:`~quiz.footprint.inputs.spec.FootprintSpec`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from quiz.footprint.inputs.fields import (
    MAX_PARAMS,
    YES_NO,
    ZERO_STAGE,
    Attention,
    CheckpointKind,
    Choice,
    ChoiceList,
    Convention,
    Doc,
    Finetune,
    GradPrecision,
    KvDtype,
    Number,
    Offload,
    Optimizer,
    Part,
    Precision,
    Ratio,
    Recompute,
    ScaleDtype,
    WeightFormat,
    ZeroPoint,
)
from quiz.footprint.inputs.units import format_count


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
                         Doc("activation recomputation", label="Recomputation",
                             default="none; full for QLoRA (PEFT's recipe)")] = "none"
    attention: Annotated[Attention | None, Choice("attention"), Doc(
        "attention kernel: flash (FlashAttention/SDPA, never stores the s × s scores) or eager "
        "(stores them, Korthikanti's 5as/h term)", label="Attention",
        default="flash; eager under --convention paper and deepspeed")] = None
    logits_bytes: Annotated[int, Number(4, 6, "bytes"), Doc(
        "bytes kept per logit for the loss: 6 = the 16-bit logits + the FP32 copy "
        "cross-entropy keeps (Megatron-LM, Hugging Face), 4 = the FP32 copy alone, as "
        "Korthikanti et al. 2022 sec. 4.3 count it (4sbv/t)", label="Logits bytes",
        metavar="N", default="6 in 16-bit training, 4 in FP32",
        values="`4` or `6` (default 6 in 16-bit training, 4 in FP32)")] | None = None
    zero_init: Annotated[bool, YES_NO, Doc(
        "DeepSpeed's zero.Init (ZeRO-3 only): each module is partitioned as it is built, so no "
        "process holds the whole model in CPU RAM while loading", label="zero.Init",
        default="true with ZeRO stage 3, else false")] | None = None
    gpus_per_node: Annotated[int, Number(1, 10**4, "GPUs"), Doc(
        "GPUs (one process each) per node, for the CPU RAM a node needs while the model loads",
        label="GPUs per node", metavar="N",
        default="8, or the devices when fewer")] | None = None
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
        "how memory is counted: practice (the ZeRO paper's model states, activations per layer "
        "from the architecture's family), paper (activations by Korthikanti et al.'s GPT "
        "formula), or DeepSpeed's estimator (FP32 gradient shards, the largest layer gathered, "
        "buffer factor 1.5)", label="Convention")] = "practice"
    largest_layer: Annotated[int, Number(1, MAX_PARAMS, "parameters"), Doc(
        "parameters of the largest layer (one module), which DeepSpeed's ZeRO-3 estimate "
        "gathers whole", metavar="N", default="from the architecture")] | None = None

    @model_validator(mode="after")
    def _recipe(self) -> TrainingSpec:
        # PEFT's QLoRA recipe: prepare_model_for_kbit_training(use_gradient_checkpointing=True)
        # turns on gradient checkpointing of every decoder layer (full recomputation).
        if self.finetune == "qlora" and "recompute" not in self.model_fields_set:
            object.__setattr__(self, "recompute", "full")
        return self

    @model_validator(mode="after")
    def _formats(self) -> TrainingSpec:
        from quiz.footprint.inputs.format_rules import training_problems

        found = training_problems(self)
        if found:
            raise ValidationError.from_exception_data(type(self).__name__, [InitErrorDetails(
                type=PydanticCustomError(name, "{message}", {"message": message}),
                loc=(name,), input=getattr(self, name)) for name, message in found])
        return self

    @property
    def devices(self) -> int:
        """Devices in the layout: dp × tp × pp × cp."""
        return self.dp * self.tp * self.pp * self.cp

    @property
    def attention_kernel(self) -> str:
        """``"flash"`` or ``"eager"``: ``attention`` if given, else eager under the paper and
        DeepSpeed conventions (Korthikanti's Table 2 stores the scores), flash otherwise."""
        if self.attention is not None:
            return self.attention
        return "flash" if self.convention == "practice" else "eager"

    @property
    def recipe_recompute(self) -> bool:
        """Whether ``recompute`` is QLoRA's recipe (full) rather than chosen."""
        return self.finetune == "qlora" and "recompute" not in self.model_fields_set


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
                        Doc("KV cache dtype: int4 per head and token with an FP16 scale and "
                            "zero point (LMDeploy), fp4 as NVFP4 (16 values per FP8 scale)",
                            label="KV precision", default="16-bit")] = None
    kv_block: Annotated[int, Number(1, 10**6, "tokens"),
                        Doc("tokens per KV cache block: the cache holds whole blocks (vLLM's "
                            "block_size)", label="KV block", metavar="N")] = 16
    batch: Annotated[int, Number(1, 10**7, "sequences"),
                     Doc("concurrent sequences", label="Infer batch", metavar="N")] = 1
    context: Annotated[int, Number(1, 10**9, "tokens"),
                       Doc("tokens held per sequence", label="Context tokens",
                           metavar="N")] = 2048
    shared_prefix: Annotated[int, Number(0, 10**9, "tokens"),
                             Doc("tokens at the start of the context that every sequence "
                                 "shares, stored once in whole KV blocks (prefix caching)",
                                 label="Shared prefix", metavar="N")] = 0
    draft_model: Annotated[str | None, Doc(
        "model preset of a speculative-decoding draft model: its weights and its own KV cache "
        "are added", label="Draft model", metavar="PRESET")] = None
    gpu_layers: Annotated[int, Number(0, 10**5, "layers"), Doc(
        "llama.cpp partial offload (--n-gpu-layers, GGUF weights): the last N of the layers "
        "and the output layer on the GPU; the other layers, the token embedding and their KV "
        "cache in CPU RAM", label="GPU layers", metavar="N",
        default="everything on the GPU")] | None = None
    prefill_chunk: Annotated[int, Number(1, 10**9, "tokens"),
                             Doc("tokens per forward step of the serving engine (chunked "
                                 "prefill; vLLM's max_num_batched_tokens)",
                                 label="Prefill chunk", metavar="N",
                                 default="vLLM's: 8,192 on GPUs of 70 GiB or more other than "
                                 "A100, else 2,048")] | None = None

    @field_validator("draft_model", mode="before")
    @classmethod
    def _known_draft(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str):
            raise PydanticCustomError("preset", "expected a model preset name (text)")
        from quiz.footprint.inputs.presets import PresetError, get_model

        try:
            return get_model(value).id
        except PresetError as exc:
            raise PydanticCustomError("unknown_preset", "{message}",
                                      {"message": str(exc)}) from None

    @model_validator(mode="after")
    def _prefix_within_context(self) -> InferenceSpec:
        if self.shared_prefix > self.context:
            raise ValidationError.from_exception_data(type(self).__name__, [InitErrorDetails(
                type=PydanticCustomError("prefix_context", "{message}", {
                    "message": f"the shared prefix ({format_count(self.shared_prefix)} tokens) "
                               f"is longer than the context ({format_count(self.context)} "
                               "tokens) it is part of: give at most the context"}),
                loc=("shared_prefix",), input=self.shared_prefix)])
        return self

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
