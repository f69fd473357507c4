"""The formulas of the quantized weight items: the arithmetic of the ``weights`` and
``quantization_overhead`` items in words, with the numbers filled in."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.quant.gguf import GGML_TYPES
from quiz.footprint.quant.plan import TensorGroup, WeightPlan

if TYPE_CHECKING:
    pass


def bytes_text(bits: int) -> str:
    """A per-item size in bytes from its bits: 16 → ``"2 bytes"``, 4 → ``"0.5 bytes"``,
    8 → ``"1 byte"``."""
    if bits == 8:
        return "1 byte"
    if bits % 8 == 0:
        return f"{format_count(bits // 8)} bytes"
    return f"{bits / 8:g} bytes"


def bits_text(bpw: Fraction) -> str:
    """Bits per weight, exact when short: 9/2 → ``"4.5"``, 2113/512 → ``"4.127"``."""
    if bpw.denominator == 1:
        return str(bpw.numerator)
    exact = f"{float(bpw):.6f}".rstrip("0")
    if Fraction(exact) == bpw:
        return exact
    return f"{float(bpw):.3f}"


def values_text(plan: WeightPlan) -> str:
    """The ``weights`` item's formula: the packed values per format and the kept parameters.

    ``"bitsandbytes NF4: 6,476,005,376 params (attention and MLP matrices) × 4 bits +
    262,410,240 params kept 16-bit (embeddings, LM head, norms, biases, router) × 2 bytes"``
    """
    s = plan.scheme
    if not plan.exact:
        layout = plan.groups[0].layout
        return (f"{s.label}: {count_noun(plan.groups[0].params, 'param')} × "
                f"{layout.value_bits} bits; without an architecture every parameter counts as "
                "quantized (real files keep some layers at higher precision: larger)")
    if s.layout is not None:
        text = (f"{s.label}: {count_noun(plan.quantized_params, 'param')} (attention and MLP "
                f"matrices) × {plan.groups[0].layout.value_bits} bits")
        kept_what = "kept 16-bit (embeddings, LM head, norms, biases, router)"
    else:
        parts = [f"{fmt} {count_noun(n, 'param')} × {GGML_TYPES[fmt].value_bits} bits"
                 for fmt, n in plan.by_format().items()]
        text = f"{s.label}: " + " + ".join(parts)
        kept_what = "kept F32 (norms, biases, router)"
    if plan.kept_params:
        text += (f" + {count_noun(plan.kept_params, 'param')} {kept_what} × "
                 f"{count_noun(plan.kept_bits // 8, 'byte')}")
    return text


PARTIAL_GROUP_SRC = (
    "AutoGPTQ / GPTQModel QuantLinear buffers: scales and qzeros of ⌈in_features / group_size⌉ "
    "rows, g_idx = i // group_size; GPTQModel GroupedQuantLinear._validate refuses such a layer "
    "in kernels without auto-padding (Marlin, ExLlama), its torch and Triton kernels take it")
"""Where a partial last group (a group size that does not divide ``in_features``) is stored."""


def partial_groups_text(widths: list[tuple[int, int]], group: int, gptq: bool = False) -> str:
    """``""`` when ``group`` divides every input width in ``widths`` (``(in_features, count)``
    pairs); otherwise the sentence that says how the last group of a row is handled: it is
    partial and has a scale (and zero point) of its own, as AutoGPTQ and GPTQModel store it
    (:data:`PARTIAL_GROUP_SRC`; with ``gptq``, which kernels refuse it)."""
    partial = sorted({w for w, _ in widths if w % group})
    if not partial:
        return ""
    parts = ", ".join(f"{format_count(w % group)} weights where in_features is {format_count(w)}"
                      for w in partial)
    text = (f"; {format_count(group)} does not divide every in_features, so the last group of a "
            f"row is partial ({parts}) with a scale of its own")
    if gptq:
        text += (" (AutoGPTQ/GPTQModel store ⌈in_features / group⌉ scale rows; GPTQModel's "
                 "Marlin and ExLlama kernels refuse such a layer, its torch and Triton kernels "
                 "take it)")
    return text


def overhead_text(plan: WeightPlan) -> str:
    """The ``quantization_overhead`` item's formula: each layout's blocks and what they hold.

    ``"101,187,584 blocks of 64 × 4 bytes (FP32 absmax) + 224 matrices × 64 bytes (16-entry
    FP32 code table)"``
    """
    by_layout: dict[str, list[TensorGroup]] = {}
    for g in plan.groups:
        by_layout.setdefault(g.fmt, []).append(g)
    terms: list[str] = []
    several = len([k for k, gs in by_layout.items() if gs[0].layout.block_bits]) > 1
    for fmt, groups in by_layout.items():
        layout = groups[0].layout
        prefix = f"{fmt}: " if several else ""
        if plan.exact:
            blocks = sum(layout.blocks(g.out, g.inp) * g.count for g in groups)
        else:
            blocks = -(-groups[0].params // layout.block)
        matrices = sum(g.count for g in groups)
        if layout.block_bits:
            where = {"flat": f"block of {format_count(layout.block)}",
                     "group": f"block of {format_count(layout.block)}",
                     "row": "row", "tensor": "matrix"}[layout.granularity]
            if layout.granularity == "group" and fmt not in GGML_TYPES:
                where = f"group of {format_count(layout.block)}"
            noun = count_noun(blocks, where, where.replace("block", "blocks").replace(
                "group", "groups").replace("row", "rows").replace("matrix", "matrices"))
            term = f"{prefix}{noun} × {bytes_text(layout.block_bits)} ({layout.meta})"
            if layout.granularity == "group" and fmt not in GGML_TYPES and plan.exact:
                term += partial_groups_text([(g.inp, g.count) for g in groups], layout.block,
                                            gptq=layout.key.startswith("gptq"))
            terms.append(term)
        if layout.second_block and plan.exact:
            second = sum(-(-layout.blocks(g.out, g.inp) // layout.second_block) * g.count
                         for g in groups)
            terms.append(f"{count_noun(second, 'second-level absmax', 'second-level absmax')} "
                         f"(one per {format_count(layout.second_block)} blocks) × "
                         f"{bytes_text(layout.second_bits)} FP32")
        if layout.tensor_bits and plan.exact:
            terms.append(f"{count_noun(matrices, 'matrix', 'matrices')} × "
                         f"{count_noun(layout.tensor_bits // 8, 'byte')} ({layout.tensor_meta})")
        if layout.column_bits and plan.exact:
            cols = sum(g.inp * g.count for g in groups)
            terms.append(f"{count_noun(cols, 'input column')} × "
                         f"{bytes_text(layout.column_bits)} int32 g_idx")
        if layout.outlier_fraction and plan.exact:
            frac = layout.outlier_fraction
            weights = sum(g.out * -(-g.inp * frac.numerator // frac.denominator) * g.count
                          for g in groups)
            terms.append(f"{count_noun(weights, 'outlier-column weight')} (assumed "
                         f"{float(frac):.1%} of input columns) × "
                         f"{bytes_text(layout.outlier_bits)} FP16")
    return " + ".join(terms)


