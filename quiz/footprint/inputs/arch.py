"""Transformer architectures and their exact parameter counts.

A decoder-only transformer is described by :class:`Architecture`; :func:`count_params` returns an
exact breakdown (:class:`ParamCount`) that matches the published counts of every preset (tests in
``tests/footprint/test_footprint_presets.py``). The layout is the one of the Hugging Face
implementations (``LlamaForCausalLM``, ``MistralForCausalLM``, ``MixtralForCausalLM``,
``GPT2LMHeadModel``):

per layer
    attention: Q (h × heads·d), K and V (h × kv_heads·d each), O (heads·d × h); biases
    heads·d + 2·kv_heads·d + h if ``linear_bias``.
    MLP, per expert: gated (SwiGLU) gate + up (h × ffn) and down (ffn × h); otherwise fc (h × ffn)
    and proj (ffn × h); biases ffn (×2 if gated) + h if ``linear_bias``.
    router (mixture of experts): h × experts, no bias (Jiang et al. 2024, sec. 2).
    norms: two per layer, h each (RMSNorm) or 2h (LayerNorm: scale and bias).
outside the layers
    token embeddings V × h; learned positions P × h (GPT-2/3); a final norm; the LM head V × h
    unless tied to the embeddings.

Examples: Llama-2-7B = 6,738,415,616; GPT-2 XL = 1,557,611,200 (12h² + 13h per layer).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Norm = Literal["rmsnorm", "layernorm"]


@dataclass(frozen=True, slots=True)
class Architecture:
    """A complete decoder-only transformer shape (all sizes are counts, not bytes).

    ``experts == 1`` means a dense MLP. ``sliding_layers`` of the ``layers`` use a sliding
    attention window of ``sliding_window`` tokens (0 when there is no window).
    """

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    tied_embeddings: bool = False
    gated_mlp: bool = True
    norm: Norm = "rmsnorm"
    linear_bias: bool = False
    learned_positions: int = 0
    experts: int = 1
    active_experts: int = 1
    sliding_window: int | None = None
    sliding_layers: int = 0
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_dim: int = 0
    v_head_dim: int = 0
    shared_experts: int = 0
    expert_ffn: int = 0
    dense_layers: int = 0
    router_bias: bool = False

    @property
    def mla(self) -> bool:
        """Multi-head latent attention (DeepSeek-V2/V3): K and V come from a compressed latent
        of ``kv_lora_rank`` values plus a shared rotary key of ``qk_rope_dim``."""
        return self.kv_lora_rank > 0

    @property
    def kv_values_per_layer_token(self) -> int:
        """Values the KV cache keeps per layer and token: 2 × kv_heads × head_dim, or with MLA
        the latent and the rotary key, kv_lora_rank + qk_rope_dim (DeepSeek-AI 2024,
        DeepSeek-V2, sec. 2.1.2-2.1.3: (d_c + d_h^R) × l elements per token)."""
        if self.mla:
            return self.kv_lora_rank + self.qk_rope_dim
        return 2 * self.kv_heads * self.head_dim

    @property
    def q_dim(self) -> int:
        """Width of the query projection output: heads × head_dim."""
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of each of the key and value projections: kv_heads × head_dim."""
        return self.kv_heads * self.head_dim


@dataclass(frozen=True, slots=True)
class ParamCount:
    """Exact parameter counts of an :class:`Architecture`, summed over all layers.

    ``mlp`` counts every expert (memory); ``active`` counts ``active_experts`` per token (compute).
    ``quantizable`` is the number of weights in the linear layers inside the transformer blocks
    (attention and MLP matrices, not biases, norms, router, embeddings or LM head): what GPTQ/AWQ
    quantize. ``kept_16bit`` is everything else.
    """

    embeddings: int
    positions: int
    attention: int
    mlp: int
    router: int
    norms: int
    lm_head: int
    total: int
    active: int
    quantizable: int
    quantized_matrices: int
    kept_16bit: int


