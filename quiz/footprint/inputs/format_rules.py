"""Validity rules of issue 21 §6's conventions and formats: the bytes kept per logit, pipeline
stages that do not divide the layers evenly, llama.cpp's ``--gpu-layers`` and the nodes of a
load-time CPU RAM figure. Each returns the message of the problem (with its fix), or ``None``;
:class:`~quiz.footprint.inputs.parts.TrainingSpec` and
:class:`~quiz.footprint.inputs.spec.FootprintSpec` raise them as validation errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quiz.footprint.inputs.units import format_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.resolve import ResolvedModel

# The spec parts are typed Any here: quiz.footprint.inputs.parts calls these rules from its
# validators, so importing it (even for typing) would make an import cycle.
TrainingSpec = Any
InferenceSpec = Any

LOGITS_BYTES = (4, 6)
"""The two counts of the logits kept for the loss, in bytes per logit: Korthikanti et al. 2022
sec. 4.3 (the FP32 copy, ``4sbv/t``) and this tool's default (16-bit logits + FP32 copy)."""


def logits_problem(value: int | None, precision: str) -> str | None:
    """What is wrong with ``logits_bytes`` = ``value`` under training ``precision``: it must be
    4 or 6, and FP32 training has no 16-bit logits to count (``.float()`` returns the FP32
    logits themselves), so 6 is refused there. ``None`` when the value is fine or not given."""
    if value is None:
        return None
    if value not in LOGITS_BYTES:
        return (f"bytes per logit must be 4 (the FP32 copy alone, Korthikanti et al. 2022 sec. "
                f"4.3) or 6 (16-bit logits + the FP32 copy); got {format_count(value)}")
    if value == 6 and precision == "fp32":
        return ("FP32 training keeps 4 bytes per logit: the logits are FP32 already, so "
                "cross-entropy makes no copy; give 4 or leave it out")
    return None


def training_problems(t: TrainingSpec) -> list[tuple[str, str]]:
    """The problems of the §6 training fields of ``t`` as ``(field, message)`` pairs: the bytes
    per logit (:func:`logits_problem`) and ``zero_init`` without ZeRO stage 3 (DeepSpeed's
    ``zero.Init`` is part of ZeRO-3)."""
    out: list[tuple[str, str]] = []
    logits = logits_problem(t.logits_bytes, t.precision)
    if logits is not None:
        out.append(("logits_bytes", logits))
    if t.zero_init and t.zero != 3:
        out.append(("zero_init", f"zero.Init partitions the model as ZeRO stage 3 does; with "
                                 f"ZeRO stage {t.zero} every process builds the whole model: "
                                 "set zero to 3 or zero_init to false"))
    return out


def inference_problems(
    inf: InferenceSpec, r: ResolvedModel
) -> list[tuple[tuple[str, ...], str, str, object]]:
    """What makes ``gpu_layers`` impossible: ``(loc, kind, message, value)`` entries at
    ``("inference", "gpu_layers")``. llama.cpp's partial offload places the tensors of a GGUF
    file, so it needs a GGUF scheme and an architecture; it counts the layers and the output
    layer, so N is at most layers + 1 (llama.cpp itself clamps larger values, ``-ngl 99``
    meaning "all"; here a larger N is an error, so that nothing is accepted silently)."""
    n = inf.gpu_layers
    if n is None:
        return []
    loc = ("inference", "gpu_layers")
    if not inf.weights.startswith("gguf-"):
        return [(loc, "gpu_layers_gguf", "partial offload is llama.cpp's (--n-gpu-layers) and "
                 "places a GGUF file's tensors: choose a GGUF scheme for the weights, e.g. "
                 "gguf-q4_k_m", n)]
    if r.arch is None:
        return [(loc, "gpu_layers_arch", "partial offload needs the layers of the model: give a "
                 "model preset or a full architecture", n)]
    layers = r.arch.layers
    if n > layers + 1:
        return [(loc, "gpu_layers_range",
                 f"the model has {format_count(layers)} layers; llama.cpp offloads at most "
                 f"{format_count(layers + 1)} (every layer and the output layer): give "
                 f"{format_count(layers + 1)} or less", n)]
    return []


def pipeline_problems(
    t: TrainingSpec, r: ResolvedModel
) -> list[tuple[tuple[str, ...], str, str, object]]:
    """What makes the pipeline-parallel size impossible: more stages than layers (every stage
    needs one), or stages of different sizes under DeepSpeed's estimator convention (its
    formulas have no pipeline stages: the split would be silently even). Stages of different
    sizes are otherwise allowed (:mod:`quiz.footprint.items.pipeline`)."""
    layers = r.layers
    if not layers or t.pp == 1:
        return []
    loc = ("training", "pp")
    if t.pp > layers:
        return [(loc, "pp_layers", f"pipeline parallel size {format_count(t.pp)} is more than "
                 f"the {format_count(layers)} layers: every stage needs at least one layer", t.pp)]
    if layers % t.pp and t.convention == "deepspeed":
        return [(loc, "pp_uneven_deepspeed",
                 f"{format_count(layers)} layers over {format_count(t.pp)} stages are uneven, "
                 "and DeepSpeed's estimators have no pipeline stages: use the practice or paper "
                 "convention, or a pipeline size that divides the layers", t.pp)]
    return []
