"""Inference working memory with chunked prefill (issue 12 §4): the step budget (vLLM's
default max_num_batched_tokens), the per-token working set derived from the layer shapes, the
sampled logits, and GPU counts for long contexts that no longer grow with the prefill."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.presets import get_gpu
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.items.serving import default_prefill_chunk
from quiz.footprint.words.explain import explain_notes


def spec(**data: object) -> FootprintSpec:
    return FootprintSpec.from_mapping(data)


@pytest.mark.parametrize(("gpu", "chunk"), [
    (None, 2048), ("l4", 2048), ("a100-80gb", 2048), ("a100-40gb", 2048),
    ("h100-80gb", 8192), ("b200-180gb", 8192),
])
def test_default_budget_is_vllms(gpu: str | None, chunk: int) -> None:
    # vLLM vllm/engine/arg_utils.py, EngineArgs._set_default_args: for vllm serve
    # (UsageContext.OPENAI_API_SERVER) max_num_batched_tokens = 8192 when
    # device_memory >= 70 GiB and "a100" not in the device name, else 2048
    assert default_prefill_chunk(None if gpu is None else get_gpu(gpu)) == chunk


# Llama-3-8B (config.json of meta-llama/Meta-Llama-3-8B): h = 4,096, 32 heads and 8 KV heads of
# 128, f = 14,336 (SwiGLU), v = 128,256, 32 layers.
H, Q, KV, F, V = 4096, 4096, 1024, 14_336, 128_256
ATTENTION = 2 * H + 2 * Q + 2 * KV  # residual, norm, fused QKV output, attention output
MLP = 2 * H + 3 * F  # residual, norm, fused gate/up output (2f), SiLU·up output (f)
PER_TOKEN = 2 * max(ATTENTION, MLP)  # BF16
WEIGHTS = 8_030_261_248 * 2
KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2  # 131,072 bytes


def test_llama_3_8b_working_set_per_token() -> None:
    assert (ATTENTION, MLP) == (18_432, 51_200)
    assert PER_TOKEN == 102_400
    report = estimate(spec(model="llama-3-8b", phase="inference",
                           inference={"context": 8192, "batch": 1}))
    act = report.inference.item("activations")
    assert act.bytes == 2048 * PER_TOKEN == 209_715_200  # one chunk of vLLM's 2,048
    assert "51,200 values at the MLP peak" in act.formula
    # the LM head runs once per sequence: 1 × v × (2-byte logits + FP32 copy in the sampler)
    assert report.inference.item("logits").bytes == V * 6


def test_working_memory_does_not_grow_with_context() -> None:
    sizes = {ctx: estimate(spec(model="llama-3-8b", phase="inference",
                                inference={"context": ctx, "batch": 4}))
             .inference.item("activations").bytes for ctx in (4096, 32_768, 131_072)}
    assert len(set(sizes.values())) == 1
    # a prompt shorter than the budget is one step of its own tokens
    short = estimate(spec(model="llama-3-8b", phase="inference",
                          inference={"context": 100, "batch": 3}))
    assert short.inference.item("activations").bytes == 300 * PER_TOKEN
    # more sequences than the budget: a decode step still carries one token per sequence
    wide = estimate(spec(model="llama-3-8b", phase="inference",
                         inference={"context": 4096, "batch": 5000, "prefill_chunk": 512}))
    assert wide.inference.item("activations").bytes == 5000 * PER_TOKEN
    chunked = estimate(spec(model="llama-3-8b", phase="inference",
                            inference={"context": 4096, "batch": 8, "prefill_chunk": 512}))
    assert chunked.inference.item("activations").bytes == 512 * PER_TOKEN


def test_long_context_gpu_count_llama_3_8b_on_h100() -> None:
    # Derived: Llama-3-8B in BF16 for 8 sequences of 32,768 tokens on an H100 80GB (85.52 GB):
    # weights 16.06 GB + KV cache 8 × 32,768 × 131,072 B = 34.36 GB + one step of vLLM's 8,192
    # tokens × 102,400 B = 0.84 GB + logits 8 × 128,256 × 6 B: 51.27 GB, one GPU. Counting one
    # layer for the whole prefill with the training formula (34 bytes × h per token, the first
    # edition) added 262,144 × 139,264 B = 36.51 GB and asked for two GPUs.
    report = estimate(spec(model="llama-3-8b", phase="inference", gpu="h100-80gb",
                           inference={"context": 32_768, "batch": 8}))
    inf = report.inference
    expected = WEIGHTS + 8 * 32_768 * KV_PER_TOKEN + 8192 * PER_TOKEN + 8 * V * 6
    assert inf.total_bytes == expected == 51_265_277_952
    assert inf.gpus_needed == 1
    first_edition = WEIGHTS + 8 * 32_768 * KV_PER_TOKEN + 8 * 32_768 * 34 * H
    assert first_edition > get_gpu("h100-80gb").memory_bytes  # two GPUs before


def test_mixtral_expert_working_set() -> None:
    # Mixtral-8x7B: h = 4,096, f = 14,336 per expert, 8 experts, top-2. vLLM fused_moe keeps, per
    # token and chosen expert, the gate/up output (2f), the activation output (f) and the
    # expert output (h); plus the residual, the norm and the router logits (E), and FP32
    # routing weights with int32 ids (8 bytes per chosen expert).
    values = 2 * 4096 + 8 + 2 * (3 * 14_336 + 4096)
    assert values == 102_408
    report = estimate(spec(model="mixtral-8x7b", phase="inference",
                           inference={"context": 1000, "batch": 1}))
    assert report.inference.item("activations").bytes == 1000 * (2 * values + 8 * 2)


def test_explain_states_the_budget_and_the_first_edition_count() -> None:
    notes = explain_notes(estimate(spec(model="llama-3-8b", phase="inference",
                                        gpu="h100-80gb",
                                        inference={"context": 32_768, "batch": 8})))
    note = next(n for n in notes if n.startswith("Serving working memory:"))
    assert "at most 8,192 tokens per forward step (vLLM's default max_num_batched_tokens" in note
    assert "838.86 MB whatever the context" in note
    assert "gives 36.51 GB" in note
    notes = explain_notes(estimate(spec(model="llama-3-8b", phase="inference",
                                        inference={"prefill_chunk": 1024})))
    note = next(n for n in notes if n.startswith("Serving working memory:"))
    assert "(--prefill-chunk 1,024)" in note
    training = explain_notes(estimate(spec(model="llama-3-8b", phase="training")))
    assert not any(n.startswith("Serving working memory:") for n in training)


def test_prefill_chunk_is_validated_and_reported_unused_in_training() -> None:
    with pytest.raises(ValidationError, match="must be positive"):
        spec(model="llama-3-8b", inference={"prefill_chunk": 0})
    report = estimate(spec(model="llama-3-8b", phase="training",
                           inference={"prefill_chunk": 4096}))
    assert [u.key for u in report.unused] == ["inference.prefill_chunk"]


def test_cli_flag_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from quiz.cli.footprint import main

    code = main(["--model", "llama-3-8b", "--phase", "inference", "--prefill-chunk", "4k",
                 "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    items = {i["name"]: i["bytes"] for i in data["inference"]["per_device"]["items"]}
    assert items["activations"] == 2048 * PER_TOKEN  # context 2,048 × batch 1 < 4,000
    assert items["logits"] == V * 6
