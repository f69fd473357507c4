"""Each misconception's arithmetic against a value computed by hand.

Llama-2-7B has P = 6,738,415,616 parameters (32 layers, 32 heads, 32 KV heads of 128). Mixed BF16
with AdamW on one GPU: weights 2P, gradients 2P, FP32 master weights 4P, Adam's two moments 8P:
model states 16P = 107,814,649,856 bytes (Rajbhandari et al. 2020, sec. 3.1). Its BF16 KV cache
is 2 (K and V) x 32 layers x 32 KV heads x 128 x 2 bytes = 524,288 bytes per token. Llama-2-70B
(P = 68,976,648,192) has 80 layers, 64 query heads and 8 KV heads: 327,680 bytes per token.
"""

from __future__ import annotations

import pytest

from quiz.bank.computed.figures import Figures
from quiz.bank.computed.misconceptions import BY_NAME, CATALOG
from quiz.bank.computed.placeholders import parse_format
from quiz.footprint import FootprintSpec

P7 = 6_738_415_616
P70 = 68_976_648_192
KV7_TOKEN = 524_288
KV70_TOKEN = 327_680


def value(name: str, scenario: dict[str, object], figure: str) -> int | None:
    figures = Figures(FootprintSpec.from_mapping(scenario))
    return BY_NAME[name].compute(figures, parse_format(figure))


TRAIN = {"model": "llama-2-7b", "phase": "training",
         "training": {"precision": "mixed-bf16", "optimizer": "adamw"}}
SERVE_7B = {"model": "llama-2-7b", "phase": "inference",
            "inference": {"weights": "bf16", "batch": "8", "context": "4096"}}
SERVE_70B = {"model": "llama-2-70b", "phase": "inference",
             "inference": {"weights": "bf16", "batch": "1", "context": "4096"}}
INT4 = {"model": "llama-2-7b", "phase": "inference",
        "inference": {"weights": "int4", "batch": "8", "context": "4096"}}
ZERO1 = {"model": "llama-2-7b", "phase": "training",
         "training": {"precision": "mixed-bf16", "optimizer": "adamw", "zero": "1", "dp": "4"}}


def test_the_catalog_has_the_twelve_named_misconceptions_and_more() -> None:
    names = {m.name for m in CATALOG}
    assert {"forget-optimizer-states", "forget-master-weights", "forget-gradients",
            "adam-one-moment", "fp32-everything", "weights-only", "kv-without-k-and-v",
            "kv-all-query-heads", "gib-labelled-gb", "gb-labelled-gib", "no-zero-sharding",
            "int4-without-scales"} <= names
    assert len(CATALOG) >= 12
    for m in CATALOG:
        assert m.source and m.arithmetic and "{value}" in m.review and "{key}" in m.review


def test_the_key_itself_is_sixteen_bytes_per_parameter() -> None:
    assert Figures(FootprintSpec.from_mapping(TRAIN)).get("training.model_states") == 16 * P7


