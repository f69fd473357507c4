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
