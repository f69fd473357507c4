"""Presets: every computed parameter count equals the published one; every number has a source."""

from __future__ import annotations

import pytest

from quiz.footprint.inputs.arch import count_params
from quiz.footprint.inputs.presets import (
    PRESET_DIR,
    PresetError,
    get_gpu,
    get_model,
    gpu_presets,
    model_presets,
)

REQUIRED_MODELS = {
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3-8b",
    "llama-3-70b",
    "mistral-7b",
    "mixtral-8x7b",
    "gpt-3-175b",
    "gpt-2-1.5b",
}
REQUIRED_GPUS = {
    "a100-40gb",
    "a100-80gb",
    "h100-80gb",
    "h200-141gb",
    "l4",
    "rtx-4090",
    "b200-180gb",
    "mi300x",
}

# Published exact counts (Hugging Face safetensors metadata / checkpoint parameter counts).
PUBLISHED = {
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    "llama-3-8b": 8_030_261_248,
    "llama-3-70b": 70_553_706_496,
    "mistral-7b": 7_241_732_096,
    "mixtral-8x7b": 46_702_792_704,
    "gpt-2-1.5b": 1_557_611_200,
}
GPT3_TOLERANCE = 0.005
"""GPT-3's "175.0B" (Brown et al. 2020, Table 2.1) is rounded; the architecture gives
174,604,259,328, 0.23 % below. Checked within 0.5 %."""


def test_required_presets_exist() -> None:
    assert REQUIRED_MODELS <= set(model_presets())
    assert REQUIRED_GPUS <= set(gpu_presets())
    assert (PRESET_DIR / "models.yaml").is_file()


@pytest.mark.parametrize("pid", sorted(PUBLISHED))
def test_computed_count_equals_published(pid: str) -> None:
    preset = get_model(pid)
    assert preset.params == PUBLISHED[pid]
    assert preset.published_params == PUBLISHED[pid]
    assert not preset.published_rounded


def test_headline_counts() -> None:
    assert get_model("llama-2-7b").params == 6_738_415_616
    assert get_model("llama-3-8b").params == 8_030_261_248


def test_gpt3_within_stated_tolerance() -> None:
    preset = get_model("gpt-3-175b")
    assert preset.published_rounded
    assert preset.params == 174_604_259_328
    assert abs(preset.params - 175e9) / 175e9 < GPT3_TOLERANCE
    assert "0.5 %" in preset.published_params_source


def test_every_preset_has_sources() -> None:
    for preset in model_presets().values():
        assert preset.source and preset.published_params_source
        assert preset.published_rounded or preset.params == preset.published_params
    for gpu in gpu_presets().values():
        assert gpu.source and gpu.datasheet
        assert "MiB" in gpu.source or "(B)" in gpu.source  # the driver-reported figure


def test_gpu_memory_is_the_driver_figure() -> None:
    assert get_gpu("a100-80gb").memory_bytes == 81920 * 2**20 == 80 * 2**30
    assert get_gpu("a100-40gb").memory_bytes == 40 * 2**30
    assert get_gpu("h100-80gb").memory_bytes == 81559 * 2**20
    assert get_gpu("h200-141gb").memory_bytes == 143771 * 2**20
    assert get_gpu("b200-180gb").memory_bytes == 183359 * 2**20
    assert get_gpu("l4").memory_bytes == 23034 * 2**20
    assert get_gpu("rtx-4090").memory_bytes == 24564 * 2**20
    assert get_gpu("mi300x").memory_bytes == 205_822_885_888


def test_mixtral_counts_all_experts_and_reports_active() -> None:
    counts = count_params(get_model("mixtral-8x7b").arch)
    assert counts.total == 46_702_792_704
    assert counts.active == 12_879_925_248  # "13B active" (Jiang et al. 2024)
    dense = count_params(get_model("mistral-7b").arch)
    assert dense.total == dense.active == 7_241_732_096


def test_breakdown_adds_up() -> None:
    for preset in model_presets().values():
        c = count_params(preset.arch)
        parts = c.embeddings + c.positions + c.attention + c.mlp + c.router + c.norms + c.lm_head
        assert parts == c.total
        assert c.quantizable + c.kept_16bit == c.total


def test_unknown_preset_hint() -> None:
    with pytest.raises(PresetError, match=r"did you mean 'llama-2-7b'\?"):
        get_model("llama-7b")
    with pytest.raises(PresetError, match="h100-80gb"):
        get_gpu("h100")
    assert get_model("LLAMA-2-7B").id == "llama-2-7b"


THIRD_EDITION = {  # issue 21 §3: Hugging Face safetensors parameter counts
    "llama-3.1-8b": 8_030_261_248, "llama-3.1-70b": 70_553_706_496,
    "llama-3.1-405b": 405_853_388_800, "llama-3.2-1b": 1_235_814_400,
    "llama-3.2-3b": 3_212_749_824, "qwen2.5-7b": 7_615_616_512, "qwen2.5-72b": 72_706_203_648,
    "gemma-2-9b": 9_241_705_984, "gemma-2-27b": 27_227_128_320,
    "mistral-nemo-12b": 12_247_782_400, "mixtral-8x22b": 140_620_634_112,
    "phi-3-mini": 3_821_079_552,
}


@pytest.mark.parametrize("pid", list(THIRD_EDITION))
def test_third_edition_presets_match_their_published_counts(pid: str) -> None:
    preset = get_model(pid)
    assert preset.published_params == THIRD_EDITION[pid]
    assert abs(preset.params - THIRD_EDITION[pid]) <= THIRD_EDITION[pid] * 2 // 1000
    if not preset.published_rounded:
        assert preset.params == THIRD_EDITION[pid]
