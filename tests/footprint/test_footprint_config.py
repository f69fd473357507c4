"""``--config PATH`` (issue 21 §3): Hugging Face config.json files read into architectures,
parameter counts within 0.2 % of the published ones, MLA's KV cache per token."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from quiz.footprint import FootprintSpec, estimate

CONFIGS = Path(__file__).resolve().parent / "configs"


def _spec(name: str, **extra: object) -> FootprintSpec:
    return FootprintSpec.from_mapping({"config": str(CONFIGS / name), **extra})


@pytest.mark.parametrize(("name", "published"), [
    ("llama-3.1-8b.json", 8_030_261_248),  # model card: 8.03B (safetensors 8,030,261,248)
    ("gemma-2-9b.json", 9_241_705_984),  # safetensors of google/gemma-2-9b
    ("deepseek-v3.json", 671_000_000_000),  # technical report: 671B total
])
def test_parameters_within_0_2_percent_of_the_published_count(name: str, published: int) -> None:
    params = estimate(_spec(name)).model.params
    assert abs(params - published) <= published * 2 // 1000


def test_llama_3_1_8b_is_exact() -> None:
    # per layer: attention 2 × 4,096² + 2 × 4,096 × 1,024 = 41,943,040, MLP 3 × 4,096 ×
    # 14,336 = 176,160,768, two norms 8,192; × 32 + two 128,256 × 4,096 tables + final norm
    assert estimate(_spec("llama-3.1-8b.json")).model.params == \
        32 * (41_943_040 + 176_160_768 + 8_192) + 2 * 128_256 * 4_096 + 4_096


def test_gemma_2_alternates_sliding_window_layers() -> None:
    r = _spec("gemma-2-9b.json").resolved
    assert (r.sliding_window, r.sliding_layers, r.layers) == (4096, 21, 42)
    # 8,192 tokens: 21 global layers keep 8,192, 21 local ones 4,096; 2 × 8 × 256 × 2 bytes
    report = estimate(_spec("gemma-2-9b.json", phase="inference", inference={"context": 8192}))
    assert report.inference is not None
    kv = report.inference.item("kv_cache")
    assert kv is not None and kv.bytes == 2 * 8 * 256 * 2 * (21 * 8192 + 21 * 4096)


def test_deepseek_v3_mla_kv_cache_and_experts() -> None:
    spec = _spec("deepseek-v3.json", phase="inference")
    report = estimate(spec)
    # MLA: (kv_lora_rank 512 + qk_rope_head_dim 64) × 61 layers × 2 bytes per token
    kv = report.inference.item("kv_cache") if report.inference else None
    assert kv is not None and kv.bytes == (512 + 64) * 61 * 2 * 2048
    # 3 dense layers; 58 MoE layers of 256 routed + 1 shared experts, 8 routed active
    assert report.model.params == 671_026_419_200
    assert report.model.active_params == 37_552_297_472  # published: 37B activated
    assert "multi-head latent attention" in kv.formula


def test_unknown_model_type_and_bad_files_are_clear_errors(tmp_path: Path) -> None:
    odd = tmp_path / "config.json"
    odd.write_text('{"model_type": "mamba2", "hidden_size": 4}', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"model_type 'mamba2' is not supported; "
                                              r"supported: llama, mistral"):
        FootprintSpec.from_mapping({"config": str(odd)})
    odd.write_text('{"model_type": "llama", "hidden_size": 4096}', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"num_hidden_layers must be a positive whole "
                                              r"number \(got None\); keys read: model_type, "
                                              r"hidden_size, num_hidden_layers"):
        FootprintSpec.from_mapping({"config": str(odd)})
    odd.write_text("{", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"config.json:1:2: not JSON"):
        FootprintSpec.from_mapping({"config": str(odd)})
    with pytest.raises(ValidationError, match="cannot read it"):
        FootprintSpec.from_mapping({"config": str(tmp_path / "missing.json")})
