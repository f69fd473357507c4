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
mixtures of experts and hybrids
    the first ``dense_layers`` layers keep a dense MLP, the others ``experts`` (``moe_layers``);
    Qwen2-MoE adds a shared expert of ``shared_ffn`` with a sigmoid gate (h × 1) to every MoE
    layer, counted in the active parameters too; ``mamba_layers`` of the layers (Jamba, Mamba)
    have a Mamba mixer (:meth:`Architecture.mamba_params`) instead of attention, and a pure
    Mamba block (``ffn`` 0) has no MLP and one norm.

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
    shared_ffn: int = 0
    mamba_layers: int = 0
    ssm_inner: int = 0
    ssm_state: int = 0
    ssm_conv: int = 0
    ssm_dt_rank: int = 0
    ssm_conv_bias: bool = True
    ssm_proj_bias: bool = False
    ssm_norms: bool = False

    def __hash__(self) -> int:
        # The shape fields that tell models apart, not all 35: equal architectures hash alike
        # all the same, and the lru caches keyed on an architecture hash it on every estimate.
        return hash((self.layers, self.hidden, self.heads, self.kv_heads, self.head_dim,
                     self.ffn, self.vocab, self.experts, self.mamba_layers))

    @property
    def attention_layers(self) -> int:
        """Layers with attention (and a KV cache): all but the Mamba layers of a hybrid."""
        return self.layers - self.mamba_layers

    @property
    def moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts: all but ``dense_layers`` when there are
        experts, else none."""
        return self.layers - self.dense_layers if self.experts > 1 else 0

    @property
    def mlp_layers(self) -> int:
        """Layers with an MLP (a pure Mamba model, ``ffn`` 0, has none)."""
        return self.layers if self.ffn else 0

    @property
    def ssm_state_values(self) -> int:
        """Values one sequence's Mamba cache holds per Mamba layer: the convolution state
        d_inner × d_conv and the SSM state d_inner × d_state (Hugging Face MambaCache /
        HybridMambaAttentionDynamicCache: conv_states and ssm_states per layer)."""
        return self.ssm_inner * (self.ssm_conv + self.ssm_state)

    def mamba_params(self) -> int:
        """Parameters of one Mamba mixer (Gu & Dao 2023, Mamba; Hugging Face MambaMixer /
        JambaMambaMixer): in_proj h → 2·d_inner, a depthwise conv1d of d_inner × d_conv (+ bias),
        x_proj d_inner → dt_rank + 2·d_state, dt_proj dt_rank → d_inner (+ bias), A_log
        d_inner × d_state, D d_inner, out_proj d_inner → h; Jamba adds RMSNorms of dt_rank,
        d_state and d_state (dt, B, C)."""
        h, d, n, r = self.hidden, self.ssm_inner, self.ssm_state, self.ssm_dt_rank
        bias = self.ssm_proj_bias
        out = h * 2 * d + (2 * d if bias else 0)
        out += d * self.ssm_conv + (d if self.ssm_conv_bias else 0)
        out += d * (r + 2 * n) + r * d + d + d * n + d
        out += d * h + (h if bias else 0)
        if self.ssm_norms:
            out += r + 2 * n
        return out

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
    h = arch.hidden
    if arch.mla:
        return _mla_matrices(arch)
    n = arch.attention_layers
    mats = [
        (arch.q_dim, h, n),
        (arch.kv_dim, h, 2 * n),
        (h, arch.q_dim, n),
    ] if n and arch.heads else []
    if arch.mamba_layers:
        m, d = arch.mamba_layers, arch.ssm_inner
        mats += [(2 * d, h, m), (arch.ssm_dt_rank + 2 * arch.ssm_state, d, m),
                 (d, arch.ssm_dt_rank, m), (h, d, m)]
    if arch.ffn:
        moe = arch.moe_layers
        per_expert = arch.layers - moe + moe * arch.experts
        mats.append((arch.ffn, h, (2 if arch.gated_mlp else 1) * per_expert))
        mats.append((h, arch.ffn, per_expert))
    if arch.shared_ffn:
        moe = arch.moe_layers
        mats += [(arch.shared_ffn, h, 2 * moe), (h, arch.shared_ffn, moe)]
    return mats


def matrix_roles(arch: Architecture) -> tuple[str, ...]:
    """The names of the :func:`linear_matrices` entries, in the same order (Hugging Face module
    names: ``"q_proj"``, ``"k_proj + v_proj"``, ..., a Mamba mixer's ``"in_proj"``)."""
    mlp = ("gate_proj + up_proj", "down_proj") if arch.gated_mlp else ("fc_in", "fc_out")
    if arch.mla:
        q = ("q_a_proj", "q_b_proj") if arch.q_lora_rank else ("q_proj",)
        dense = tuple(f"dense {m}" for m in mlp) if arch.dense_layers else ()
        return (*q, "kv_a_proj_with_mqa", "kv_b_proj", "o_proj", *dense,
                *(f"experts {m}" for m in mlp))
    roles: tuple[str, ...] = ()
    if arch.attention_layers and arch.heads:
        roles += ("q_proj", "k_proj + v_proj", "o_proj")
    if arch.mamba_layers:
        roles += ("in_proj", "x_proj", "dt_proj", "out_proj")
    if arch.ffn:
        roles += mlp
    if arch.shared_ffn:
        roles += ("shared_expert gate_proj + up_proj", "shared_expert down_proj")
    return roles


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
        mats.append((arch.experts, arch.hidden, arch.moe_layers or arch.layers))
    if arch.shared_ffn:
        mats.append((1, arch.hidden, arch.moe_layers))
    if arch.mamba_layers:
        mats.append((arch.ssm_inner, arch.ssm_state, arch.mamba_layers))
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
    moe = arch.moe_layers
    # Qwen2-MoE's shared expert: a gated MLP of shared_ffn and its sigmoid gate (h → 1)
    shared_w = 3 * h * arch.shared_ffn
    shared = shared_w + h if arch.shared_ffn else 0
    mamba_linear = 0
    if arch.mamba_layers:
        d = arch.ssm_inner
        mamba_linear = h * 2 * d + d * (arch.ssm_dt_rank + 2 * arch.ssm_state) \
            + arch.ssm_dt_rank * d + d * h

    embeddings = arch.vocab * h
    positions = arch.learned_positions * h
    attention = arch.attention_layers * (attn_w + attn_b) + arch.mamba_layers * arch.mamba_params()
    mlp = (arch.mlp_layers - moe) * (mlp_w + mlp_b) + moe * (arch.experts * (mlp_w + mlp_b)
                                                            + shared)
    routers = moe * router
    # two norms per layer (before the mixer and before the MLP); one in a pure Mamba block
    norms = n * (2 if arch.ffn else 1) * norm_size + norm_size
    lm_head = 0 if arch.tied_embeddings else arch.vocab * h
    total = embeddings + positions + attention + mlp + routers + norms + lm_head
    active = total - moe * (arch.experts - arch.active_experts) * (mlp_w + mlp_b)
    quantizable = (arch.attention_layers * attn_w + arch.mamba_layers * mamba_linear
                   + (arch.mlp_layers - moe) * mlp_w + moe * (arch.experts * mlp_w + shared_w))
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
    config.json gives 671,026,419,200, of which 37,552,297,472 active (published: 671B, 37B
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
