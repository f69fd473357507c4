"""Plain-text rendering: tables, bars on one scale, derivation steps."""

from __future__ import annotations

import re

import pytest

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.words.render import derivation_steps, render_bars, render_report


def report(**data: object):
    return estimate(FootprintSpec.from_mapping(data))


def test_derivation_steps_single_phase() -> None:
    steps = derivation_steps(report(model="llama-2-7b", phase="inference"))
    assert steps[0] == "weights = 6,738,415,616 params × 2 bytes (BF16) = 13.48 GB"
    assert any(s.startswith("total = ") for s in steps)
    assert any(s.startswith("storage: inference artifact = ") for s in steps)


def test_derivation_steps_both_phases_are_prefixed() -> None:
    steps = derivation_steps(report(model="llama-2-7b"), units="GiB")
    assert steps[0] == "training: weights = 6,738,415,616 params × 2 bytes (BF16) = 12.55 GiB"
    assert any(s.startswith("inference: kv cache = ") for s in steps)


def test_bars_share_one_scale() -> None:
    r = report(model="llama-2-7b", training={"convention": "paper"})
    text = render_bars(r, width=80)
    rows = {
        line.split()[0]: line
        for line in text.splitlines()
        if line.startswith(("training ", "inference "))
    }
    cells = {k: sum(ch in "█▓▒░▚▄▀" for ch in v) for k, v in rows.items()}
    ratio = r.training.total_bytes / r.inference.total_bytes
    assert cells["training"] / cells["inference"] == pytest.approx(ratio, rel=0.1)
    assert "█ weights" in text
    # 1.07 GB of KV cache is under one 2.31 GB cell: listed with its size, not with a glyph
    # that appears on no bar (issue 7 item 8).
    assert "▄ kv cache" not in text
    assert "under one cell (inference, not drawn): kv cache 1.07 GB" in text


def test_every_glyph_in_a_legend_is_drawn_on_its_bars() -> None:
    for spec in ({"model": "llama-2-7b"}, {"model": "llama-2-7b", "inference": {"weights": "int4"}},
                 {"model": "llama-2-70b", "gpu": "h100-80gb", "training": {"zero": 3, "dp": 64}}):
        for width in (40, 60, 80, 120):
            text = render_bars(report(**spec), width=width)
            for block in text.split("\n\n"):
                lines = block.splitlines()
                bars = "".join(line for line in lines if not line.lstrip().startswith(
                    ("under", "█ ", "▓ ", "▒ ", "░ ", "▚ ", "▄ ", "▀ ")) and "cell" not in line)
                legend = [line for line in lines if line not in bars]
                glyphs = {tok.strip()[0] for line in legend for tok in line.split("  ")
                          if tok.strip() and tok.strip()[0] in "█▓▒░▚▄▀#"
                          and len(tok.strip()) > 1 and tok.strip()[1] == " "}
                for glyph in glyphs:
                    assert glyph in bars, (spec, width, glyph, block)


def test_gpu_marker_and_fit_line() -> None:
    r = report(model="llama-2-7b", gpu="a100-80gb", training={"zero": 3, "dp": 8})
    text = render_report(r, width=100)
    assert "NVIDIA A100 80GB: 85.90 GB ▲" in text
    assert "Fit: " in text and "fewest GPUs" in text


def test_omitted_items_are_listed() -> None:
    text = render_report(report(params="7B"), width=80)
    assert "Not estimated:" in text
    assert "training activations: activation memory needs the layers" in text


@pytest.mark.parametrize("width", [40, 57, 80, 123])
def test_every_line_fits(width: int) -> None:
    for r in (
        report(
            model="mixtral-8x7b",
            gpu="h200-141gb",
            inference={"weights": "int4"},
            storage={"dataset_tokens": "8T"},
        ),
        report(params="175B", training={"optimizer": "adafactor"}),
    ):
        for text in (render_report(r, width=width, explain=True), render_bars(r, width=width)):
            assert max(len(line) for line in text.splitlines()) <= width


EXTREMES = [
    # the largest sizes the bounds allow: ~4 × 10^11 YiB of attention scores
    {
        "layers": "1e5",
        "hidden": 8,
        "heads": "1e5",
        "head_dim": 1,
        "ffn": 1,
        "vocab": 1,
        "gpu": "h100-80gb",
        "training": {"seq_len": "1e9", "micro_batch": "1e7", "convention": "paper"},
        "inference": {"context": "1e9", "batch": "1e7", "weights": "int4"},
        "storage": {"dataset_tokens": "1e16", "checkpoints": "1e6"},
    },
    {
        "params": "1e15",
        "layers": 2,
        "hidden": 12345,
        "heads": 5,
        "gpu": "l4",
        "training": {"dp": "1e6", "zero": 3, "seq_len": "1e9", "micro_batch": "1e7"},
        "storage": {"dataset_size": "1000PB"},
    },
]


@pytest.mark.parametrize("units", ["GB", "GiB"])
@pytest.mark.parametrize("width", [40, 41, 50, 57, 80, 123, 400])
@pytest.mark.parametrize("data", EXTREMES)
def test_every_line_fits_at_the_bounds(data: dict, width: int, units: str) -> None:
    r = estimate(FootprintSpec.from_mapping({**data, "units": units}))
    for text in (render_report(r, width=width, units=units, explain=True),
                 render_bars(r, width=width, units=units)):
        assert max(len(line) for line in text.splitlines()) <= width
    for line in derivation_steps(r, units=units):
        assert "e+" not in line


def test_huge_sizes_stack_in_a_narrow_table() -> None:
    r = estimate(FootprintSpec.from_mapping({**EXTREMES[0], "units": "GiB"}))
    text = render_report(r, width=40, units="GiB")
    assert "413,590,306,276.74 YiB" in text
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("│ activations "))
    assert lines[k + 1].rstrip(" │").endswith("413,590,306,276.74 YiB")


