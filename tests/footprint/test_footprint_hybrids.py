"""Issue 21 §3, what the second pass added: the DeepSeek-V3 preset (MLA keys in the preset
format), Qwen2-MoE's shared expert, and the state-space models Mamba and Jamba read from their
config.json (hand-written from the published files, ``tests/footprint/configs``; nothing is
downloaded). Each parameter count is checked against its published figure within 0.2 %."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from quiz.footprint import FootprintSpec, estimate, model_presets
from quiz.footprint.inputs.arch import linear_matrices
from quiz.footprint.inputs.presets import get_model
from quiz.footprint.inputs.spec import error_lines

CONFIGS = Path(__file__).resolve().parent / "configs"


def _spec(name: str, **extra: object) -> FootprintSpec:
    return FootprintSpec.from_mapping({"config": str(CONFIGS / name), **extra})


@pytest.mark.parametrize(("name", "published"), [
    # Jamba-v0.1: Hugging Face safetensors 51.6B (Lieber et al. 2024, Jamba: 52B total, 12B
    # active)
    ("jamba-v0.1.json", 51_600_000_000),
    # state-spaces/mamba-2.8b-hf: safetensors 2.77B
    ("mamba-2.8b.json", 2_770_000_000),
    # Qwen1.5-MoE-A2.7B model card: 14.3B parameters in total, 2.7B activated
    ("qwen1.5-moe-a2.7b.json", 14_300_000_000),
])
def test_parameters_within_0_2_percent_of_the_published_count(name: str, published: int) -> None:
    params = estimate(_spec(name, phase="inference")).model.params
    assert abs(params - published) <= published * 2 // 1000


def test_mamba_2_8b_counts_every_mixer_and_has_no_kv_cache() -> None:
    # per layer (d_inner 5,120, state 16, conv 4, dt rank 160): in_proj 2,560 × 10,240 =
    # 26,214,400; conv1d 5,120 × 4 + 5,120 = 25,600; x_proj 5,120 × 192 = 983,040; dt_proj
    # 160 × 5,120 + 5,120 = 824,320; A_log 81,920; D 5,120; out_proj 13,107,200; one norm
    # 2,560 = 41,244,160. × 64 + tied embeddings 50,280 × 2,560 + the final norm.
    report = estimate(_spec("mamba-2.8b.json", phase="inference",
                            inference={"batch": 8, "context": 100_000}))
    assert report.model.params == 64 * 41_244_160 + 50_280 * 2_560 + 2_560 == 2_768_345_600
    assert report.model.active_params == report.model.params
    inf = report.inference
    assert inf is not None
    # no attention: no KV cache; the state per sequence does not grow with the context
    state = inf.item("ssm_state")
    assert state is not None and state.bytes == 8 * 64 * 5_120 * (4 + 16) * 2
    assert "whatever the context length" in state.formula
    assert "ssm_state" in [i["name"] for i in
                           report.to_json()["inference"]["per_device"]["items"]]
    assert report.inference.total_bytes == sum(i.bytes for i in inf.items)


def test_jamba_has_attention_on_one_layer_in_eight_and_experts_on_every_other() -> None:
    r = _spec("jamba-v0.1.json").resolved
    a = r.arch
    assert a is not None
    assert (a.attention_layers, a.mamba_layers, a.moe_layers, a.experts) == (4, 28, 16, 16)
    # Mamba mixer (d_inner 8,192, dt rank 256): in_proj 67,108,864 + conv 40,960 + x_proj
    # 2,359,296 + dt_proj 2,105,344 + A_log 131,072 + D 8,192 + out_proj 33,554,432 + the dt,
    # B, C norms 288 = 105,308,448
    assert a.mamba_params() == 105_308_448
    attention = 4 * (2 * 4_096 * 4_096 + 2 * 4_096 * 1_024)
    expert = 3 * 4_096 * 14_336
    total = (2 * 65_536 * 4_096 + attention + 28 * 105_308_448 + 16 * expert
             + 16 * (16 * expert + 4_096 * 16) + 32 * 2 * 4_096 + 4_096)
    assert r.params == total == 51_570_323_328
    assert r.active_params == total - 16 * 14 * expert == 12_110_311_296  # published: 12B
    # the quantizable matrices: 4 attention layers' Q K V O, 28 mixers' four projections,
    # 16 dense MLPs and 16 × 16 experts
    assert sum(c for _, _, c in linear_matrices(a)) == 4 * 4 + 28 * 4 + 3 * (16 + 256)


def test_jamba_training_counts_the_states_and_says_what_it_leaves_out() -> None:
    report = estimate(_spec("jamba-v0.1.json", phase="training", gpu="h100-80gb",
                            training={"zero": 3, "dp": 64}))
    t = report.training
    assert t is not None and not t.complete and t.not_estimated == ("activations",)
    reason = next(o.reason for o in report.omitted if o.item == "activations")
    assert "Mamba (state-space) layers are not modelled" in reason
    from quiz.footprint import render_report

    text = render_report(report, width=200)
    assert "activations not estimated: not modelled for this architecture" in text
    assert "give an architecture" not in text


@pytest.mark.parametrize(("training", "inference", "loc"), [
    ({"finetune": "lora"}, {}, ("training", "finetune")),
    ({"precision": "mixed-fp8"}, {}, ("training", "precision")),
    ({}, {"weights": "gguf-q4_k_m"}, ("inference", "weights")),
    ({"ep": 2, "dp": 2}, {}, ("training", "ep")),
])
def test_what_hybrids_do_not_estimate_is_an_error(training: dict, inference: dict,
                                                  loc: tuple) -> None:
    with pytest.raises(ValidationError) as info:
        _spec("jamba-v0.1.json", training=training, inference=inference)
    [(where, message)] = error_lines(info.value)
    assert where == loc and "Mamba" in message


@pytest.mark.parametrize("model", ["deepseek-v3.json", "qwen1.5-moe-a2.7b.json"])
def test_gguf_for_tensors_llama_cpp_places_otherwise_is_an_error(model: str) -> None:
    with pytest.raises(ValidationError) as info:
        _spec(model, phase="inference", inference={"weights": "gguf-q4_k_m"})
    [(where, message)] = error_lines(info.value)
    assert where == ("inference", "weights") and "llama.cpp" in message


def test_qwen2_moe_counts_its_shared_expert_in_total_and_active() -> None:
    # per layer: attention 4 × 2,048² = 16,777,216; 60 experts × 3 × 2,048 × 1,408 =
    # 519,045,120; the shared expert 3 × 2,048 × 5,632 = 34,603,008 and its gate 2,048; the
    # router 2,048 × 60 = 122,880; two norms 4,096. × 24, + untied 151,936 × 2,048 tables.
    r = _spec("qwen1.5-moe-a2.7b.json").resolved
    a = r.arch
    assert a is not None and a.shared_ffn == 5_632
    per_layer = 16_777_216 + 519_045_120 + 34_603_008 + 2_048 + 122_880 + 4_096
    assert r.params == 24 * per_layer + 2 * 151_936 * 2_048 + 2_048 == 14_315_636_736
    # active: 4 of 60 experts, and the shared expert always
    assert r.active_params == r.params - 24 * 56 * 3 * 2_048 * 1_408 == 2_689_026_048
    # the shared expert's matrices are quantized with the rest
    assert (5_632, 2_048, 48) in linear_matrices(a) and (2_048, 5_632, 24) in linear_matrices(a)


def test_the_deepseek_v3_preset_reads_mla_keys_and_matches_the_report() -> None:
    preset = get_model("deepseek-v3")
    a = preset.arch
    assert (a.kv_lora_rank, a.q_lora_rank, a.qk_rope_dim, a.v_head_dim) == (512, 1536, 64, 128)
    assert (a.shared_experts, a.expert_ffn, a.dense_layers, a.router_bias) == (1, 2048, 3, True)
    # the same numbers as the hand-written config.json
    from_config = _spec("deepseek-v3.json").resolved
    report = estimate(FootprintSpec.from_mapping({"model": "deepseek-v3", "phase": "inference"}))
    assert report.model.params == from_config.params == 671_026_419_200
    assert report.model.active_params == from_config.active_params == 37_552_297_472
    assert abs(report.model.params - 671 * 10**9) <= 671 * 10**9 * 2 // 1000  # 671B
    assert abs(report.model.active_params - 37 * 10**9) <= 37 * 10**9 * 2 // 100  # 37B
    assert preset.published_params == 671 * 10**9 and preset.published_rounded
    # MLA's KV cache: (512 + 64) × 61 layers × 2 bytes per token
    kv = report.inference.item("kv_cache") if report.inference else None
    assert kv is not None and kv.bytes == (512 + 64) * 61 * 2 * 2048
    # a changed layer count keeps the latent attention
    fewer = FootprintSpec.from_mapping({"model": "deepseek-v3", "layers": 30}).resolved
    assert fewer.arch is not None and fewer.arch.mla and fewer.arch.layers == 30


@pytest.mark.tui  # the app's form (quiz.tui) imports Textual
def test_the_deepseek_v3_preset_is_offered_by_the_cli_and_the_form() -> None:
    from quiz.cli.footprint import _list_presets

    assert "deepseek-v3" in model_presets()
    assert "deepseek-v3" in _list_presets()
    from quiz.tui.screens.footprint import form_fields

    model = next(f for f in form_fields() if f.key == "model")
    assert model.choices is not None
    listed = dict((value, text) for text, value in model.choices)
    assert listed["deepseek-v3"].split() == ["deepseek-v3", "DeepSeek-V3,", "671.03B",
                                             "parameters"]


def test_jamba_keeps_keys_and_values_in_its_four_attention_layers_only() -> None:
    # 2 (K and V) × 8 KV heads × 128 × 2 bytes = 4,096 bytes per attention layer and token
    report = estimate(_spec("jamba-v0.1.json", phase="inference", gpu="h100-80gb",
                            inference={"batch": 4, "context": 8192}))
    inf = report.inference
    assert inf is not None
    kv = inf.item("kv_cache")
    assert kv is not None and kv.bytes == 4_096 * 4 * 4 * 8_192
    assert "4 attention layers" in kv.formula
    state = inf.item("ssm_state")
    assert state is not None and state.bytes == 4 * 28 * 8_192 * (4 + 16) * 2
    # the capacity counts both per sequence: one more sequence than max_batch does not fit
    most, _ = inf.capacity
    assert most is not None
    at = estimate(_spec("jamba-v0.1.json", phase="inference", gpu="h100-80gb",
                        inference={"batch": most, "context": 8192})).inference
    over = estimate(_spec("jamba-v0.1.json", phase="inference", gpu="h100-80gb",
                          inference={"batch": most + 1, "context": 8192})).inference
    assert at is not None and over is not None
    assert at.gpus_needed == inf.gpus_needed and over.gpus_needed > inf.gpus_needed


def test_a_mamba_model_has_no_kv_cache() -> None:
    inf = estimate(_spec("mamba-2.8b.json", phase="inference")).inference
    assert inf is not None
    kv = inf.item("kv_cache")
    assert kv is not None and kv.bytes == 0 and "no layer has attention" in kv.formula
