"""Resolve a spec's model (a preset, a parameter count or an architecture) into exact numbers.

:func:`resolve` turns the model part of a :class:`~quiz.footprint.inputs.spec.FootprintSpec` into a
:class:`ResolvedModel`: the parameter count (computed from the architecture whenever there is a
complete one), the active count of a mixture of experts, and the shapes the activation and KV
cache formulas need. Results are cached by the model fields, so the TUI can re-estimate on every
keystroke without redoing this work.

Problems are raised as :class:`SpecProblem` with the ``loc`` of the offending field; the spec
turns them into :class:`pydantic.ValidationError` entries.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from operator import attrgetter
from typing import Any

from quiz.footprint.inputs.arch import Architecture, ParamCount, count_params
from quiz.footprint.inputs.fields import ARCH_FIELDS
from quiz.footprint.inputs.presets import PresetError, get_model
from quiz.footprint.inputs.units import count_noun, format_count

_ARCH_VALUES = attrgetter(*ARCH_FIELDS)

REQUIRED_FOR_COUNT = ("layers", "hidden", "heads", "ffn", "vocab")
"""Fields without which no parameter count can be computed from an architecture."""


class SpecProblem(ValueError):
    """A model description that cannot be resolved; ``loc`` names the field to fix."""

    def __init__(self, loc: tuple[str, ...], kind: str, message: str) -> None:
        super().__init__(message)
        self.loc = loc
        self.kind = kind
        self.message = message


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """The model of a spec in exact numbers.

    ``arch`` and ``counts`` are set when a complete architecture is known and the parameter
    count comes from it; the shape fields (``layers`` ... ``vocab``) are set whenever they were
    given or came with a preset, even without a complete architecture (``--params`` with
    ``--layers --hidden --heads`` still gives activations and a KV cache).
    """

    preset: str | None
    name: str
    params: int
    active_params: int
    arch: Architecture | None
    counts: ParamCount | None
    layers: int | None
    hidden: int | None
    heads: int | None
    kv_heads: int | None
    head_dim: int | None
    ffn: int | None
    vocab: int | None
    sliding_window: int | None
    sliding_layers: int
    context: int | None
    params_note: str
    source: str | None


def resolve(spec: Any) -> ResolvedModel:
    """Resolve the model fields of ``spec`` (a ``FootprintSpec`` or any object with the same
    attributes). Cached by the values of those fields.

    Raises:
        SpecProblem: an unknown preset, ``model`` and ``params`` together, an incomplete or
            inconsistent architecture.
    """
    key = (spec.model, spec.params, _ARCH_VALUES(spec), getattr(spec, "config", None))
    return _resolve_cached(key)


@lru_cache(maxsize=512)
def _resolve_cached(key: tuple[Any, ...]) -> ResolvedModel:
    model, params, values, config = key
    given = {f: v for f, v in zip(ARCH_FIELDS, values, strict=True) if v is not None}
    if config is not None:
        return _from_config(config, model, params, given)
    if model is not None:
        return _from_preset(model, params, given)
    return _from_fields(params, given)


def _from_config(path: str, model: str | None, params: int | None,
                 given: dict[str, Any]) -> ResolvedModel:
    """The architecture of a Hugging Face config.json (:mod:`quiz.footprint.inputs.hf_config`),
    with architecture fields given beside it overriding the file's."""
    from quiz.footprint.inputs.hf_config import ConfigError, read_config

    if model is not None or params is not None:
        raise SpecProblem(("config",), "config_and_model",
                          "give a config.json or a model preset or a parameter count, not both")
    try:
        arch, name, context = read_config(path)
    except ConfigError as exc:
        raise SpecProblem(("config",), "config", str(exc)) from None
    if given:
        arch = replace(arch, **given)
        name += " (modified)"
    counts = count_params(arch)
    return _with_arch(None, name, arch, counts, context,
                      f"computed from {name}", f"Hugging Face config.json: {path}")


def _check_shapes(fields: dict[str, Any], derive_head_dim: bool) -> dict[str, Any]:
    """Fill in head_dim / kv_heads / sliding_layers and check they fit together."""
    heads, hidden = fields.get("heads"), fields.get("hidden")
    if derive_head_dim and heads and hidden and "head_dim" not in fields:
        if hidden % heads:
            raise SpecProblem(
                ("heads",),
                "heads_hidden",
                f"{format_count(heads)} attention heads do not divide the hidden size "
                f"{format_count(hidden)}; "
                "give head_dim explicitly",
            )
        fields["head_dim"] = hidden // heads
    kv = fields.get("kv_heads")
    if heads and kv is not None and (kv > heads or heads % kv):
        raise SpecProblem(
            ("kv_heads",),
            "kv_heads",
            f"{format_count(kv)} key/value heads do not divide the "
            f"{count_noun(heads, 'attention head')} "
            "(grouped-query attention shares each key/value head among heads / kv_heads queries)",
        )
    experts = fields.get("experts", 1)
    active = fields.get("active_experts")
    if active is not None and active > experts:
        raise SpecProblem(
            ("active_experts",),
            "active_experts",
            f"{format_count(active)} active experts per token is more than the "
            f"{count_noun(experts, 'expert')}",
        )
    window, sliding = fields.get("sliding_window"), fields.get("sliding_layers")
    if sliding and window is None:
        raise SpecProblem(
            ("sliding_window",), "sliding_window", "sliding_layers needs a sliding_window size"
        )
    layers = fields.get("layers")
    if window is not None and sliding is None and layers:
        fields["sliding_layers"] = layers
    if layers and fields.get("sliding_layers", 0) > layers:
        raise SpecProblem(
            ("sliding_layers",),
            "sliding_layers",
            f"{format_count(fields['sliding_layers'])} sliding-window layers is more than the "
            f"{count_noun(layers, 'layer')}",
        )
    return fields


