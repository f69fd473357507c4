"""Validity rules of issue 21 §6's conventions and formats: the bytes kept per logit, pipeline
stages that do not divide the layers evenly, llama.cpp's ``--gpu-layers`` and the nodes of a
load-time CPU RAM figure. Each returns the message of the problem (with its fix), or ``None``;
:class:`~quiz.footprint.inputs.parts.TrainingSpec` and
:class:`~quiz.footprint.inputs.spec.FootprintSpec` raise them as validation errors."""

from __future__ import annotations

from quiz.footprint.inputs.units import format_count

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
