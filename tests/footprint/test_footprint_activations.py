"""Training activations outside the layers (issue 12 §4): the logits with cross-entropy's FP32
copy, and Korthikanti et al. 2022's embedding and output-layer terms (sec. 4.3), each checked
against the paper's formula or a figure derived here from the shapes."""

from __future__ import annotations

import pytest

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.words.explain import explain_notes


def spec(**data: object) -> FootprintSpec:
    return FootprintSpec.from_mapping(data)


def items(report_part: object) -> dict[str, int]:
    return {i.name: i.bytes for i in report_part.items}  # type: ignore[attr-defined]


def test_llama_3_8b_logits_at_8192_tokens_exceed_one_layer() -> None:
    # Llama-3-8B (config.json of meta-llama/Meta-Llama-3-8B): h = 4,096, a = 32, L = 32,
    # v = 128,256. At s = 8,192, b = 1, BF16:
    s, h, a, v, L = 8192, 4096, 32, 128_256, 32
    sbv = s * v
    assert sbv == 1_050_673_152
    logits = sbv * (2 + 4)  # BF16 logits + the FP32 copy cross-entropy keeps
    assert logits == 6_304_038_912
    # one layer, Korthikanti et al. 2022 Table 2: 34sbh without the s×s scores (selective
    # recomputation, or FlashAttention), sbh(34 + 5as/h) with them stored
    layer_selective = 34 * s * h
    layer_with_scores = s * h * (34 + 5 * a * s // h)
    assert layer_selective == 1_140_850_688
    assert layer_with_scores == 11_878_268_928
    assert logits > 5 * layer_selective  # about 5.5 layers' worth
    assert 2 * sbv > layer_selective  # even the BF16 logits alone
    report = estimate(spec(model="llama-3-8b", phase="training",
                           training={"convention": "paper",
                                     "seq_len": 8192, "recompute": "selective"}))
    got = items(report.training)
    assert got["logits"] == logits
    assert got["activations"] == L * layer_selective
    assert got["logits"] > got["activations"] // L
    note = next(n for n in explain_notes(report) if n.startswith("Logits:"))
    assert "6 bytes per logit (6.30 GB)" in note
    assert "4sbv/t = 4.20 GB" in note  # Korthikanti's FP32-only count
    assert "larger than one layer's activations (1.14 GB with selective" in note


# Korthikanti et al. 2022, Table 3: the paper's model configurations (s = 2,048, v = 51,200,
# micro-batch 1, t = 8): (layers, hidden, heads, pipeline size).
TABLE_3 = {
    "22B": (48, 6144, 64, 1),
    "175B": (96, 12288, 96, 8),
    "530B": (105, 20480, 128, 35),
    "1T": (128, 25600, 160, 64),
}


@pytest.mark.parametrize("name", list(TABLE_3))
@pytest.mark.parametrize("recompute", ["none", "selective"])
def test_korthikanti_sec_4_3_total_with_embedding_and_output_layer(
        name: str, recompute: str) -> None:
    L, h, a, p = TABLE_3[name]
    s, b, v, t = 2048, 1, 51_200, 8
    report = estimate(spec(
        layers=L, hidden=h, heads=a, ffn=4 * h, vocab=v, gated_mlp=False, phase="training",
        training={"convention": "paper",
                  "tp": t, "pp": p, "sequence_parallel": True, "recompute": recompute,
                  "seq_len": s, "micro_batch": b}))
    got = items(report.training)
    sbh = s * b * h
    scores = 5 * a * s * s * b if recompute == "none" else 0
    # sec. 4.3 with Table 2 (tensor + sequence parallel): the layers, sbhL/t (34 + 5as/h), plus
    # sbhL/t (p/L + δ(p=1) 4/L (1 + v/h)) = sbhp/t + δ(p=1) (4sbh/t + 4sbv/t)
    delta = 1 if p == 1 else 0
    paper = (L * (34 * sbh + scores) + sbh * p + delta * (4 * sbh + 4 * s * b * v)) // t
    bf16_logits = delta * 2 * s * b * v // t  # this tool's addition: the 16-bit logits
    total = sum(got[k] for k in ("activations", "embedding_activations", "output_activations",
                                 "logits"))
    assert total - bf16_logits == paper
    assert got["embedding_activations"] == sbh * p // t
    assert got["output_activations"] == delta * 4 * sbh // t
    assert got["logits"] == delta * 6 * s * b * v // t


def test_megatron_theoretical_memory_usage_agrees_but_for_token_ids_and_bf16_logits() -> None:
    # Megatron-LM megatron/training/theoretical_memory_usage.py, compute_activation_memory (the
    # sequence-parallel, selective-recomputation branch): [sbh(18 + 4 ffn/h) L + 8sbp + sbhp
    # + δ(p=1) 4sbh(1 + v/h)] / t. Llama-2-7B's shape with a 4h GeLU MLP, t = 2, p = 1.
    L, h, a, v, s, b, t = 32, 4096, 32, 32_000, 4096, 2, 2
    megatron = (s * b * h * (18 + 4 * 4) * L + 8 * s * b + s * b * h
                + 4 * s * b * h + 4 * s * b * v) // t
    report = estimate(spec(
        layers=L, hidden=h, heads=a, ffn=4 * h, vocab=v, gated_mlp=False, phase="training",
        training={"convention": "paper",
                  "tp": t, "sequence_parallel": True, "recompute": "selective", "seq_len": s,
                  "micro_batch": b}))
    ours = sum(items(report.training)[k] for k in (
        "activations", "embedding_activations", "output_activations", "logits"))
    assert ours == megatron - 8 * s * b // t + 2 * s * b * v // t


def test_fp32_training_keeps_4_bytes_per_logit_and_replicates_without_sequence_parallel() -> None:
    report = estimate(spec(model="gpt-2-1.5b", phase="training",
                           training={"precision": "fp32", "tp": 5, "seq_len": 1024}))
    got = items(report.training)
    # GPT-2 1.5B: h = 1,600, v = 50,257; FP32: no copy, 4 bytes per logit, vocabulary-parallel
    assert got["logits"] == -(-1024 * 50_257 * 4 // 5)
    # without sequence parallelism the embedding mask and the output layer's inputs are
    # replicated on every tensor-parallel rank (Table 2's logic): not divided by t
    assert got["embedding_activations"] == 1024 * 1600
    assert got["output_activations"] == 2 * 4 * 1024 * 1600


def test_pipeline_parallel_first_stage_has_no_output_layer_and_p_embedding_masks() -> None:
    report = estimate(spec(model="llama-2-70b", phase="training",
                           training={"convention": "paper",
                                     "tp": 8, "pp": 2, "sequence_parallel": True,
                                     "recompute": "selective"}))
    got = items(report.training)
    assert got["output_activations"] == 0 and got["logits"] == 0
    assert got["embedding_activations"] == 2048 * 8192 * 2 // 8  # sbhp/t, p = 2
    note = next(n for n in explain_notes(report) if n.startswith("Pipeline stages:"))
    # last stage: 40 layers for one micro-batch (half the first stage's 80 layers' worth) plus
    # the output layer (4sbh/t) and the logits (6sbv/t) of Llama-2-70B (v = 32,000)
    last = got["activations"] // 2 + (4 * 2048 * 8192 + 6 * 2048 * 32_000) // 8
    assert f"{last / 1e9:.2f} GB" in note
    assert not any(n.startswith("Logits:") for n in explain_notes(report))


def test_no_architecture_no_extra_items_and_inference_only_no_notes() -> None:
    report = estimate(spec(params="7B", phase="training"))
    assert [i.name for i in report.training.items][-1] == "optimizer_states"
    assert [o.item for o in report.omitted if o.phase == "training"] == ["activations"]
    notes = explain_notes(estimate(spec(model="llama-2-7b", phase="inference")))
    assert not any(n.startswith(("Logits:", "Pipeline stages:")) for n in notes)


def test_context_parallel_splits_the_sequence() -> None:
    # Megatron-LM docs, Context parallelism: with --context-parallel-size cp each rank keeps the
    # activations of s/cp tokens. Llama-3-8B at 131,072 tokens over cp 8 keeps, per device, what
    # 16,384 tokens keep without it (tp 8 with sequence parallelism, selective recomputation).
    base = {"model": "llama-3-8b", "phase": "training",
            "training": {"convention": "paper",
                         "tp": 8, "sequence_parallel": True, "recompute": "selective",
                         "zero": 1, "dp": 2}}
    cp = estimate(spec(**{**base, "training": {"convention": "paper",
                                               **base["training"], "seq_len": 131_072,
                                                "cp": 8}}))
    flat = estimate(spec(**{**base, "training": {"convention": "paper",
                                                 **base["training"], "seq_len": 16_384}}))
    got, ref = items(cp.training), items(flat.training)
    for name in ("activations", "embedding_activations", "output_activations", "logits"):
        assert got[name] == ref[name], name
    assert got["activations"] == 32 * 16_384 * 4096 * 34 // 8
    # weights replicated over cp; ZeRO-1 shards the FP32 states over dp × cp = 16
    assert got["weights"] == ref["weights"]
    per_tp = -(-8_030_261_248 // 8)
    assert got["master_weights"] == -(-per_tp // 16) * 4
    assert cp.training.devices == 2 * 8 * 8
    # without recomputation the scores of the local s/cp queries span all s keys: 5as(s/cp)b
    none = estimate(spec(model="llama-3-8b", phase="training",
                         training={"convention": "paper", "seq_len": 8192, "cp": 4}))
    local = 8192 // 4
    assert items(none.training)["activations"] == 32 * (34 * local * 4096 + 5 * 32 * local * 8192)
    note = next(n for n in explain_notes(cp) if n.startswith("Context parallelism:"))
    ring = 2 * 2 * 16_384 * 1024 * 2 // 8  # K and V chunks, double-buffered, KV width 1,024
    assert f"{ring / 1e6:.2f} MB per layer in flight" in note


def test_context_parallel_needs_a_sequence_divisible_by_2_cp() -> None:
    with pytest.raises(Exception, match="multiple of 2 × cp = 16"):
        spec(model="llama-3-8b", training={"seq_len": 1000, "cp": 8})


def test_mixtral_expert_and_router_activations() -> None:
    # Mixtral-8x7B: h = 4,096, f = 14,336 per expert (SwiGLU), E = 8, k = 2. Per token and layer,
    # 16-bit, selective recomputation: Table 2's 34h with the dense MLP's 16h (GeLU input and
    # output of 4h) replaced by k copies of (input h + output h) × 2 bytes, k × (gate, up,
    # activation outputs 3f) × 2 bytes, and the router: 4E bytes of FP32 probabilities + k × (4 +
    # 8) bytes of FP32 weights and int64 indices.
    h, f, E, k = 4096, 14_336, 8, 2
    per_token = 34 * h - 16 * h + 2 * k * 2 * h + 2 * k * 3 * f + 4 * E + 12 * k
    assert per_token == 278_584  # twice the dense 139,264
    report = estimate(spec(model="mixtral-8x7b", phase="training",
                           training={"convention": "paper",
                                     "seq_len": 4096, "recompute": "selective"}))
    assert items(report.training)["activations"] == 32 * 4096 * per_token
    notes = explain_notes(report)
    assert any(n.startswith("Mixture of experts: Korthikanti's Table 2") for n in notes)
    dense = explain_notes(estimate(spec(model="llama-3-8b", phase="training")))
    assert not any(n.startswith("Mixture of experts: Korthikanti") for n in dense)
    # full recomputation keeps only each layer's input, experts or not
    full = estimate(spec(model="mixtral-8x7b", phase="training",
                         training={"convention": "paper", "seq_len": 4096, "recompute": "full"}))
    assert items(full.training)["activations"] == 32 * 2 * 4096 * h