def test_derivation_steps_end_each_phase_with_its_fit_when_a_gpu_is_given() -> None:
    from quiz.footprint import FootprintSpec, derivation_steps, estimate

    spec = {"model": "llama-2-7b", "training": {"zero": 1, "dp": 8}}
    plain = derivation_steps(estimate(FootprintSpec.from_mapping(spec)))
    assert not any(": fit: " in line for line in plain)
    steps = derivation_steps(estimate(FootprintSpec.from_mapping({**spec, "gpu": "h100-80gb"})))
    fits = [line for line in steps if ": fit: " in line]
    assert [f.split(":")[0] for f in fits] == ["training", "inference"]
    assert fits[1].startswith("inference: fit: needs 1 × NVIDIA H100")


def _convention(data: dict[str, object]) -> str:
    report = estimate(FootprintSpec.from_mapping(data))
    assert report.training is not None
    return report.training.convention.split(";")[0]


def test_bytes_per_param_totals_equal_their_terms() -> None:
    # issue 7 item 22: "8 bytes/param + ≈2.004 (8-bit Adam) = 2 + 2 + 4" did not add up
    text = _convention({"params": "7B", "training": {"optimizer": "adam-8bit"}})
    assert text.startswith("≈10.031 bytes/param = 2 (BF16 weights) + 2 (BF16 gradients) + "
                           "4 (FP32 master) + ≈2.031 (8-bit Adam")
    text = _convention({"model": "llama-2-7b", "training": {"optimizer": "adafactor"}})
    total, terms = text.split(" bytes/param = ")
    numbers = re.findall(r"(?:^|\+ )≈?([\d.]+) \(", terms)
    assert len(numbers) == 4 and total.startswith("≈")
    assert abs(float(total[1:]) - sum(float(n) for n in numbers)) < 0.00051
    text = _convention({"params": "7B", "training": {"optimizer": "adafactor"}})
    assert text == ("8 bytes/param = 2 (BF16 weights) + 2 (BF16 gradients) + 4 (FP32 master), "
                    "plus Adafactor's factored states (not estimated without an architecture)")
    assert _convention({"params": "7B"}).startswith("16 bytes/param = 2 (BF16 weights) + ")


def test_quantization_wording_says_what_is_computed() -> None:
    from quiz.footprint.words.explain import explain_notes

    def note(data: dict[str, object]) -> str:
        report = estimate(FootprintSpec.from_mapping({**data, "phase": "inference"}))
        return next(n for n in explain_notes(report) if n.startswith("Quantized weights"))

    # no architecture: every parameter is quantized, and the note says so
    text = note({"params": "7B", "inference": {"weights": "int4"}})
    assert "with no architecture this estimate quantizes every parameter" in text
    assert "keeps embeddings" not in text
    conv = estimate(FootprintSpec.from_mapping(
        {"params": "7B", "phase": "inference", "inference": {"weights": "int4"}}))
    assert conv.inference is not None
    assert "every parameter quantized (no architecture)" in conv.inference.convention
    # FP8: one FP32 scale per matrix is computed, and explained; no group scales
    text = note({"model": "llama-2-7b", "inference": {"weights": "fp8"}})
    assert "one FP32 scale per quantized weight matrix" in text
    assert "GPTQ" not in text and "group" not in text.replace("no group scales", "")
    text = note({"model": "llama-2-7b", "inference": {"weights": "int4"}})
    assert "keeps embeddings, LM head and norms in 16 bits" in text
    assert "one FP16 scale and one 4-bit zero point per group of 128 weights" in text


@pytest.mark.parametrize(("model", "gpu", "extra", "even", "needed"), [
    ("llama-3-70b", "h100-80gb", {"context": 32768, "batch": 8}, 3, 4),  # 64 heads, 8 KV heads
    ("mixtral-8x7b", "a100-40gb", {}, 3, 4),  # 32 heads, 8 KV heads
    ("gpt-3-175b", "l4", {}, 15, 16),  # 96 heads
])
def test_inference_gpu_count_divides_the_heads(model: str, gpu: str, extra: dict[str, int],
                                               even: int, needed: int) -> None:
    # issue 7 item 23: 3 GPUs cannot split 64 heads by tensor parallelism; serving engines refuse
    from quiz.footprint.engine.fit import tensor_parallel_fits

    spec = FootprintSpec.from_mapping({"model": model, "gpu": gpu, "phase": "inference",
                                       "inference": extra, "gpu_util": 1})
    report = estimate(spec)
    phase = report.inference
    assert phase is not None and spec.gpu_preset is not None
    memory = spec.gpu_preset.memory_bytes
    assert -(-phase.total_bytes // memory) == even
    assert phase.gpus_needed == needed
    r = spec.resolved
    assert r.heads and r.kv_heads and tensor_parallel_fits(needed, r.heads, r.kv_heads)
    assert phase.headroom == needed * memory - phase.total_bytes
    text = " ".join(render_report(report, width=120).split())
    assert f"needs {needed} × " in text and f"rounded up from {even} so that tensor " \
        "parallelism divides the" in text


def test_inference_beyond_the_heads_says_it_assumes_a_pipeline_split() -> None:
    spec = FootprintSpec.from_mapping({"model": "gpt-2-1.5b", "gpu": "l4", "phase": "inference",
                                       "inference": {"context": 100_000, "batch": 64}})
    report = estimate(spec)
    assert report.inference is not None and report.inference.gpus_needed is not None
    assert report.inference.gpus_needed > 25  # GPT-2 XL has 25 heads
    assert "assumes a pipeline split" in report.inference.fit_advice