@pytest.mark.parametrize(("name", "expected"), [
    ("forget-optimizer-states", 8 * P7),    # 16P - 8P
    ("forget-master-weights", 12 * P7),     # 16P - 4P
    ("forget-gradients", 14 * P7),          # 16P - 2P
    ("adam-one-moment", 12 * P7),           # 16P - 8P/2
    ("fp32-everything", 20 * P7),           # 4 + 4 + 4 + 8 bytes per parameter
    ("weights-only", 2 * P7),
    ("gib-labelled-gb", 16 * P7 * 10**9 // 2**30),   # 100,410,... bytes: "100.4 GB"
])
def test_training_misconceptions(name: str, expected: int) -> None:
    assert value(name, TRAIN, "training.model_states | GB:1") == expected


def test_gib_labelled_gb_writes_the_gib_number_as_gb() -> None:
    figure = parse_format("training.model_states | GB:1")
    assert figure.write(value("gib-labelled-gb", TRAIN, "training.model_states | GB:1") or 0) \
        == "100.4 GB"          # 107,814,649,856 / 2^30 = 100.41
    assert figure.write(16 * P7) == "107.8 GB"


def test_gb_labelled_gib_writes_the_gb_number_as_gib() -> None:
    figure = parse_format("training.model_states | GiB:1")
    found = value("gb-labelled-gib", TRAIN, "training.model_states | GiB:1")
    assert found == 16 * P7 * 2**30 // 10**9
    assert figure.write(found) == "107.8 GiB"      # 107,814,649,856 / 10^9 = 107.81
    assert figure.write(16 * P7) == "100.4 GiB"


def test_no_zero_sharding_is_the_unsharded_state() -> None:
    # ZeRO-1 over 4 ranks: 2P + 2P + (4P + 8P) / 4 = 7P per device; without sharding 16P.
    assert Figures(FootprintSpec.from_mapping(ZERO1)).get("training.model_states") == 7 * P7
    assert value("no-zero-sharding", ZERO1, "training.model_states | GB:1") == 16 * P7
    assert value("no-zero-sharding", TRAIN, "training.model_states | GB:1") is None


def test_forget_activations_leaves_every_activation_item_out() -> None:
    figures = Figures(FootprintSpec.from_mapping(TRAIN))
    activations = sum(figures.item("training", i) for i in
                      ("activations", "embedding_activations", "output_activations", "logits"))
    # 16P of model states; the total is that plus the activations.
    assert figures.get("training.total") == 16 * P7 + activations
    assert value("forget-activations", TRAIN, "training.total | GB:1") == 16 * P7


@pytest.mark.parametrize(("name", "expected"), [
    ("kv-without-k-and-v", KV7_TOKEN * 8 * 4096 // 2),   # 8,589,934,592
    ("kv-one-sequence", KV7_TOKEN * 4096),               # 2,147,483,648
    ("kv-all-query-heads", None),                        # 32 KV heads = 32 heads: no GQA
])
def test_kv_cache_misconceptions_7b(name: str, expected: int | None) -> None:
    assert Figures(FootprintSpec.from_mapping(SERVE_7B)).get("inference.kv_cache") \
        == KV7_TOKEN * 8 * 4096 == 17_179_869_184
    assert value(name, SERVE_7B, "inference.kv_cache | GB:2") == expected


def test_kv_all_query_heads_scales_by_heads_over_kv_heads() -> None:
    assert Figures(FootprintSpec.from_mapping(SERVE_70B)).get("inference.kv_cache") \
        == KV70_TOKEN * 4096 == 1_342_177_280
    assert value("kv-all-query-heads", SERVE_70B, "inference.kv_cache | GB:2") \
        == KV70_TOKEN * 4096 * 64 // 8 == 10_737_418_240
    assert value("kv-one-sequence", SERVE_70B, "inference.kv_cache | GB:2") is None  # batch 1


def test_forget_kv_cache_and_weights_only_for_the_inference_total() -> None:
    figures = Figures(FootprintSpec.from_mapping(SERVE_7B))
    total = figures.number("inference.total")
    assert value("forget-kv-cache", SERVE_7B, "inference.total | GB:2") == total - 17_179_869_184
    assert value("weights-only", SERVE_7B, "inference.total | GB:2") == 2 * P7
    # BF16 -> FP32 doubles the weights (4 bytes a parameter) and the KV cache.
    assert value("fp32-everything", SERVE_7B, "inference.weights | GB:2") == 4 * P7


def test_int4_without_scales_is_half_a_byte_per_parameter() -> None:
    assert value("int4-without-scales", INT4, "inference.weights | GB:2") == P7 // 2
    figures = Figures(FootprintSpec.from_mapping(INT4))
    weights = figures.item("inference", "weights")
    overhead = figures.item("inference", "quantization_overhead")
    assert value("int4-without-scales", INT4, "inference.total | GB:2") \
        == figures.number("inference.total") - weights - overhead + P7 // 2
    assert value("int4-without-scales", SERVE_7B, "inference.weights | GB:2") is None


def test_adam_one_moment_needs_adam() -> None:
    sgd = {**TRAIN, "training": {"precision": "mixed-bf16", "optimizer": "sgd-momentum"}}
    assert value("adam-one-moment", sgd, "training.model_states | GB:1") is None


def review(name: str, scenario: dict[str, object], figure: str) -> str:
    figures = Figures(FootprintSpec.from_mapping(scenario))
    return BY_NAME[name].review_text(figures, parse_format(figure))


SGD_MOMENTUM = {"model": "llama-2-7b", "phase": "training",
                "training": {"precision": "mixed-bf16", "optimizer": "sgd-momentum"}}


def test_forget_optimizer_states_names_the_scenarios_optimizer() -> None:
    # SGD with momentum: one FP32 buffer (4 bytes), as large as the master copy, not the
    # largest state; the review spoke of Adam's two moments for it.
    sgd = review("forget-optimizer-states", SGD_MOMENTUM, "training.model_states | GB:1")
    assert sgd == ("{value} leaves out the optimizer states ({part}). SGD with momentum keeps "
                   "one FP32 momentum buffer per trained parameter (4 bytes); the full count "
                   "is {key}.")
    adamw = review("forget-optimizer-states", TRAIN, "training.model_states | GB:1")
    assert adamw == ("{value} leaves out the optimizer states ({part}). AdamW keeps two FP32 "
                     "moments per trained parameter (8 bytes), the largest of the model states "
                     "here; the full count is {key}.")
    eight_bit = dict(SGD_MOMENTUM, training={"precision": "mixed-bf16",
                                             "optimizer": "adam-8bit"})
    assert "8-bit Adam keeps two 8-bit moments per trained parameter (2 bytes, plus a 4-byte " \
        "scale per block of 256)" in review("forget-optimizer-states", eight_bit,
                                            "training.model_states | GB:1")


def test_fp32_everything_speaks_of_the_phase_its_figure_is_about() -> None:
    training = review("fp32-everything", SGD_MOMENTUM, "training.model_states | GB:1")
    assert training == ("{value} counts the working weights and gradients at 4 bytes (FP32). "
                        "Mixed precision keeps them in BF16 (2 bytes per parameter); only the "
                        "master copy and the momentum buffer are FP32. The right figure is "
                        "{key}.")
    # Serving: no word of training (it ended with a remark about serving in every question).
    assert review("fp32-everything", SERVE_7B, "inference.total | GB:2") == (
        "{value} counts every value at 4 bytes (FP32), but here the weights are BF16 (2 bytes "
        "per parameter) and the KV cache BF16 (2 bytes per value); the right figure is {key}.")
    assert review("fp32-everything", SERVE_7B, "inference.weights | GB:2") == (
        "{value} counts every value at 4 bytes (FP32), but here the weights are BF16 (2 bytes "
        "per parameter); the right figure is {key}.")
    int8 = dict(SERVE_7B, inference={"weights": "int8", "batch": "8", "context": "4096",
                                     "kv_dtype": "fp8"})
    words = review("fp32-everything", int8, "inference.total | GB:2")
    assert "the weights are INT8 (about 1.0" in words and "KV cache FP8 (1 byte per value)" \
        in words


def test_weights_only_and_no_zero_sharding_read_for_their_scenario() -> None:
    assert review("weights-only", SERVE_7B, "inference.total | GB:2") == (
        "{value} is the weights alone. Serving also holds the KV cache of every sequence and "
        "working memory (activations); the right figure is {key}.")
    assert review("weights-only", TRAIN, "training.model_states | GB:1") == (
        "{value} is the weights alone. Training also holds the gradients, FP32 master weights "
        "and optimizer states; the right figure is {key}.")
    assert review("no-zero-sharding", ZERO1, "training.model_states | GB:1") == (
        "{value} ignores the ZeRO sharding: every data-parallel rank would keep the whole "
        "state. ZeRO stage 1 splits the optimizer states and the FP32 master weights over the "
        "4 data-parallel ranks; the right figure per device is {key}.")


@pytest.mark.parametrize("scenario", [TRAIN, SGD_MOMENTUM, SERVE_7B, SERVE_70B, INT4, ZERO1])
def test_every_review_fills_its_fields_and_nothing_else(scenario: dict[str, object]) -> None:
    from quiz.bank.computed.template import fill_review

    figures = Figures(FootprintSpec.from_mapping(scenario))
    for m in CATALOG:
        for figure in ("training.model_states | GB:1", "training.total | GB:1",
                       "inference.total | GB:2", "inference.kv_cache | GB:2",
                       "inference.weights | GB:2"):
            fmt = parse_format(figure)
            if not m.applies_to(fmt) or not figure.startswith(str(scenario["phase"])):
                continue
            if m.compute(figures, fmt) is None:
                continue
            text = fill_review(m.review_text(figures, fmt), value="1 GB", key="2 GB",
                               part="1 GB")
            assert "{" not in text and "}" not in text and "2 GB" in text, (m.name, text)