def linear_matrices(arch: Architecture) -> list[tuple[int, int, int]]:
    """The quantizable linear weight matrices as ``(out_features, in_features, how_many)``.

    Attention Q, K, V, O and each expert's MLP matrices, over all layers. Used to count the
    quantization groups exactly (a group runs along the input dimension; a row of
    ``in_features`` holds ``ceil(in_features / group)`` groups).
    """
    n, h = arch.layers, arch.hidden
    if arch.mla:
        return _mla_matrices(arch)
    per_expert = n * arch.experts
    mats = [
        (arch.q_dim, h, n),
        (arch.kv_dim, h, 2 * n),
        (h, arch.q_dim, n),
    ]
    if arch.gated_mlp:
        mats.append((arch.ffn, h, 2 * per_expert))
    else:
        mats.append((arch.ffn, h, per_expert))
    mats.append((h, arch.ffn, per_expert))
    return mats


def _mla_matrices(arch: Architecture) -> list[tuple[int, int, int]]:
    """The linear matrices of a DeepSeek-V2/V3 model (modeling_deepseek.py): per layer the MLA
    projections q_a (h → q_lora), q_b (q_lora → heads × head_dim) or q (h → heads ×
    head_dim) without a query latent, kv_a (h → kv_lora + rope), kv_b (kv_lora → heads ×
    (nope + v)), o (heads × v → h); the first ``dense_layers`` a dense gated MLP of ``ffn``, the
    others ``experts`` routed and ``shared_experts`` shared gated experts of ``expert_ffn``."""
    n, h, a = arch.layers, arch.hidden, arch.heads
    nope = arch.head_dim - arch.qk_rope_dim
    mats: list[tuple[int, int, int]] = []
    if arch.q_lora_rank:
        mats += [(arch.q_lora_rank, h, n), (a * arch.head_dim, arch.q_lora_rank, n)]
    else:
        mats.append((a * arch.head_dim, h, n))
    mats += [(arch.kv_lora_rank + arch.qk_rope_dim, h, n),
             (a * (nope + arch.v_head_dim), arch.kv_lora_rank, n),
             (h, a * arch.v_head_dim, n)]
    dense, moe = arch.dense_layers, n - arch.dense_layers
    f = arch.expert_ffn or arch.ffn
    if dense:
        mats += [(arch.ffn, h, 2 * dense), (h, arch.ffn, dense)]
    per = moe * (arch.experts + arch.shared_experts)
    mats += [(f, h, 2 * per), (h, f, per)]
    return mats


def all_matrices(arch: Architecture) -> list[tuple[int, int, int]]:
    """Every 2-D weight matrix as ``(rows, cols, how_many)``: the block matrices of
    :func:`linear_matrices`, the router, the embeddings, the position table and an untied LM head.

    Adafactor keeps row and column statistics (rows + cols values) for each of these.
    """
    mats = linear_matrices(arch)
    if arch.experts > 1:
        mats.append((arch.experts, arch.hidden, arch.layers))
    mats.append((arch.vocab, arch.hidden, 1))
    if arch.learned_positions:
        mats.append((arch.learned_positions, arch.hidden, 1))
    if not arch.tied_embeddings:
        mats.append((arch.vocab, arch.hidden, 1))
    return mats


