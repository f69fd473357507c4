"""Issue 21 §6: conventions and formats that had no switch (Korthikanti's 4-byte logits, uneven
pipeline stages, more GGUF types, llama.cpp's partial offload, CPU RAM while a model loads)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec

GPT3 = {"layers": 96, "hidden": 12288, "heads": 96, "ffn": 49152, "vocab": 51200,
        "gated_mlp": False, "norm": "layernorm", "linear_bias": True}
"""GPT-3 175B as Korthikanti et al. 2022 model it (Table 3: a = 96, h = 12,288, L = 96)."""


def _training(**training: object) -> FootprintSpec:
    return FootprintSpec.from_mapping({**GPT3, "phase": "training", "training": {
        "convention": "paper", "tp": 8, "sequence_parallel": True, "seq_len": 2048,
        "micro_batch": 1, **training}})


def test_four_byte_logits_reproduce_korthikanti_sec_4_3() -> None:
    # Sec. 4.3 with p = 1, tensor and sequence parallel: sbhL/t (34 + 5as/h) for the layers,
    # plus sbhp/t (embedding dropout) + 4sbh/t (output layer inputs) + 4sbv/t (FP32 logits).
    s, b, h, a, t, v, L = 2048, 1, 12288, 96, 8, 51200, 96
    report = estimate(_training(logits_bytes=4))
    tr = report.training
    assert tr is not None
    layers = s * b * h * L // t * (34 + 5 * a * s // h)
    assert tr.item("activations").bytes == layers == 34_426_847_232  # type: ignore[union-attr]
    extra = s * b * h // t + 4 * s * b * h // t + 4 * s * b * v // t
    got = sum(tr.item(n).bytes for n in  # type: ignore[union-attr]
              ("embedding_activations", "output_activations", "logits"))
    assert got == extra == 68_157_440
    assert tr.item("logits").bytes == 52_428_800  # type: ignore[union-attr]
    assert report.to_json()["training"]["assumptions"]["logits_bytes"] == 4
    # The default keeps the 16-bit logits too: 6 bytes per logit.
    default = estimate(_training()).training
    assert default is not None and default.item("logits").bytes == 78_643_200  # type: ignore[union-attr]


def test_logits_bytes_other_than_four_or_six_is_an_error() -> None:
    with pytest.raises(ValidationError) as err:
        _training(logits_bytes=5)
    assert "must be 4" in str(err.value)
    with pytest.raises(ValidationError) as err:
        _training(logits_bytes=6, precision="fp32")
    assert "FP32 training keeps 4 bytes per logit" in str(err.value)


def _load(**training: object) -> dict[str, object]:
    spec = FootprintSpec.from_mapping({"model": "llama-2-70b", "phase": "training",
                                       "training": training})
    data = estimate(spec).to_json()["training"]["load_cpu"]
    assert isinstance(data, dict)
    return data


LLAMA_2_70B = 68_976_648_192


def test_load_cpu_ram_without_zero_init_is_the_whole_model_per_process() -> None:
    # ZeRO-2 over 16 GPUs on 2 nodes of 8: each process builds the whole model in FP32.
    load = _load(zero=2, dp=16)
    assert load["zero_init"] is False and load["nodes"] == 2 and load["gpus_per_node"] == 8
    assert load["per_process_bytes"] == LLAMA_2_70B * 4 == 275_906_592_768
    assert load["per_node_bytes"] == LLAMA_2_70B * 4 * 8


def test_load_cpu_ram_with_zero_init_is_the_partition() -> None:
    # ZeRO-3 turns zero.Init on: ⌈P / 16⌉ parameters per process.
    load = _load(zero=3, dp=16)
    assert load["zero_init"] is True
    assert load["params_per_process"] == -(-LLAMA_2_70B // 16) == 4_311_040_512
    assert load["per_node_bytes"] == 4_311_040_512 * 4 * 8
    # zero.Init switched off under ZeRO-3: the whole model again; 4 GPUs per node: 4 nodes.
    off = _load(zero=3, dp=16, zero_init=False, gpus_per_node=4)
    assert off["per_process_bytes"] == LLAMA_2_70B * 4 and off["nodes"] == 4
    assert off["per_node_bytes"] == LLAMA_2_70B * 4 * 4


def test_zero_init_needs_zero_stage_3() -> None:
    with pytest.raises(ValidationError) as err:
        FootprintSpec.from_mapping({"model": "llama-2-7b", "training": {"zero_init": True}})
    assert "set zero to 3" in str(err.value)


def test_load_table_in_the_text_report_when_asked() -> None:
    from quiz.footprint.words.render import render_report

    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                       "training": {"dp": 8, "gpus_per_node": 8}})
    text = render_report(estimate(spec))
    assert "CPU RAM while the model loads (without zero.Init) — per node" in text
    assert "215.63 GB" in text  # 6,738,415,616 × 4 × 8
    plain = FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                        "training": {"dp": 8}})
    assert "CPU RAM while the model loads" not in render_report(estimate(plain))


def _ngl(n: int, **extra: object) -> FootprintSpec:
    return FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                       "inference": {"weights": "gguf-q4_k_m",
                                                     "gpu_layers": n, **extra}})


def test_gpu_layers_split_llama_2_7b_q4_k_m_by_hand() -> None:
    # -ngl 20: the output layer and layers 13-31 on the GPU (llama.cpp: the last 20 of the
    # 33 slots). Output Q6_K: 512,000 blocks × 210 = 107,520,000 bytes. A layer at Q4_K
    # (144 bytes per 256): q, k, o 65,536 blocks, gate, up 176,128, v 65,536, down 176,128:
    # 113,836,032 bytes; the 9 use_more_bits layers among 13-31 (15, 18, 21, 24, 27-31) have
    # attn_v and ffn_down in Q6_K (+66 bytes per block): +15,949,824 each. F32 norms: the final
    # one (16,384 bytes) + 19/32 of the layers' 1,048,576.
    report = estimate(_ngl(20))
    inf = report.inference
    assert inf is not None
    gpu = sum(inf.item(n).bytes for n in ("weights", "quantization_overhead"))  # type: ignore[union-attr]
    assert gpu == 107_520_000 + 19 * 113_836_032 + 9 * 15_949_824 + 16_384 + 622_592
    assert gpu == 2_414_592_000
    whole = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                                 "inference": {"weights": "gguf-q4_k_m"}}))
    assert whole.inference is not None
    file_bytes = 4_080_263_168  # weights + scales of the whole file (test_footprint_quant)
    cpu = {i.name: i.bytes for i in inf.host["cpu"]}
    assert cpu["weights"] + cpu["quantization_overhead"] == file_bytes - gpu
    # KV cache: 2 × 32 layers × 4,096 × 2 bytes × 2,048 tokens = 1,073,741,824; 19/32 on GPU.
    assert inf.item("kv_cache").bytes == 1_073_741_824 * 19 // 32  # type: ignore[union-attr]
    assert cpu["kv_cache"] == 1_073_741_824 * 13 // 32
    data = report.to_json()["inference"]
    assert data["offloaded"]["cpu"]["total_bytes"] == sum(cpu.values())
    assert report.figure("inference.cpu_total") == sum(cpu.values())


def test_gpu_layers_all_keeps_only_the_token_embedding_on_the_cpu() -> None:
    inf = estimate(_ngl(33)).inference
    assert inf is not None
    cpu = {i.name: i.bytes for i in inf.host["cpu"]}
    # token_embd Q4_K: 512,000 blocks × 144 = 73,728,000 bytes (values 65,536,000 + scales)
    assert cpu["weights"] + cpu["quantization_overhead"] == 73_728_000
    assert cpu["kv_cache"] == 0
    none = estimate(_ngl(0)).inference
    assert none is not None and none.item("kv_cache").bytes == 0  # type: ignore[union-attr]


def test_gpu_layers_errors() -> None:
    with pytest.raises(ValidationError) as err:
        _ngl(34)
    assert "offloads at most 33" in str(err.value)
    with pytest.raises(ValidationError) as err:
        FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                    "inference": {"gpu_layers": 10}})
    assert "choose a GGUF scheme" in str(err.value)


LLAMA_405B = 405_853_388_800


def _pp(pp: int, **training: object) -> FootprintSpec:
    return FootprintSpec.from_mapping({"model": "llama-3.1-405b", "phase": "training",
                                       "training": {"pp": pp, "seq_len": 4096, **training}})


def test_126_layers_over_16_stages_first_stage_is_the_heaviest() -> None:
    report = estimate(_pp(16, tp=8, dp=4, zero=1))
    tr = report.training
    assert tr is not None
    # DeepSpeed's uniform split: 126 = 14 × 8 + 2 × 7; the first stage holds 8 of 126 layers.
    assert report.to_json()["training"]["pipeline_stages"] == [8] * 14 + [7] * 2
    per = -(-LLAMA_405B * 8 // (126 * 8))  # × 8/126, ÷ tp 8, rounded up
    assert per == 3_221_058_642
    assert tr.item("weights").bytes == per * 2  # type: ignore[union-attr]
    assert tr.item("master_weights").bytes == -(-per // 4) * 4  # type: ignore[union-attr]
    # Activations: p × ⌈L/p⌉ = 128 layers' worth on the first stage (tp 1: whole bytes per
    # layer), against 126 without pipeline parallelism.
    act16 = estimate(_pp(16)).training
    act1 = estimate(_pp(1)).training
    assert act16 is not None and act1 is not None
    a16 = act16.item("activations").bytes  # type: ignore[union-attr]
    a1 = act1.item("activations").bytes  # type: ignore[union-attr]
    assert a16 * 126 == a1 * 128
    # Even stages are unchanged: 126 over 2 (63 each) splits the parameters ÷ pp.
    even = estimate(_pp(2, tp=8)).training
    assert even is not None
    assert even.item("weights").bytes == -(-LLAMA_405B // 16) * 2  # type: ignore[union-attr]
    assert estimate(_pp(2)).to_json()["training"]["pipeline_stages"] == [63, 63]


def test_pipeline_stage_errors() -> None:
    with pytest.raises(ValidationError) as err:
        _pp(127)
    assert "every stage needs at least one layer" in str(err.value)
    with pytest.raises(ValidationError) as err:
        _pp(16, convention="deepspeed")
    assert "DeepSpeed's estimators have no pipeline stages" in str(err.value)