def _from_preset(model: str, params: int | None, given: dict[str, Any]) -> ResolvedModel:
    if params is not None:
        raise SpecProblem(
            ("params",),
            "model_and_params",
            "give either a model preset or a parameter count, not both",
        )
    try:
        preset = get_model(model)
    except PresetError as exc:
        raise SpecProblem(("model",), "unknown_preset", str(exc)) from None
    base = preset.arch
    fields: dict[str, Any] = {f: getattr(base, f) for f in ARCH_FIELDS}
    reshaped = "hidden" in given or "heads" in given
    if reshaped and "head_dim" not in given and not base.mla:  # MLA's head_dim: rope + nope
        fields.pop("head_dim")  # derived again from the new hidden / heads
    if "heads" in given and "kv_heads" not in given and base.kv_heads == base.heads:
        fields["kv_heads"] = given["heads"]  # multi-head attention stays multi-head
    if "layers" in given and "sliding_layers" not in given and base.sliding_layers == base.layers:
        fields["sliding_layers"] = given["layers"] if base.sliding_window else 0
    if "experts" in given and "active_experts" not in given and base.experts == 1:
        raise SpecProblem(
            ("active_experts",),
            "active_experts",
            "give the number of experts active per token (active_experts) with experts",
        )
    if "sliding_window" in given and "sliding_layers" not in given:
        fields["sliding_layers"] = None
    fields.update(given)
    fields = _check_shapes(fields, derive_head_dim=True)
    if fields.get("sliding_layers") is None:
        fields["sliding_layers"] = 0
    arch = replace(base, **fields)  # keeps the preset's keys beyond the flags (MLA, MoE)
    counts = count_params(arch)
    changed = sorted(f for f in given if given[f] != getattr(base, f))
    if changed:
        note = (
            f"computed from the architecture of preset {preset.id} with "
            f"{', '.join(changed)} changed"
        )
    elif counts.total == preset.published_params:
        note = f"computed from the architecture of {preset.id}, equal to its published count"
    else:
        note = (
            f"computed from the architecture of {preset.id}; published as "
            f"{format_count(preset.published_params)}, a rounded figure"
        )
    name = preset.name + (" (modified)" if changed else "")
    return _with_arch(preset.id, name, arch, counts, preset.context, note, preset.source)


def _with_arch(
    preset: str | None,
    name: str,
    arch: Architecture,
    counts: ParamCount,
    context: int | None,
    note: str,
    source: str | None,
) -> ResolvedModel:
    return ResolvedModel(
        preset=preset,
        name=name,
        params=counts.total,
        active_params=counts.active,
        arch=arch,
        counts=counts,
        layers=arch.layers,
        hidden=arch.hidden,
        heads=arch.heads,
        kv_heads=arch.kv_heads,
        head_dim=arch.head_dim,
        ffn=arch.ffn,
        vocab=arch.vocab,
        sliding_window=arch.sliding_window,
        sliding_layers=arch.sliding_layers,
        context=context,
        params_note=note,
        source=source,
    )


def _from_fields(params: int | None, given: dict[str, Any]) -> ResolvedModel:
    fields = _check_shapes(dict(given), derive_head_dim=True)
    if "experts" in fields and "active_experts" not in fields and fields["experts"] > 1:
        raise SpecProblem(
            ("active_experts",),
            "active_experts",
            "give the number of experts active per token (active_experts) with experts",
        )
    if fields.get("heads") and "kv_heads" not in fields:
        fields["kv_heads"] = fields["heads"]
    missing = [f for f in REQUIRED_FOR_COUNT if f not in fields]
    if params is None:
        if missing:
            raise SpecProblem(
                ("model",),
                "no_model",
                "give a model preset (model), a parameter count (params) or a full "
                f"architecture (missing: {', '.join(missing)})",
            )
        arch = Architecture(**{**fields, "sliding_layers": fields.get("sliding_layers") or 0})
        counts = count_params(arch)
        return _with_arch(
            None, "custom architecture", arch, counts, None, "computed from the architecture", None
        )
    experts = fields.get("experts", 1)
    note = "as given"
    if experts > 1:
        note += "; the active count needs a full architecture, so it is reported as the total"
    shapes = replace(
        _EMPTY,
        name="custom model",
        params=params,
        active_params=params,
        layers=fields.get("layers"),
        hidden=fields.get("hidden"),
        heads=fields.get("heads"),
        kv_heads=fields.get("kv_heads"),
        head_dim=fields.get("head_dim"),
        ffn=fields.get("ffn"),
        vocab=fields.get("vocab"),
        sliding_window=fields.get("sliding_window"),
        sliding_layers=fields.get("sliding_layers") or 0,
        params_note=note,
    )
    return shapes


_EMPTY = ResolvedModel(
    preset=None,
    name="",
    params=0,
    active_params=0,
    arch=None,
    counts=None,
    layers=None,
    hidden=None,
    heads=None,
    kv_heads=None,
    head_dim=None,
    ffn=None,
    vocab=None,
    sliding_window=None,
    sliding_layers=0,
    context=None,
    params_note="",
    source=None,
)