@lru_cache(maxsize=256)
def count_params(arch: Architecture) -> ParamCount:
    """Count the parameters of ``arch`` exactly (see the module docstring for the layout).

    Returns:
        A :class:`ParamCount` whose ``total`` equals the sum of its parts.
    """
    if arch.mla:
        return _count_mla(arch)
    n, h = arch.layers, arch.hidden
    attn_w = h * arch.q_dim + 2 * h * arch.kv_dim + arch.q_dim * h
    attn_b = (arch.q_dim + 2 * arch.kv_dim + h) if arch.linear_bias else 0
    mats = 3 if arch.gated_mlp else 2
    mlp_w = mats * h * arch.ffn
    mlp_b = ((2 if arch.gated_mlp else 1) * arch.ffn + h) if arch.linear_bias else 0
    norm_size = h if arch.norm == "rmsnorm" else 2 * h
    router = h * arch.experts if arch.experts > 1 else 0

    embeddings = arch.vocab * h
    positions = arch.learned_positions * h
    attention = n * (attn_w + attn_b)
    mlp = n * arch.experts * (mlp_w + mlp_b)
    routers = n * router
    norms = n * 2 * norm_size + norm_size
    lm_head = 0 if arch.tied_embeddings else arch.vocab * h
    total = embeddings + positions + attention + mlp + routers + norms + lm_head
    active = total - n * (arch.experts - arch.active_experts) * (mlp_w + mlp_b)
    quantizable = n * (attn_w + arch.experts * mlp_w)
    n_mats = sum(count for _, _, count in linear_matrices(arch))
    return ParamCount(
        embeddings=embeddings,
        positions=positions,
        attention=attention,
        mlp=mlp,
        router=routers,
        norms=norms,
        lm_head=lm_head,
        total=total,
        active=active,
        quantizable=quantizable,
        quantized_matrices=n_mats,
        kept_16bit=total - quantizable,
    )


def _count_mla(arch: Architecture) -> ParamCount:
    """:func:`count_params` for a DeepSeek-V2/V3 layout (:func:`_mla_matrices` plus the norms:
    two per layer, the query and KV latents' norms, the final one; the router of E × h per MoE
    layer and, with ``router_bias``, V3's E-entry e_score_correction_bias). DeepSeek-V3's
    config.json gives 671,026,419,200, of which 37,554,650,880 active (published: 671B, 37B
    activated; DeepSeek-AI 2024, DeepSeek-V3 Technical Report, sec. 4.2)."""
    n, h = arch.layers, arch.hidden
    mats = _mla_matrices(arch)
    n_attn = 4 if arch.q_lora_rank else 3  # the attention matrices come first
    attention = sum(o * i * c for o, i, c in mats[:n_attn + 1])
    mlp = sum(o * i * c for o, i, c in mats[n_attn + 1:])
    moe = n - arch.dense_layers
    router = moe * arch.experts * (h + (1 if arch.router_bias else 0))
    norms = n * (2 * h + arch.kv_lora_rank + arch.q_lora_rank) + h
    embeddings = arch.vocab * h
    lm_head = 0 if arch.tied_embeddings else arch.vocab * h
    total = embeddings + attention + mlp + router + norms + lm_head
    f = arch.expert_ffn or arch.ffn
    idle = moe * (arch.experts - arch.active_experts) * 3 * h * f
    quantizable = attention + mlp
    return ParamCount(
        embeddings=embeddings, positions=0, attention=attention, mlp=mlp, router=router,
        norms=norms, lm_head=lm_head, total=total, active=total - idle,
        quantizable=quantizable, quantized_matrices=sum(c for _, _, c in mats),
        kept_16bit=total - quantizable)


@lru_cache(maxsize=256)
def quant_groups(arch: Architecture, group_size: int) -> int:
    """Number of quantization groups over the linear layers of the blocks: for each matrix,
    ``out_features × ceil(in_features / group_size)`` (GPTQ/AWQ group along the input dimension).
    """
    return sum(out * -(-inp // group_size) * count for out, inp, count in linear_matrices(arch))


@lru_cache(maxsize=256)
def adafactor_state_values(arch: Architecture) -> tuple[int, int]:
    """Values Adafactor keeps for its factored second moment: ``(matrix_stats, vector_params)``.

    A matrix of r × c keeps r row and c column statistics (Shazeer & Stern 2018, sec. 3,
    Algorithm 4); 1-D parameters (norms, biases) keep a full second moment of their own size.
    """
    matrix_stats = sum((r + c) * count for r, c, count in all_matrices(arch))
    counts = count_params(arch)
    matrix_params = sum(r * c * count for r, c, count in all_matrices(arch))
    vectors = counts.total - matrix_params
    return matrix_stats, vectors
