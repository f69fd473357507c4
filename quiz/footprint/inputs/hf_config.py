"""``--config PATH``: a Hugging Face ``config.json`` read from a local file (nothing is
downloaded) into an :class:`~quiz.footprint.inputs.arch.Architecture`.

Each supported ``model_type`` maps its keys as its ``transformers`` configuration class
defines them (``LlamaConfig``, ``MistralConfig``, ``Gemma2Config``, ``DeepseekV3Config``, ...),
with that class's defaults for keys a file leaves out. Sliding-window attention: Mistral and
Qwen2 (``use_sliding_window``) on every layer; Gemma 2 and 3 on alternating layers
(``sliding_window_pattern``, every other layer for Gemma 2, 5 of 6 for Gemma 3). DeepSeek-V2/V3:
multi-head latent attention (``kv_lora_rank``, ``q_lora_rank``, ``qk_rope_head_dim``,
``qk_nope_head_dim``, ``v_head_dim``), the first ``first_k_dense_replace`` layers dense, the
others ``n_routed_experts`` routed and ``n_shared_experts`` shared experts of
``moe_intermediate_size``. Qwen2-MoE: a shared expert of ``shared_expert_intermediate_size`` on
every MoE layer (counted in the total and the active parameters). Mamba and Jamba:
:mod:`quiz.footprint.inputs.hf_ssm`.

Errors are :class:`ConfigError` with the file, what is wrong and what to do.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from quiz.footprint.inputs.arch import Architecture

SUPPORTED = ("llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "gemma",
             "gemma2", "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3", "gpt2", "gpt_neox",
             "falcon", "jamba", "mamba")
"""The ``model_type`` values ``--config`` reads."""


class ConfigError(ValueError):
    """A config.json that cannot be read as a model: missing, not JSON, an unknown
    ``model_type`` or a missing key."""


def _need(cfg: dict[str, Any], key: str, path: str, read: list[str]) -> int:
    read.append(key)
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{path}: {key} must be a positive whole number (got {value!r}); "
                          f"keys read: {', '.join(read)}")
    return value


@lru_cache(maxsize=32)
def read_config(path: str) -> tuple[Architecture, str, int | None]:
    """``(architecture, name, context)`` of the config.json at ``path`` (``name`` says the
    file and its ``model_type``; ``context`` is ``max_position_embeddings``).

    Raises:
        ConfigError: the file is missing or unreadable, not a JSON object, its ``model_type``
            is not one of :data:`SUPPORTED`, or a key the type needs is missing or not a
            positive whole number.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc}); give the path of a "
                          "Hugging Face config.json") from None
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: expected a JSON object (a Hugging Face config.json)")
    kind = cfg.get("model_type")
    if kind not in SUPPORTED:
        raise ConfigError(f"{path}: model_type {kind!r} is not supported; supported: "
                          f"{', '.join(SUPPORTED)} (read: model_type)")
    read: list[str] = ["model_type"]
    if kind in ("jamba", "mamba"):
        from quiz.footprint.inputs.hf_ssm import SsmConfigError, jamba, mamba

        try:
            arch = (jamba if kind == "jamba" else mamba)(cfg, path, read)
        except SsmConfigError as exc:
            raise ConfigError(str(exc)) from None
    else:
        arch = _GPT[kind](cfg, path, read) if kind in _GPT else _decoder(kind, cfg, path, read)
    context = cfg.get("max_position_embeddings", cfg.get("n_positions"))
    name = f"{Path(path).name} ({kind})"
    return arch, name, context if isinstance(context, int) and context > 0 else None


def _decoder(kind: str, cfg: dict[str, Any], path: str, read: list[str]) -> Architecture:
    """Llama-style decoders: RMSNorm, gated MLP, rotary positions."""
    h = _need(cfg, "hidden_size", path, read)
    layers = _need(cfg, "num_hidden_layers", path, read)
    heads = _need(cfg, "num_attention_heads", path, read)
    kv = cfg.get("num_key_value_heads") or heads
    head_dim = cfg.get("head_dim") or h // heads
    vocab = _need(cfg, "vocab_size", path, read)
    tied_default = kind.startswith("gemma")
    tied = bool(cfg.get("tie_word_embeddings", tied_default))
    fields: dict[str, Any] = dict(layers=layers, hidden=h, heads=heads, kv_heads=kv,
                                  head_dim=head_dim, vocab=vocab, tied_embeddings=tied,
                                  gated_mlp=True, norm="rmsnorm")
    if kind.startswith("deepseek"):
        return _deepseek(cfg, path, read, fields)
    ffn = _need(cfg, "intermediate_size", path, read)
    experts = cfg.get("num_local_experts") or cfg.get("num_experts") or 1
    if experts > 1:
        fields.update(experts=experts, active_experts=cfg.get("num_experts_per_tok", 2))
        if cfg.get("moe_intermediate_size"):
            ffn = cfg["moe_intermediate_size"]
        if kind in ("qwen2_moe", "qwen3_moe"):
            _qwen_moe_layers(cfg, layers, path)
        shared = cfg.get("shared_expert_intermediate_size") if kind == "qwen2_moe" else 0
        if shared:  # Qwen2-MoE: one always-active gated MLP of this width, with a sigmoid gate
            read.append("shared_expert_intermediate_size")
            fields.update(shared_ffn=shared)
    window = cfg.get("sliding_window")
    sliding = 0
    if isinstance(window, int) and window > 0:
        if kind in ("gemma2",):
            sliding = layers // 2  # local and global layers alternate
        elif kind == "gemma3_text":
            pattern = cfg.get("sliding_window_pattern", 6)
            sliding = layers - layers // pattern
        elif kind in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe"):
            if cfg.get("use_sliding_window"):
                sliding = layers - (cfg.get("max_window_layers") or 0)
        else:
            sliding = layers
    if sliding:
        fields.update(sliding_window=window, sliding_layers=sliding)
    # biases (Qwen2's q, k, v) are left out: a few hundred thousand parameters at most
    return Architecture(ffn=ffn, **fields)


