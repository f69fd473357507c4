"""``--config`` for the state-space models: ``mamba`` (every layer a Mamba mixer, no attention,
no MLP) and ``jamba`` (Mamba layers with attention every ``attn_layer_period`` layers and a
mixture of experts every ``expert_layer_period``), read as ``transformers``' ``MambaConfig`` and
``JambaConfig`` define their keys, with those classes' defaults for keys a file leaves out.

Layer types follow ``JambaConfig.layers_block_type`` and ``layers_num_experts``: layer ``i``
has attention when ``i % attn_layer_period == attn_layer_offset`` (else a Mamba mixer) and
``num_experts`` experts when ``i % expert_layer_period == expert_layer_offset`` (else a dense
MLP). ``time_step_rank`` / ``mamba_dt_rank`` ``"auto"`` is ⌈hidden / 16⌉ (both configs).
"""

from __future__ import annotations

from typing import Any

from quiz.footprint.inputs.arch import Architecture


class SsmConfigError(ValueError):
    """A state-space config.json with a key that is not a positive whole number."""


def _int(cfg: dict[str, Any], key: str, default: int, path: str, read: list[str]) -> int:
    read.append(key)
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SsmConfigError(f"{path}: {key} must be a whole number (got {value!r}); keys read: "
                             f"{', '.join(read)}")
    return value


def _rank(cfg: dict[str, Any], key: str, hidden: int, path: str, read: list[str]) -> int:
    value = cfg.get(key, "auto")
    if value == "auto":
        read.append(key)
        return -(-hidden // 16)
    return _int(cfg, key, 0, path, read)


def mamba(cfg: dict[str, Any], path: str, read: list[str]) -> Architecture:
    """``MambaConfig`` (defaults: hidden 768, 32 layers, vocab 50,280, state 16, expand 2, conv
    4, no projection biases, conv bias, tied embeddings): every layer one RMSNorm and a Mamba
    mixer; no attention, so no KV cache."""
    h = _int(cfg, "hidden_size", 768, path, read)
    layers = _int(cfg, "num_hidden_layers", 32, path, read)
    inner = cfg.get("intermediate_size") or _int(cfg, "expand", 2, path, read) * h
    return Architecture(
        layers=layers, hidden=h, heads=0, kv_heads=0, head_dim=0, ffn=0,
        vocab=_int(cfg, "vocab_size", 50280, path, read),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", True)), gated_mlp=False,
        mamba_layers=layers, ssm_inner=inner,
        ssm_state=_int(cfg, "state_size", 16, path, read),
        ssm_conv=_int(cfg, "conv_kernel", 4, path, read),
        ssm_dt_rank=_rank(cfg, "time_step_rank", h, path, read),
        ssm_conv_bias=bool(cfg.get("use_conv_bias", True)),
        ssm_proj_bias=bool(cfg.get("use_bias", False)))


def jamba(cfg: dict[str, Any], path: str, read: list[str]) -> Architecture:
    """``JambaConfig`` (defaults are Jamba-v0.1's: hidden 4,096, 32 layers, 32 heads, 8 KV
    heads, MLP 14,336, vocab 65,536, 16 experts of which 2 active on every other layer,
    attention on 1 layer in 8, Mamba state 16, conv 4, expand 2)."""
    h = _int(cfg, "hidden_size", 4096, path, read)
    layers = _int(cfg, "num_hidden_layers", 32, path, read)
    heads = _int(cfg, "num_attention_heads", 32, path, read)
    attn_period = _int(cfg, "attn_layer_period", 8, path, read) or 1
    attn_offset = _int(cfg, "attn_layer_offset", 4, path, read)
    expert_period = _int(cfg, "expert_layer_period", 2, path, read) or 1
    expert_offset = _int(cfg, "expert_layer_offset", 1, path, read)
    experts = _int(cfg, "num_experts", 16, path, read)
    attention = sum(1 for i in range(layers) if i % attn_period == attn_offset)
    moe = sum(1 for i in range(layers) if i % expert_period == expert_offset) \
        if experts > 1 else 0
    return Architecture(
        layers=layers, hidden=h, heads=heads,
        kv_heads=_int(cfg, "num_key_value_heads", 8, path, read) or heads,
        head_dim=h // heads if heads else 0,
        ffn=_int(cfg, "intermediate_size", 14336, path, read),
        vocab=_int(cfg, "vocab_size", 65536, path, read),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        experts=experts if moe else 1,
        active_experts=_int(cfg, "num_experts_per_tok", 2, path, read) if moe else 1,
        dense_layers=layers - moe if moe else 0,
        mamba_layers=layers - attention,
        ssm_inner=_int(cfg, "mamba_expand", 2, path, read) * h,
        ssm_state=_int(cfg, "mamba_d_state", 16, path, read),
        ssm_conv=_int(cfg, "mamba_d_conv", 4, path, read),
        ssm_dt_rank=_rank(cfg, "mamba_dt_rank", h, path, read),
        ssm_conv_bias=bool(cfg.get("mamba_conv_bias", True)),
        ssm_proj_bias=bool(cfg.get("mamba_proj_bias", False)),
        ssm_norms=True)
