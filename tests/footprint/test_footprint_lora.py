"""Fine-tuning with adapters (issue 12 §1): LoRA and QLoRA counts checked against figures derived
from the shapes and against what PEFT prints, the NF4 layout against the QLoRA paper, and the
property that adapters never need more than full fine-tuning."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.cli.footprint import main
from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.arch import Architecture
from quiz.footprint.inputs.lora_targets import (
    active_adapter_params,
    adapted_matrices,
    adapter_params,
    rank_limit,
)
from quiz.footprint.inputs.presets import get_model
from quiz.footprint.inputs.spec import FootprintSpec, error_lines
from quiz.footprint.items.lora import activation_change, qlora_base
from quiz.footprint.items.model_states import activation_bytes, model_state_bytes
from quiz.footprint.words.explain import explain_notes

LLAMA_2_7B = get_model("llama-2-7b")


def _spec(training: dict[str, Any], **top: Any) -> FootprintSpec:
    return FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                       "training": training, **top})


def _items(spec: FootprintSpec) -> dict[str, int]:
    report = estimate(spec)
    assert report.training is not None
    return {i.name: i.bytes for i in report.training.items}


def _errors(data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    with pytest.raises(ValidationError) as info:
        FootprintSpec.from_mapping(data)
    return error_lines(info.value)


# -- adapter parameters -------------------------------------------------------------------------


def test_adapter_params_of_llama_2_7b_from_the_shapes() -> None:
    # Derived from the Llama-2-7B config (hidden 4,096, 32 heads of 128 = 4,096, 32 KV heads,
    # intermediate 11,008, 32 layers): an adapter on a d_in × d_out matrix has r × (d_in + d_out)
    # parameters.
    # r = 8 on q and v: 32 layers × 2 matrices × 8 × (4,096 + 4,096)
    assert 32 * 2 * 8 * (4096 + 4096) == 4_194_304
    # r = 16 on all seven: 32 × 16 × (4 × (4,096 + 4,096) + 3 × (4,096 + 11,008))
    assert 32 * 16 * (4 * 8192 + 3 * 15104) == 39_976_960
    arch = LLAMA_2_7B.arch
    assert adapter_params(arch, 8, "q,v") == 4_194_304
    assert adapter_params(arch, 16, "all") == 39_976_960
    # Published cross-check: PEFT's print_trainable_parameters() for Llama-2-7b-hf prints
    # "trainable params: 4,194,304 || all params: 6,742,609,920" with LoraConfig(r=8,
    # target_modules=["q_proj", "v_proj"]) and "trainable params: 39,976,960 || all params:
    # 6,778,392,576" with r=16 on all linear layers; all params = the model + the adapters.
    assert LLAMA_2_7B.params + 4_194_304 == 6_742_609_920
    assert LLAMA_2_7B.params + 39_976_960 == 6_778_392_576


def test_grouped_query_attention_shrinks_the_k_and_v_adapters() -> None:
    # Llama-3-8B: hidden 4,096, 8 KV heads × 128 = 1,024 outputs for k and v, 32 layers.
    arch = get_model("llama-3-8b").arch
    shapes = {m.target: (m.d_in, m.d_out, m.count) for m in adapted_matrices(arch, "all")}
    assert shapes["k"] == shapes["v"] == (4096, 1024, 32)
    assert shapes["down"] == (14336, 4096, 32)
    assert adapter_params(arch, 8, "k") == 32 * 8 * (4096 + 1024)
    assert rank_limit(arch, "all") == (1024, ("k", "v"))


def test_a_mixture_of_experts_adapts_every_expert_and_a_plain_mlp_has_no_gate() -> None:
    mixtral = get_model("mixtral-8x7b").arch  # 8 experts, ffn 14,336, 32 layers
    down = next(m for m in adapted_matrices(mixtral, "down"))
    assert (down.d_in, down.d_out, down.count) == (14336, 4096, 32 * 8)
    gpt2 = get_model("gpt-2-1.5b").arch  # c_fc (up) and c_proj (down), no gate
    assert [m.target for m in adapted_matrices(gpt2, "all")] == ["q", "k", "v", "o", "up", "down"]


# -- QLoRA's NF4 base ---------------------------------------------------------------------------


def test_qlora_base_of_llama_2_7b_matches_what_peft_prints() -> None:
    arch = LLAMA_2_7B.arch
    base = qlora_base(arch, True)
    # Every linear layer of the 32 blocks: 32 × (4 × 4,096² + 3 × 4,096 × 11,008)
    assert base.values == 32 * (4 * 4096**2 + 3 * 4096 * 11008) == 6_476_005_376
    assert (base.tensors, base.blocks) == (224, 6_476_005_376 // 64)
    # kept in 16-bit: embeddings and LM head 2 × 32,000 × 4,096, norms 65 × 4,096
    assert base.kept == 2 * 32000 * 4096 + 65 * 4096 == 262_410_240
    # PEFT's print_trainable_parameters() on the 4-bit Llama-2-7B with r=16 on all linear layers
    # printed "trainable params: 39,976,960 || all params: 3,540,389,888" (PEFT versions that
    # count a packed Params4bit by its bytes): 4-bit weights / 2 + kept + adapters.
    assert base.values // 2 + base.kept + 39_976_960 == 3_540_389_888
    items = _items(_spec({"finetune": "qlora", "lora_rank": 16}))
    assert items["weights"] == base.weights + 2 * base.kept == 3_238_002_688 + 524_820_480
    # Double quantization (QLoRA sec. 3; bitsandbytes quantize_4bit with compress_statistics):
    # 101,187,584 one-byte absmax + an FP32 scale per 256 blocks (4 × 1,024 per 4,096² matrix,
    # 3 × 2,752 per 4,096 × 11,008 one, 32 layers) + per tensor an FP32 offset and the 16- and
    # 256-entry FP32 code tables (4 + 64 + 1,024 bytes) × 224 tensors.
    assert items["quantization_overhead"] == \
        101_187_584 + 4 * 32 * (4 * 1024 + 3 * 2752) + 1092 * 224
    # about 0.127 bits of constants per weight, as the paper says (8/64 + 32/(64·256))
    assert round(8 * items["quantization_overhead"] / 6_476_005_376, 3) == 0.127
    plain = _items(_spec({"finetune": "qlora", "double_quant": False}))
    # one FP32 absmax per block of 64: 32/64 = 0.5 bits per weight, + the 16-entry code tables
    assert plain["quantization_overhead"] == 4 * 101_187_584 + 64 * 224


# -- the items --------------------------------------------------------------------------------


def test_lora_items_for_llama_2_7b_r8_on_q_and_v() -> None:
    n = 4_194_304
    items = _items(_spec({"finetune": "lora", "lora_targets": "q,v", "convention": "paper"}))
    assert items["weights"] == 6_738_415_616 * 2  # frozen BF16 base
    assert items["adapter_weights"] == 2 * n
    assert items["gradients"] == 2 * n  # adapters only
    assert items["master_weights"] == 4 * n
    assert items["optimizer_states"] == 8 * n  # AdamW: FP32 momentum + variance
    assert "quantization_overhead" not in items
    # Activations (Korthikanti et al. 2022, Table 2: sbh(34 + 5as/h) per layer, s = 2,048,
    # b = 1, h = 4,096, a = 32 → 5as/h = 80): 32 × 8,388,608 × 114 for full fine-tuning.
    full = 32 * 8_388_608 * 114
    paper = _spec({"convention": "paper"})
    assert activation_bytes(paper.training, paper.resolved) == full
    # o, gate/up and down have no adapter: their inputs (2 + 2 + 8 sbh) are not kept; q and v
    # each keep A's output, 2 bytes × s·b·r.
    assert items["activations"] == full - 32 * 8_388_608 * 12 + 32 * 2 * 2 * 2048 * 8


def test_the_frozen_embedding_and_lm_head_keep_no_input() -> None:
    # Korthikanti et al. 2022, sec. 4.3 counts the embedding's dropout mask (sbhp) and the
    # inputs of the final norm and the output projection (2sbh + 2sbh at 16 bits). Frozen, the
    # embedding needs no gradient and the LM head no weight gradient: only the norm's input
    # stays, 2 × 2,048 × 4,096 bytes. The logits (sbv × (2 + 4)) are needed all the same.
    full = _items(_spec({"convention": "paper"}))
    lora = _items(_spec({"finetune": "lora", "convention": "paper"}))
    assert full["embedding_activations"] == 8_388_608
    assert full["output_activations"] == 4 * 8_388_608
    assert (lora["embedding_activations"], lora["output_activations"]) == (0, 2 * 8_388_608)
    assert lora["logits"] == full["logits"] == 2048 * 32000 * 6


def test_every_projection_adapted_keeps_every_input_plus_the_rank_r_outputs() -> None:
    spec = _spec({"finetune": "lora", "lora_rank": 16})
    assert activation_change(spec.training, spec.resolved, "none") == 32 * 7 * 2 * 2048 * 16
    assert activation_change(spec.training, spec.resolved, "full") == 0


def test_tensor_and_sequence_parallelism_split_the_dropped_inputs() -> None:
    # Under tensor parallelism the input of q, k, v is replicated, that of o split by t;
    # sequence parallelism splits both (Korthikanti et al. 2022, sec. 4.2).
    sbh = 8_388_608
    tp = _spec({"finetune": "lora", "lora_targets": "gate,up,down", "tp": 4})
    assert activation_change(tp.training, tp.resolved, "none") == \
        32 * (3 * 2 * 2048 * 8) - 32 * (2 * sbh + 2 * sbh / 4)
    sp = _spec({"finetune": "lora", "lora_targets": "gate,up,down", "tp": 4,
                "sequence_parallel": True})
    assert activation_change(sp.training, sp.resolved, "none") == \
        32 * (3 * 2 * 2048 * 8) - 32 * (2 * sbh / 4 + 2 * sbh / 4)


def test_zero_3_and_tensor_parallelism_split_base_and_adapters() -> None:
    spec = _spec({"finetune": "lora", "lora_targets": "q,v", "zero": 3, "dp": 8, "tp": 2})
    items = _items(spec)
    assert items["weights"] == -(-6_738_415_616 * 2 // 2) // 8
    assert items["adapter_weights"] == 4_194_304 // 16 * 2
    assert items["optimizer_states"] == 4_194_304 * 8 // 16


def test_checkpoints_hold_the_adapters_only() -> None:
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "training": {
        "finetune": "lora", "lora_targets": "q,v"}, "storage": {"checkpoints": 2}})
    storage = estimate(spec).storage
    assert storage is not None and storage.item("checkpoints") is not None
    # 2 × 4,194,304 × (2 BF16 + 4 FP32 master + 8 AdamW)
    assert storage.item("checkpoints").bytes == 2 * 4_194_304 * 14
    assert "frozen base is not saved" in storage.item("checkpoints").formula


# -- the spec ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "canonical"), [
    ("q,v", "q,v"), ("V, q", "q,v"), (["q_proj", "v_proj"], "q,v"), ("all-linear", "all"),
    ("q,k,v,o,gate,up,down", "all"), ("down,down", "down"), ("ALL", "all"),
])
def test_targets_are_read_in_every_spelling(given: Any, canonical: str) -> None:
    assert _spec({"finetune": "lora", "lora_targets": given}).training.lora_targets == canonical


def test_bad_adapter_settings_are_errors_that_say_what_to_do() -> None:
    assert _errors({"model": "llama-2-7b", "training": {"lora_targets": "q,vv"}}) == [
        (("training", "lora_targets"), "unknown LoRA target 'vv'; expected some of: q, k, v, "
         "o, gate, up, down, or all; did you mean 'v'?")]
    assert _errors({"model": "llama-2-7b", "training": {"lora_targets": " , "}}) == [
        (("training", "lora_targets"), "give at least one LoRA target: q, k, v, o, gate, up, "
         "down, or all")]
    assert _errors({"model": "gpt-2-1.5b", "training": {"finetune": "lora",
                                                        "lora_targets": "gate"}})[0][0] == \
        ("training", "lora_targets")
    assert _errors({"model": "llama-3-8b", "training": {"finetune": "qlora",
                                                        "lora_rank": 2048}}) == [
        (("training", "lora_rank"), "LoRA rank 2,048 is larger than the smallest side of the "
         "targeted matrices (1,024: k, v), the highest rank their update can have")]
    (loc, message), = _errors({"params": "7B", "training": {"finetune": "lora"}})
    assert loc == ("training", "finetune")
    assert "give a model preset (model) or a full architecture" in message
    assert _errors({"model": "llama-2-7b", "training": {"finetune": "dora"}})[0][1].endswith(
        "did you mean 'lora'?")


def test_adapter_settings_without_adapters_are_reported_unused() -> None:
    report = estimate(_spec({"lora_rank": 16, "lora_alpha": 32}))
    assert [u.key for u in report.unused] == ["training.lora_rank", "training.lora_alpha"]
    report = estimate(_spec({"finetune": "lora", "double_quant": False}))
    assert [u.key for u in report.unused] == ["training.double_quant"]


# -- what the user sees -----------------------------------------------------------------------


def test_explain_names_alpha_kept_layers_double_quant_and_what_is_not_modelled() -> None:
    lora = " ".join(explain_notes(estimate(_spec({"finetune": "lora", "lora_alpha": 32}))))
    assert "LoRA alpha 32 scales the adapters' update by alpha/r" in lora
    assert "it changes no byte" in lora
    assert "autocast_adapter_dtype=True" in lora
    assert "Activations with adapters" in lora
    assert "Bytes per parameter, mixed-precision Adam" not in lora  # a full fine-tuning note
    qlora = " ".join(explain_notes(estimate(_spec({"finetune": "qlora", "recompute": "none",
                                                   "convention": "paper"}))))
    assert "keeps the embeddings, the LM head and the norms in the load dtype: 262,410,240 " \
        "params × 2 bytes = 524.82 MB" in qlora
    assert "prepare_model_for_kbit_training casts those to FP32 (1.05 GB" in qlora
    assert "with double quantization 103.01 MB (4.127 bits" in qlora
    assert "without it 404.76 MB (4.500 bits" in qlora
    assert "paged optimizers" in qlora
    assert "--recompute full gives" in qlora


def test_qlora_on_an_rtx_4090_prints_a_sourced_derivation(capsys: pytest.CaptureFixture[str]) \
        -> None:
    assert main(["--model", "llama-2-7b", "--finetune", "qlora", "--gpu", "rtx-4090",
                 "--width", "120", "--recompute", "none", "--convention", "paper"]) == 0
    out = capsys.readouterr().out
    assert "QLoRA (NF4, double quantization) r 8 on all linear layers" in out
    assert "frozen base: 6,476,005,376 weights of the linear layers in NF4" in out
    assert "NVIDIA GeForce RTX 4090" in out
    assert "--recompute full gives" in out  # the fit says how it would fit
    assert main(["--model", "llama-2-7b", "--finetune", "qlora", "--gpu", "rtx-4090",
                 "--recompute", "full", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    items = {i["name"]: i for i in data["training"]["per_device"]["items"]}
    assert list(items) == ["weights", "quantization_overhead", "adapter_weights", "gradients",
                           "master_weights", "optimizer_states", "activations",
                           "embedding_activations", "output_activations", "logits"]
    assert all(i["source"] for i in items.values())
    assert data["training"]["gpus_needed"] == 1
    assert "QLoRA" in data["training"]["convention"]


# -- adapters never exceed full fine-tuning ---------------------------------------------------


@st.composite
def architectures(draw: st.DrawFn) -> Architecture:
    heads = draw(st.integers(1, 16))
    kv_heads = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    head_dim = draw(st.integers(4, 128))
    experts = draw(st.sampled_from([1, 1, 4, 8]))
    return Architecture(
        layers=draw(st.integers(1, 48)), hidden=heads * head_dim, heads=heads,
        kv_heads=kv_heads, head_dim=head_dim, ffn=draw(st.integers(4, 20000)),
        vocab=draw(st.integers(1, 200_000)), gated_mlp=draw(st.booleans()),
        tied_embeddings=draw(st.booleans()), experts=experts,
        active_experts=draw(st.integers(1, experts)))


TARGETS = st.lists(st.sampled_from(["q", "k", "v", "o", "gate", "up", "down"]), min_size=1,
                   max_size=7)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arch=architectures(), targets=TARGETS, data=st.data(),
       finetune=st.sampled_from(["lora", "qlora"]),
       precision=st.sampled_from(["fp32", "mixed-fp16", "mixed-bf16", "bf16"]),  # not FP8
       optimizer=st.sampled_from(["sgd", "sgd-momentum", "adam", "adamw", "adam-8bit",
                                  "adafactor"]),
       zero=st.integers(0, 3), dp=st.integers(1, 64), seq=st.integers(1, 8192),
       batch=st.integers(1, 16), recompute=st.sampled_from(["none", "selective", "full"]))
def test_adapters_never_exceed_full_fine_tuning(
    arch: Architecture, targets: list[str], data: st.DataObject, finetune: str, precision: str,
    optimizer: str, zero: int, dp: int, seq: int, batch: int, recompute: str,
) -> None:
    targets = sorted({t for t in targets if t != "gate" or arch.gated_mlp})
    assume(targets)
    target_text = ",".join(targets)
    # QLoRA stores per quantized tensor an FP32 offset and the 16- and 256-entry FP32 code
    # tables (bitsandbytes quantize_4bit with double quantization: 1,092 bytes), which outweigh
    # a toy matrix of under a few hundred weights; every real projection has millions.
    if finetune == "qlora":
        assume(min(m.d_in * m.d_out for m in adapted_matrices(arch, "all")) >= 1024)
    side, _ = rank_limit(arch, target_text)
    # A useful rank is far below the smallest side (Hu et al. 2021: r ≪ min(d, k)); up to a
    # quarter of it the adapters are at most half the targeted weights.
    rank = data.draw(st.integers(1, max(1, side // 4)))
    tp = data.draw(st.sampled_from([t for t in (1, 2, 4) if arch.heads % t == 0]))
    # ZeRO-1 and -2 shard the gradients and optimizer states but not the working weights: on
    # very many devices full fine-tuning keeps little more than its 16-bit weights, and the
    # adapters' own unsharded weights can tip the balance (see the test below). Without ZeRO
    # (dp 1) and with ZeRO-3 everything is compared like for like.
    if zero in (1, 2):
        dp = 1
    shape = {k: getattr(arch, k) for k in (
        "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "gated_mlp",
        "tied_embeddings", "experts", "active_experts")}
    common = {"precision": precision, "optimizer": optimizer, "zero": zero, "dp": dp, "tp": tp,
              "seq_len": seq, "micro_batch": batch, "recompute": recompute}
    full = FootprintSpec.from_mapping({**shape, "phase": "training", "training": common})
    adapted = FootprintSpec.from_mapping({**shape, "phase": "training", "training": {
        **common, "finetune": finetune, "lora_rank": rank, "lora_targets": target_text}})
    r = full.resolved
    # trainable parameters: the adapters are fewer than the weights they adapt
    targeted = sum(m.d_in * m.d_out * m.count for m in adapted_matrices(arch, target_text))
    assert adapter_params(arch, rank, target_text) <= targeted <= r.params
    # model states per device: weights, NF4 constants, adapters, gradients, master copy and
    # optimizer states
    full_states = model_state_bytes(full.training, r, dp)
    adapted_states = model_state_bytes(adapted.training, r, dp)
    assert full_states is not None and adapted_states is not None
    assert adapted_states <= full_states
    # the total per device: never more, apart from the adapters' own rank-r activations
    # (A's output, e·s·b·r per adapted matrix per layer), which full fine-tuning does not have
    full_report, adapted_report = estimate(full), estimate(adapted)
    assert full_report.training is not None and adapted_report.training is not None
    e = 4 if precision == "fp32" else 2
    matrices = sum(1 if m.target in ("q", "k", "v", "o") else arch.active_experts
                   for m in adapted_matrices(arch, target_text))
    own = 0 if recompute == "full" else arch.layers * matrices * e * seq * batch * rank
    assert adapted_report.training.total_bytes <= full_report.training.total_bytes + own
    assert sum(i.bytes for i in adapted_report.training.items) == \
        adapted_report.training.total_bytes


def test_zero_2_on_very_many_devices_is_where_adapters_can_hold_more() -> None:
    # ZeRO-2 per device: full fine-tuning 2P + 14P/dp (Rajbhandari et al. 2020, sec. 5),
    # LoRA 2P + 2Pₐ + 14Pₐ/dp, more once dp > 7(P − Pₐ)/Pₐ: for Llama-2-7B with r = 16 on all
    # linear layers (Pₐ = 39,976,960) that is dp > 1,172.
    p, pa = 6_738_415_616, 39_976_960
    crossover = 7 * (p - pa) // pa + 1
    assert crossover == 1173

    def states(finetune: str, dp: int) -> int:
        spec = _spec({"finetune": finetune, "lora_rank": 16, "zero": 2, "dp": dp})
        value = model_state_bytes(spec.training, spec.resolved, dp)
        assert value is not None
        return value

    assert states("lora", crossover - 1) < states("full", crossover - 1)
    assert states("lora", crossover + 1) > states("full", crossover + 1)


def test_offload_moves_the_adapters_states_and_deepspeed_counts_full_fine_tuning_only() -> None:
    # ZeRO-Offload (Ren et al. 2021, sec. 3–4) moves gradients, master copy and optimizer
    # states to CPU RAM: for adapters, theirs; the frozen base stays on the GPU.
    spec = _spec({"finetune": "lora", "lora_targets": "q,v", "offload": "cpu", "zero": 2})
    report = estimate(spec)
    assert report.training is not None
    on_gpu = {i.name for i in report.training.items}
    assert on_gpu == {"weights", "adapter_weights", "activations", "embedding_activations",
                      "output_activations", "logits"}
    assert report.training.host_total("cpu") == 4_194_304 * (2 + 4 + 8)
    assert _errors({"model": "llama-2-7b", "training": {
        "finetune": "qlora", "zero": 3, "dp": 8, "convention": "deepspeed"}}) == [
        (("training", "convention"), "DeepSpeed's estimators count full fine-tuning (every "
         "parameter trained): use the paper convention with LoRA or QLoRA")]
    assert _errors({"model": "llama-2-7b", "training": {
        "finetune": "lora", "precision": "mixed-fp8"}})[0][0] == ("training", "precision")


def test_training_flops_with_adapters_skip_the_frozen_weight_gradients() -> None:
    # Kaplan et al. 2020, sec. 2.1: 2N forward + 4N backward per token, the backward half for the
    # inputs' gradients and half for the weights'. Frozen weights skip the latter: 4N + 6Nₐ.
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                       "training": {"finetune": "lora", "lora_rank": 16,
                                                    "train_tokens": "1B", "recompute": "full"}})
    figures = {q.name: q.value for q in estimate(spec).compute}
    flops = (4 * 6_738_415_616 + 6 * 39_976_960) * 10**9
    assert figures["training_flops"] == flops == 27_193_524_224 * 10**9
    # full recomputation runs the forward pass (model and adapters) once more
    assert figures["training_hardware_flops"] == flops + 2 * (6_738_415_616 + 39_976_960) * 10**9
    notes = " ".join(explain_notes(estimate(spec)))
    assert "(4N + 6Nₐ)D = 27,193,524,224,000,000,000, not 6ND" in notes
    # a mixture of experts: a token passes through the adapters of its 2 of 8 experts
    mixtral = get_model("mixtral-8x7b").arch
    assert active_adapter_params(mixtral, 8, "all") == \
        adapter_params(mixtral, 8, "q,k,v,o") + adapter_params(mixtral, 8, "gate,up,down") // 4


def test_the_calculator_doc_examples_print_what_the_doc_says() -> None:
    from pathlib import Path

    from quiz.footprint.inputs.units import format_bytes

    readme = Path(__file__).resolve().parents[2].joinpath("docs", "calculator.md").read_text(
        "utf-8")
    lora = estimate(_spec({"finetune": "lora", "lora_targets": "q,v", "recompute": "full"},
                          gpu="a100-40gb"))
    qlora = estimate(_spec({"finetune": "qlora", "lora_rank": 16, "recompute": "full"},
                           gpu="rtx-4090"))
    bare = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "gpu": "rtx-4090",
                                                "training": {"convention": "paper",
                                                             "finetune": "qlora",
                                                             "recompute": "none"}}))
    assert lora.training is not None and qlora.training is not None and bare.training is not None
    states = ("adapter_weights", "gradients", "master_weights", "optimizer_states")

    def size(report: Any, *names: str) -> str:
        return format_bytes(sum(report.training.item(n).bytes for n in names))

    said = [
        "frozen BF16 base " + size(lora, "weights"),
        "master copy and AdamW states " + size(lora, *states),
        f"total {format_bytes(lora.training.total_bytes)}: fits on one A100 40GB",
        f"NF4 base {size(qlora, 'weights')} + its constants {size(qlora, 'quantization_overhead')}",
        f"{size(qlora, *states)} with",
        f"total {format_bytes(qlora.training.total_bytes)}: fits on one RTX 4090",
        f"the activations ({size(bare, 'activations')}) do not fit",
    ]
    flat = " ".join(readme.replace("#", " ").split())
    for text in said:
        assert text in flat, text
    assert lora.training.gpus_needed == qlora.training.gpus_needed == 1
    assert bare.training.gpus_needed is None
    assert "--recompute selective gives 13.73 GB per device and --recompute full gives 5.13 GB" \
        in bare.training.fit_advice


def test_fit_advice_prints_the_report_units() -> None:
    """The recomputation advice of an adapter fine-tuning that does not fit speaks the report's
    units: 14,739,… bytes are "14.74 GB" by default and "13.73 GiB" with units GiB."""
    by_units = {}
    for units in ("GB", "GiB"):
        report = estimate(FootprintSpec.from_mapping({
            "model": "llama-2-7b", "gpu": "rtx-4090", "units": units,
            "training": {"convention": "paper", "finetune": "lora"}}))
        assert report.training is not None
        by_units[units] = report.training.fit_advice
    assert "--recompute selective gives 23.34 GB per device and --recompute full gives " \
        "14.74 GB per device" in by_units["GB"]
    assert "--recompute selective gives 21.74 GiB per device and --recompute full gives " \
        "13.73 GiB per device" in by_units["GiB"]


@pytest.mark.parametrize("gpu", [{"gpu": "h100-80gb"}, {}])
@pytest.mark.parametrize("layout", [{"tp": 2, "pp": 3, "dp": 64, "zero": 3}, {}])
def test_adapter_checkpoint_holds_the_whole_adapters_whatever_the_layout(
        gpu: dict[str, str], layout: dict[str, int]) -> None:
    # A LoRA checkpoint saves every adapter parameter once: QLoRA r 16 on every linear layer
    # of Llama-2-70B, 207,093,760 adapter params × (2 bytes BF16 + 4 bytes FP32 master + 8
    # bytes AdamW) × 3 checkpoints = 8,697,937,920 bytes, on one GPU or on tp 2 × pp 3 × dp 64.
    # (The whole-model view used to read the sharded spec's fields for the adapter states'
    # memo key, so with tp × pp it saved the first stage's tp shard: 1,467,777,024 bytes.)
    report = estimate(FootprintSpec.from_mapping({
        "model": "llama-2-70b", **gpu, "phase": "training",
        "training": {"finetune": "qlora", "lora_rank": 16, "lora_targets": "all", **layout},
        "storage": {"checkpoints": 3}}))
    assert report.storage is not None
    item = report.storage.item("checkpoints")
    assert item is not None and item.bytes == 3 * 207_093_760 * (2 + 4 + 8) == 8_697_937_920
    assert "1,656,750,080 bytes of adamw states" in item.formula