def _qwen_moe_layers(cfg: dict[str, Any], layers: int, path: str) -> None:
    """Qwen2-MoE / Qwen3-MoE make layer ``i`` sparse unless it is in ``mlp_only_layers`` or
    ``(i + 1) % decoder_sparse_step != 0``; every released model has step 1 and no MLP-only
    layers, the only case estimated (a dense layer there would use ``intermediate_size``).

    Raises:
        ConfigError: another layout.
    """
    step = cfg.get("decoder_sparse_step", 1)
    dense = [i for i in range(layers) if i in (cfg.get("mlp_only_layers") or [])
             or (isinstance(step, int) and step > 0 and (i + 1) % step)]
    if dense:
        raise ConfigError(f"{path}: layers {', '.join(str(i) for i in dense[:5])} have a dense "
                          "MLP (decoder_sparse_step / mlp_only_layers): only configs whose "
                          "every layer is a mixture of experts are estimated")


def _deepseek(cfg: dict[str, Any], path: str, read: list[str],
              fields: dict[str, Any]) -> Architecture:
    """DeepSeek-V2/V3: MLA, dense first layers, routed and shared experts."""
    rope = _need(cfg, "qk_rope_head_dim", path, read)
    nope = _need(cfg, "qk_nope_head_dim", path, read)
    fields.update(
        head_dim=rope + nope,
        kv_heads=fields["heads"],
        ffn=_need(cfg, "intermediate_size", path, read),
        kv_lora_rank=_need(cfg, "kv_lora_rank", path, read),
        q_lora_rank=cfg.get("q_lora_rank") or 0,
        qk_rope_dim=rope,
        v_head_dim=_need(cfg, "v_head_dim", path, read),
        experts=_need(cfg, "n_routed_experts", path, read),
        active_experts=_need(cfg, "num_experts_per_tok", path, read),
        shared_experts=cfg.get("n_shared_experts") or 0,
        expert_ffn=_need(cfg, "moe_intermediate_size", path, read),
        dense_layers=cfg.get("first_k_dense_replace") or 0,
        router_bias=cfg.get("topk_method") == "noaux_tc",
    )
    return Architecture(**fields)


def _gpt2(cfg: dict[str, Any], path: str, read: list[str]) -> Architecture:
    h = _need(cfg, "n_embd", path, read)
    return Architecture(
        layers=_need(cfg, "n_layer", path, read), hidden=h, heads=_need(cfg, "n_head", path, read),
        kv_heads=cfg["n_head"], head_dim=h // cfg["n_head"], ffn=cfg.get("n_inner") or 4 * h,
        vocab=_need(cfg, "vocab_size", path, read), tied_embeddings=True, gated_mlp=False,
        norm="layernorm", linear_bias=True, learned_positions=cfg.get("n_positions", 1024))


def _neox(cfg: dict[str, Any], path: str, read: list[str]) -> Architecture:
    h = _need(cfg, "hidden_size", path, read)
    heads = _need(cfg, "num_attention_heads", path, read)
    return Architecture(
        layers=_need(cfg, "num_hidden_layers", path, read), hidden=h, heads=heads, kv_heads=heads,
        head_dim=h // heads, ffn=_need(cfg, "intermediate_size", path, read),
        vocab=_need(cfg, "vocab_size", path, read),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)), gated_mlp=False,
        norm="layernorm", linear_bias=True)


def _falcon(cfg: dict[str, Any], path: str, read: list[str]) -> Architecture:
    h = _need(cfg, "hidden_size", path, read)
    heads = _need(cfg, "num_attention_heads", path, read)
    if cfg.get("new_decoder_architecture"):
        kv = cfg.get("num_kv_heads") or heads
    else:
        kv = 1 if cfg.get("multi_query", True) else heads
    return Architecture(
        layers=_need(cfg, "num_hidden_layers", path, read), hidden=h, heads=heads, kv_heads=kv,
        head_dim=h // heads, ffn=cfg.get("ffn_hidden_size") or 4 * h,
        vocab=_need(cfg, "vocab_size", path, read),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", True)), gated_mlp=False,
        norm="layernorm", linear_bias=bool(cfg.get("bias", False)))


_GPT = {"gpt2": _gpt2, "gpt_neox": _neox, "falcon": _falcon}
