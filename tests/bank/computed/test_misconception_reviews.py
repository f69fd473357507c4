"""Misconceptions whose value or review depends on the scenario's details, against hand-computed
values and the exact review text (a domain review found each wrong in a bundled question).

Llama-2-13B (P = 13,015,864,320) served with plain INT8, group 128, FP16 scale and INT8 zero
point: the INT8 matrices plus 16-bit embeddings, LM head and norms take 13,343,959,040 bytes and
the scales and zero points 297,369,600 bytes (3 bytes per group of 128 weights).
"""

from __future__ import annotations

from quiz.bank.computed.figures import Figures
from quiz.bank.computed.misconceptions import BY_NAME
from quiz.bank.computed.placeholders import parse_format
from quiz.footprint import FootprintSpec


def serve(model: str, **inference: str) -> dict[str, object]:
    return {"model": model, "phase": "inference", "inference": inference}


INT8_13B = serve("llama-2-13b", weights="int8", group_size="128", batch="1", context="2048")
INT8_13B_WEIGHTS = 13_343_959_040
INT8_13B_SCALES = 297_369_600


def figures_of(scenario: dict[str, object]) -> Figures:
    return Figures(FootprintSpec.from_mapping(scenario))


def value(name: str, scenario: dict[str, object], figure: str) -> int | None:
    return BY_NAME[name].compute(figures_of(scenario), parse_format(figure))


def review(name: str, scenario: dict[str, object], figure: str) -> str:
    return BY_NAME[name].review_text(figures_of(scenario), parse_format(figure))


def test_weights_only_when_serving_counts_the_stored_weights_with_their_scales() -> None:
    figures = figures_of(INT8_13B)
    assert figures.item("inference", "weights") == INT8_13B_WEIGHTS
    assert figures.item("inference", "quantization_overhead") == INT8_13B_SCALES
    assert value("weights-only", INT8_13B, "inference.total | GB:2") \
        == INT8_13B_WEIGHTS + INT8_13B_SCALES              # 13.64 GB, not 13.34 GB
    assert review("weights-only", INT8_13B, "inference.total | GB:2") == (
        "{value} is the stored weights alone, with their scales and zero points. Serving also "
        "holds the KV cache of every sequence and working memory (activations); the right "
        "figure is {key}.")
    symmetric = serve("llama-2-13b", weights="int8", zero_point="none")
    assert "with their scales. Serving" in review("weights-only", symmetric,
                                                  "inference.total | GB:2")


def train(**training: str) -> dict[str, object]:
    return {"model": "llama-2-7b", "phase": "training",
            "training": {"precision": "mixed-bf16", "optimizer": "adamw", **training}}


STATES = "training.model_states | GB:2"


def test_forget_master_weights_speaks_of_this_gpus_share_under_zero() -> None:
    # Llama-2-7B, ZeRO-1 over 8 ranks: this GPU keeps 4P / 8 = 3,369,207,808 bytes (3.37 GB) of
    # master weights, 0.5 bytes per parameter, not the 4 bytes the review used to state alone.
    zero1 = train(zero="1", dp="8")
    assert value("forget-master-weights", zero1, STATES) \
        == figures_of(zero1).number("training.model_states") - 4 * 6_738_415_616 // 8
    assert review("forget-master-weights", zero1, STATES) == (
        "{value} leaves out the FP32 master weights ({part}). Mixed precision updates an FP32 "
        "copy of every trained weight (4 bytes per parameter) and casts it to the 16-bit "
        "working weights; under ZeRO stage 1 this GPU keeps a 1/8 share of it (0.5 bytes per "
        "parameter); the full count is {key}.")
    assert "share" not in review("forget-master-weights", train(), STATES)


def test_forget_master_weights_under_lora_names_the_adapters_only() -> None:
    for method in ("lora", "qlora"):
        words = review("forget-master-weights", train(finetune=method), STATES)
        assert ("FP32 copy of every adapter weight (4 bytes per adapter parameter; the frozen "
                "base has none)") in words


def test_forget_gradients_names_the_gradient_dtype_and_the_zero2_share() -> None:
    fp32 = review("forget-gradients", train(grad_precision="fp32"), STATES)
    assert "one FP32 gradient for every trained parameter (4 bytes per parameter)" in fp32
    assert "working precision" not in fp32
    zero2 = review("forget-gradients", train(zero="2", dp="16"), STATES)
    assert zero2 == (
        "{value} leaves out the gradients ({part}). Backpropagation writes one BF16 gradient "
        "for every trained parameter (2 bytes per parameter) before the optimizer step reads "
        "them; under ZeRO stage 2 this GPU keeps a 1/16 share of it (0.125 bytes per "
        "parameter); the full count is {key}.")
    # ZeRO-1 leaves the gradients whole: no share is named.
    assert "share" not in review("forget-gradients", train(zero="1", dp="8"), STATES)


def test_kv_without_k_and_v_does_not_arise_under_multi_head_latent_attention() -> None:
    # DeepSeek-V3 caches a 512-value latent and a 64-value rotary key per token and layer (MLA):
    # no K and V pair, so "one of K and V" is no mistake a student makes about it.
    mla = serve("deepseek-v3", weights="fp8", batch="1", context="4096")
    assert figures_of(mla).spec.resolved.arch is not None
    assert value("kv-without-k-and-v", mla, "inference.kv_cache | GB:2") is None
    assert value("kv-without-k-and-v", mla, "inference.total | GB:2") is None
    gqa = serve("llama-2-70b", batch="1", context="4096")         # 327,680 bytes per token
    assert value("kv-without-k-and-v", gqa, "inference.kv_cache | GB:2") == 327_680 * 4096 // 2


INT4_REVIEW = "inference.weights | GB:2"


def test_int4_without_scales_reads_for_each_scheme() -> None:
    def words(weights: str, **more: str) -> str:
        return review("int4-without-scales", serve("llama-2-7b", weights=weights, **more),
                      INT4_REVIEW)

    assert words("int4") == (
        "{value} counts 4 bits per parameter and nothing else. Group-wise INT4 also stores an "
        "FP16 scale and a 4-bit zero point per group of 128 weights, and keeps the embeddings, "
        "LM head and norms in 16 bits; the right figure is {key}.")
    assert "an FP16 scale per group of 128 weights, and" in words("int4", zero_point="none")
    assert "an FP16 scale and a packed INT4 zero point per group of 128" in words("gptq-int4")
    # bitsandbytes: one absmax per block, no zero point.
    nf4 = words("bnb-nf4")
    assert "an FP32 absmax scale per block of 64 values (no zero point)" in nf4
    assert "zero point per" not in nf4
    # GGUF: norms in F32, token embeddings quantized, the output matrix in Q6_K.
    for gguf in ("gguf-q4_0", "gguf-q4_k_m"):
        text = words(gguf)
        assert "norms in F32" in text and "token embeddings are quantized too" in text
        assert "16 bits" not in text and "zero point" not in text
    assert "an FP16 scale per block of 32 values" in words("gguf-q4_0")
