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
