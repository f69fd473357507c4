"""FP8 training in the style of NVIDIA Transformer Engine (precision ``mixed-fp8``).

What changes against mixed BF16 (sources: Micikevicius et al. 2022, "FP8 Formats for Deep
Learning", sec. 3–4: FP8 (E4M3 forward, E5M2 gradients) for the matrix multiplies' inputs, with
higher-precision master weights and optimizer states and one scaling factor per tensor; NVIDIA
Transformer Engine user guide, "Using FP8 with Transformer Engine" (fp8_primer): inside
``fp8_autocast`` "both the input and weights are cast to FP8 before the computation", each FP8
tensor with a single FP32 scaling factor, delayed scaling keeping a history of amaxes):

model states
    the module weights stay BF16 (TE's default ``params_dtype``), the FP32 master copy and Adam's
    states stay FP32 and gradients BF16, as in mixed BF16; on top, TE keeps an **FP8 copy of each
    GEMM weight** (1 byte per weight of the linear layers in the transformer blocks: Q, K, V, O and
    the MLP matrices), cast once per step and reused by every micro-batch
    (``is_first_microbatch``). Embeddings, norms and the LM head are not FP8 GEMMs here (Megatron
    keeps the output layer in BF16). Scaling factors and amax histories (a few FP32 values per
    tensor) are left out: kilobytes per layer.
activations
    the inputs a GEMM saves for its weight gradient are kept in FP8 (1 byte): in Korthikanti et
    al.'s per-layer breakdown (sec. 4.1: attention 11sbh + 5as²b, MLP 19sbh, norms 4sbh) the QKV
    input (2sbh), the attention-output input (2sbh), the first MLP input (2sbh) and the second
    MLP input (8sbh) halve, so 34sbh → 27sbh; with tensor parallelism the replicated part
    10 → 8 and the split part 24 → 19 (QKᵀ, softmax·V, the attention scores and the GeLU input
    stay 16-bit). Full recomputation keeps each layer's BF16 input, as before.
compute
    the training time uses the GPU's FP8 dense peak.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.ep import expert_group, uses_ep
from quiz.footprint.items.pipeline import pp_split, split_text, uneven
from quiz.footprint.items.regime import shard_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

FP8_SRC = ("Micikevicius et al. 2022, FP8 Formats for Deep Learning, sec. 3–4; NVIDIA Transformer "
           "Engine user guide, Using FP8 with Transformer Engine")
FP8_ACT_SRC = ("FP8 GEMM inputs saved for the backward pass (Transformer Engine): "
               "Korthikanti et al. 2022 sec. 4.1 breakdown with the QKV, attention-output and "
               "both MLP inputs at 1 byte")


def is_fp8(t: TrainingSpec) -> bool:
    """Whether ``t`` trains with FP8 GEMMs (precision ``mixed-fp8``)."""
    return t.precision == "mixed-fp8"


def layer_coefficients(e: int, fp8: bool = False) -> tuple[int, int, int]:
    """The sbh coefficients of Korthikanti et al.'s Table 2 for ``e``-byte activations:
    ``(all, replicated, split)`` = (34, 10, 24) at e = 2 (16e + 2, 4e + 2, 12e); with FP8 GEMM
    inputs (27, 8, 19) (see the module docstring)."""
    if fp8:
        return 27, 8, 19
    return 16 * e + 2, 4 * e + 2, 12 * e


def gemm_weights(r: ResolvedModel) -> tuple[int, str]:
    """The weights of the FP8 GEMMs and what they are: the linear layers of the transformer
    blocks with an architecture, else every parameter (stated)."""
    if r.counts is not None:
        return r.counts.quantizable, "linear-layer weights of the blocks"
    return r.params, "params (no architecture: every parameter counted)"


def fp8_weight_bytes(t: TrainingSpec, r: ResolvedModel, dp: int) -> int:
    """Bytes of the FP8 weight copies per device: 1 byte per GEMM weight, split over tp × pp
    and, under ZeRO-3, over ``dp`` × cp like the weights they copy
    (:func:`~quiz.footprint.items.regime.shard_count`); 0 without FP8."""
    if not is_fp8(t):
        return 0
    n, _ = gemm_weights(r)
    x = expert_gemm_weights(t, r)
    rest = shard_count(t, n - x, 3, dp, r)
    if not x:
        return rest
    per = pp_split(t, r, x, t.ep)
    return rest + (-(-per // expert_group(t, dp)) if t.zero >= 3 else per)


def expert_gemm_weights(t: TrainingSpec, r: ResolvedModel) -> int:
    """Of :func:`gemm_weights`, the routed experts' MLP weights that expert parallelism splits
    over ``t.ep`` (:mod:`quiz.footprint.items.ep`); 0 without it."""
    if not uses_ep(t, r) or r.counts is None or r.arch is None:
        return 0
    a = r.arch
    return a.layers * a.experts * (3 if a.gated_mlp else 2) * a.hidden * a.ffn


def fp8_weight_formula(t: TrainingSpec, r: ResolvedModel) -> str:
    """The FP8 copy's arithmetic in words."""
    n, what = gemm_weights(r)
    text = f"{format_count(n)} {what}"
    m = t.tp * t.pp
    if uneven(t, r):
        text += split_text(t, r)
    elif m > 1:
        text += f" ÷ {format_count(m)} (tp × pp)"
    group = t.dp * t.cp
    if t.zero >= 3 and group > 1:
        over = f"dp {format_count(t.dp)}" + (f" × cp {format_count(t.cp)}" if t.cp > 1 else "")
        text += f" ÷ {format_count(group)} (ZeRO-3 over {over})"
    x = expert_gemm_weights(t, r)
    if x:
        zero = " ÷ dp × cp / ep under ZeRO-3" if t.zero >= 3 else ""
        text += (f" (the {count_noun(x, 'expert weight')} among them ÷ tp × pp × ep "
                 f"{format_count(t.ep)}{zero} instead)")
    if m > 1 or (t.zero >= 3 and group > 1) or x:
        text += f" = {format_count(fp8_weight_bytes(t, r, t.dp))}"
    return text + " × 1 byte (FP8 E4M3 copy for the GEMMs, reused by every micro-batch)"


