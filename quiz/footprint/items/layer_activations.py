"""Training activations of one transformer layer derived from its architecture: the default
``--convention practice``. Korthikanti et al.'s Table 2 (``--convention paper``,
:mod:`quiz.footprint.items.model_states`) counts a GPT layer: LayerNorm, dropout, a 4h GeLU MLP
and the s × s attention scores kept for the backward pass. Models trained today differ in each:

* **Attention** (``--attention``): FlashAttention and PyTorch's SDPA never store the scores; the
  backward pass recomputes them from Q, K, V, the output O and one FP32 logsumexp per query
  and head (Dao 2023, FlashAttention-2, Algorithm 1 line 13 and Algorithm 2). The default
  everywhere Hugging Face Transformers can (``attn_implementation="sdpa"``). ``eager`` keeps
  the softmax output (and, with dropout, its mask and dropped copy): (e + D(e + 1))·a·s²·b.
* **Family**: Llama-style models (RMSNorm, gated SwiGLU MLP of the real ``ffn`` size, no
  dropout: Hugging Face ``LlamaMLP`` computes ``down(act(gate(x)) * up(x))``) against GPT-style
  (LayerNorm, a GeLU MLP, dropout after attention and MLP: Korthikanti sec. 4.1). A model is
  GPT-style when it has LayerNorm and an ungated MLP.

Per layer, for T = s/cp × b tokens on a device, e-byte activations (g = 1 for FP8 GEMM inputs,
else e), hidden h, query width q = a × d, key/value width k = kv_heads × d, MLP size f,
D = 1 with dropout else 0, the bytes PyTorch's autograd keeps (each tensor a backward needs,
counted once):

    replicated (outside the tensor-parallel regions)
        2e·Th        the inputs of the two norms
        2g·Th        the norm outputs: inputs of the QKV projection and the first MLP matrix
        2D·Th        the dropout masks after attention and after the MLP (1 byte each)
    split over the t tensor-parallel ranks
        e·T(q + 2k)  Q, K and V (the attention's backward reads all three)
        g·Tq         the attention output O, input of the output projection
        3e·Tf + g·Tf gated MLP: gate output (SiLU's input), SiLU output, up output, and their
                     product, the input of down;  e·Tf + g·Tf ungated: the activation's input
                     and output (the second matrix's input)
        4a·T         FlashAttention's FP32 logsumexp, or eager's (e + D(e + 1))·a·T·s scores

Per device: replicated + split/t, or (replicated + split)/t with sequence parallelism. For a
GPT layer (q = k = h, f = 4h, D = 1) with eager attention this is Korthikanti's
sbh(10 + 24/t + 5as/(ht)) exactly. Selective recomputation drops the eager scores (FlashAttention
keeps nothing to drop); full recomputation keeps the layer's input, e·Th (÷ t with sequence
parallelism).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture

FAMILY_SRC = (
    "per layer from the architecture, autograd's saved tensors as in Korthikanti et al. 2022 "
    "sec. 4.1, with the family's norm, MLP (Hugging Face LlamaMLP: down(act(gate(x)) * up(x))) "
    "and dropout")
FLASH_SRC = ("Dao 2023, FlashAttention-2, Algorithms 1-2 (O and the FP32 logsumexp saved, the "
             "s × s scores recomputed); PyTorch scaled_dot_product_attention")


def gpt_style(arch: Architecture) -> bool:
    """Whether ``arch`` is a GPT-style layer (LayerNorm, ungated MLP, dropout) rather than a
    Llama-style one (RMSNorm or a gated MLP, no dropout)."""
    return arch.norm == "layernorm" and not arch.gated_mlp


def layer_terms(arch: Architecture, tokens: int, keys: int, e: int, attention: str,
                recompute: str, fp8: bool = False) -> tuple[int, int]:
    """``(replicated, split)``: the bytes one layer keeps for ``tokens`` tokens on a device
    (s/cp × b), outside and inside the tensor-parallel regions (see the module docstring).
    ``keys`` is the sequence length the attention scores span (s); ``attention`` ``"flash"``
    or ``"eager"``; ``recompute`` ``"none"``, ``"selective"`` or ``"full"`` (then ``(e·Th, 0)``).
    The MLP internals are those of one dense MLP of ``arch.ffn``; a mixture of experts replaces
    them (:func:`mlp_internal_bytes`, :mod:`quiz.footprint.items.moe`)."""
    h = arch.hidden
    if recompute == "full":
        return e * tokens * h, 0
    g = 1 if fp8 else e
    dropout = 1 if gpt_style(arch) else 0
    replicated = tokens * h * (2 * e + 2 * g + 2 * dropout)
    split = (e * tokens * (arch.q_dim + 2 * arch.kv_dim) + g * tokens * arch.q_dim
             + mlp_internal_bytes(arch, tokens, e, g))
    split += score_bytes(arch, tokens, keys, e, attention, recompute)
    return replicated, split


def mlp_internal_bytes(arch: Architecture, tokens: int, e: int, g: int | None = None) -> int:
    """The MLP's own tensors for ``tokens`` tokens: (3e + g)·Tf gated, (e + g)·Tf ungated
    (``g`` the bytes of the last matrix's input, ``e`` unless FP8)."""
    g = e if g is None else g
    return ((3 * e + g) if arch.gated_mlp else (e + g)) * tokens * arch.ffn


def score_bytes(arch: Architecture, tokens: int, keys: int, e: int, attention: str,
                recompute: str) -> int:
    """What the attention keeps per layer beyond Q, K, V and O: FlashAttention's FP32
    logsumexp, 4·a·T; eager attention's softmax output (and with dropout its mask and dropped
    copy), (e + D(e + 1))·a·T·s, none under selective recomputation."""
    if attention == "flash":
        return 4 * arch.heads * tokens
    if recompute == "selective":
        return 0
    per = e + (e + 1 if gpt_style(arch) else 0)
    return per * arch.heads * tokens * keys


def layer_formula(arch: Architecture, layers: int, tokens: int, keys: int, e: int,
                  attention: str, recompute: str, tp: int, sp: bool, fp8: bool = False) -> str:
    """The words of :func:`layer_terms` × layers with this case's numbers (per token)."""
    replicated, split = layer_terms(arch, tokens, keys, e, attention, recompute, fp8)
    nl, tt = format_count(layers), format_count(tp)
    if recompute == "full":
        per = f"/ {tt}" if sp else ""
        return (f"{count_noun(layers, 'layer')} × {e}Th (each layer's input only, full "
                f"recomputation) with T = {count_noun(tokens, 'token')}, h = "
                f"{format_count(arch.hidden)}: {nl} × {format_count(replicated)}{per}")
    g = 1 if fp8 else e
    style = ("GPT-style: LayerNorm, GeLU MLP, dropout" if gpt_style(arch) else
             f"Llama-style: {'RMSNorm' if arch.norm == 'rmsnorm' else 'LayerNorm'}, "
             f"{'SwiGLU' if arch.gated_mlp else 'ungated'} MLP, no dropout")
    dropout = 2 if gpt_style(arch) else 0
    mlp = (3 * e + g) if arch.gated_mlp else (e + g)
    if attention == "flash":
        att = f"FlashAttention logsumexp 4a = {format_count(4 * arch.heads)}"
    elif recompute == "selective":
        att = "eager scores recomputed (selective)"
    else:
        coeff = e + (e + 1 if gpt_style(arch) else 0)
        att = f"eager scores {coeff}as = {format_count(coeff * arch.heads * keys)}"
    rep_words = f"{2 * e + 2 * g + dropout}h (norm inputs and outputs"
    rep_words += ", dropout masks)" if dropout else ")"
    split_words = (f"{e}(q + 2k) + {g}q (Q, K, V, attention output) + {mlp}f "
                   f"({'gate, SiLU, up, product' if arch.gated_mlp else 'activation in, out'})"
                   f" + {att}")
    where = (f"h = {format_count(arch.hidden)}, q = {format_count(arch.q_dim)}, k = "
             f"{format_count(arch.kv_dim)}, f = {format_count(arch.ffn)}, a = "
             f"{format_count(arch.heads)}, T = s × b = {count_noun(tokens, 'token')}")
    total = (f"{nl} × ({format_count(replicated)} + {format_count(split)} / {tt})"
             if tp > 1 and not sp else
             f"{nl} × ({format_count(replicated)} + {format_count(split)}) / {tt}"
             if tp > 1 else f"{nl} × ({format_count(replicated)} + {format_count(split)})")
    divide = "" if tp == 1 else (" / t" if not sp else ", all / t")
    return (f"{count_noun(layers, 'layer')} × T × ({rep_words} + [{split_words}]{divide}) "
            f"per token, {style}; {where}: {total}")
