"""Model and GPU presets, read once from the YAML data in ``quiz/footprint/presets/``.

The files ship inside the wheel (hatchling packages everything under ``quiz/``) and are found
next to this module, so an installed ``quiz`` works from any directory. Numbers may be written
as YAML numbers or as text (``"7B"``): both go through :mod:`quiz.footprint.inputs.units`.

Public functions: :func:`model_presets`, :func:`gpu_presets`, :func:`get_model`, :func:`get_gpu`,
:func:`suggest`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar

from quiz.footprint.inputs.arch import Architecture, count_params
from quiz.footprint.inputs.units import parse_bool, parse_count

PRESET_DIR = Path(__file__).resolve().parent.parent / "presets"
"""Folder of the shipped preset files (``models.yaml``, ``gpus.yaml``)."""


class PresetError(ValueError):
    """A preset file is missing, malformed, or names an unknown preset."""


@dataclass(frozen=True, slots=True)
class ModelPreset:
    """A named model: its architecture, where each number comes from, and its published count.

    ``published_rounded`` marks a published count that is a rounded figure (GPT-3's "175.0B"):
    the computed count is then checked within a tolerance instead of exactly.
    """

    id: str
    name: str
    arch: Architecture
    context: int | None
    source: str
    published_params: int
    published_params_source: str
    published_rounded: bool = False
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def params(self) -> int:
        """Parameter count computed from the architecture (not the published figure)."""
        return count_params(self.arch).total


@dataclass(frozen=True, slots=True)
class GpuPreset:
    """A device: its memory in bytes as the driver reports it, and the source of that number;
    for the compute estimate, its peak memory bandwidth (bytes per second) and peak dense
    FLOP/s per number format (``"fp32"``, ``"fp16"``, ``"bf16"``, ``"fp8"``), with the
    datasheet they come from (``compute_source``; empty, with ``bandwidth`` ``None`` and no
    ``peak_flops``, when the preset has no compute figures)."""

    id: str
    name: str
    memory_bytes: int
    datasheet: str
    source: str
    bandwidth: int | None = None
    peak_flops: Mapping[str, int] = field(default_factory=dict)
    compute_source: str = ""
    unified: bool = False


def load_yaml(text: str) -> Any:
    """Parse preset YAML with the project's safe loader (:func:`quiz.yamlio.safe_load`: PyYAML's
    safe loader, the C one when libyaml is available; numbers load as numbers).

    Raises:
        yaml.YAMLError: malformed YAML.
    """
    from quiz.yamlio import safe_load  # imported here: presets are read on first use

    return safe_load(text)


def _read(name: str) -> dict[str, Any]:
    path = PRESET_DIR / name
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PresetError(f"cannot read the preset file {path}: {exc}") from exc
    if not isinstance(data, dict) or len(data) != 1:
        raise PresetError(f"{path}: expected a single top-level mapping")
    (body,) = data.values()
    if not isinstance(body, dict):
        raise PresetError(f"{path}: expected a mapping of presets")
    return body


def _count(entry: dict[str, Any], key: str, where: str, default: Any = None) -> Any:
    if key not in entry:
        if default is None:
            raise PresetError(f"{where}: missing {key!r}")
        return default
    try:
        return parse_count(entry[key])
    except (TypeError, ValueError) as exc:
        raise PresetError(f"{where}: {key}: {exc}") from exc


def _flag(entry: dict[str, Any], key: str, where: str, default: bool) -> bool:
    if key not in entry:
        return default
    try:
        return parse_bool(entry[key])
    except ValueError as exc:
        raise PresetError(f"{where}: {key}: {exc}") from exc


def _text(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PresetError(f"{where}: {key!r} must be non-empty text")
    return " ".join(value.split())


_PRESET_KEYS = frozenset(
    "name context source sources published_params published_params_source "
    "published_params_rounded".split()
)
"""Keys of a model preset besides its architecture (the fields of
:class:`~quiz.footprint.inputs.fields.ModelShape`)."""

REQUIRED_ARCH = ("layers", "hidden", "heads", "ffn", "vocab")
"""Architecture fields every model preset gives."""

CONFIG_KEYS = {
    "kv_lora_rank": "kv_lora_rank",
    "q_lora_rank": "q_lora_rank",
    "qk_rope_head_dim": "qk_rope_dim",
    "v_head_dim": "v_head_dim",
    "n_shared_experts": "shared_experts",
    "moe_intermediate_size": "expert_ffn",
    "first_k_dense_replace": "dense_layers",
    "shared_expert_intermediate_size": "shared_ffn",
}
"""Architecture keys a preset may give beyond the calculator's flags, spelt as in the Hugging Face
config.json that ``--config`` reads (multi-head latent attention and DeepSeek's and Qwen's MoE
layout), each with the :class:`~quiz.footprint.inputs.arch.Architecture` field it sets. Whole
numbers (0 or more); ``router_bias`` (DeepSeek-V3's ``noaux_tc`` correction bias) is yes/no."""


def _shape(entry: dict[str, Any], where: str) -> dict[str, Any]:
    """The architecture fields of a preset entry, validated by
    :class:`~quiz.footprint.inputs.fields.ModelShape` — the same fields, bounds and messages as a
    calculator spec — with the defaults of a dense, untied, RMSNorm transformer filled in."""
    from pydantic import ValidationError

    from quiz.footprint.inputs.fields import ModelShape

    given = {k: v for k, v in entry.items()
             if k not in _PRESET_KEYS and k not in CONFIG_KEYS and k != "router_bias"}
    try:
        shape = ModelShape.model_validate(given)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = ".".join(str(part) for part in first["loc"])
        raise PresetError(f"{where}: {loc}: {first['msg']}") from None
    values = shape.model_dump(exclude_none=True)
    missing = [k for k in REQUIRED_ARCH if k not in values]
    if missing:
        raise PresetError(f"{where}: missing {', '.join(repr(k) for k in missing)}")
    heads, layers = values["heads"], values["layers"]
    values.setdefault("kv_heads", heads)
    values.setdefault("head_dim", values["hidden"] // heads)
    values.setdefault("active_experts", values.get("experts", 1))
    values.setdefault("sliding_layers", layers if values.get("sliding_window") else 0)
    for key, name in CONFIG_KEYS.items():
        if key in entry:
            value = _count(entry, key, where)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise PresetError(f"{where}: {key} must be a whole number, 0 or more")
            values[name] = value
    values["router_bias"] = _flag(entry, "router_bias", where, False)
    if values.get("kv_lora_rank") and not values.get("qk_rope_dim"):
        raise PresetError(f"{where}: multi-head latent attention (kv_lora_rank) needs "
                          "qk_rope_head_dim and v_head_dim")
    return values


def _model(pid: str, entry: Any) -> ModelPreset:
    where = f"models.yaml: {pid}"
    if not isinstance(entry, dict):
        raise PresetError(f"{where}: expected a mapping")
    arch = Architecture(**_shape(entry, where))
    sources = entry.get("sources") or {}
    if not isinstance(sources, dict):
        raise PresetError(f"{where}: sources must be a mapping")
    return ModelPreset(
        id=pid,
        name=_text(entry, "name", where),
        arch=arch,
        context=_count(entry, "context", where, 0) or None,
        source=_text(entry, "source", where),
        published_params=_count(entry, "published_params", where),
        published_params_source=_text(entry, "published_params_source", where),
        published_rounded=_flag(entry, "published_params_rounded", where, False),
        sources={str(k): " ".join(str(v).split()) for k, v in sources.items()},
    )


@cache
def model_presets() -> dict[str, ModelPreset]:
    """All model presets by id (``"llama-2-7b"`` ...), read from ``models.yaml`` once.

    Raises:
        PresetError: the file is missing or malformed (a broken installation or a bad edit).
    """
    return {str(pid): _model(str(pid), entry) for pid, entry in _read("models.yaml").items()}


@cache
def gpu_presets() -> dict[str, GpuPreset]:
    """All GPU presets by id (``"h100-80gb"`` ...), read from ``gpus.yaml`` once.

    Raises:
        PresetError: the file is missing or malformed.
    """
    result = {}
    for pid, entry in _read("gpus.yaml").items():
        where = f"gpus.yaml: {pid}"
        if not isinstance(entry, dict):
            raise PresetError(f"{where}: expected a mapping")
        result[str(pid)] = GpuPreset(
            id=str(pid),
            name=_text(entry, "name", where),
            memory_bytes=_count(entry, "memory_bytes", where),
            datasheet=_text(entry, "datasheet", where),
            source=_text(entry, "source", where),
            unified=_flag(entry, "unified", where, False),
            **_compute_figures(entry, where),
        )
    return result


PEAK_FORMATS = ("fp32", "fp16", "bf16", "fp8")
"""Number formats a GPU preset may give a peak dense FLOP/s for."""


def _compute_figures(entry: dict[str, Any], where: str) -> dict[str, Any]:
    """``bandwidth``, ``peak_flops`` and ``compute_source`` of a GPU entry: all three or none.

    Raises:
        PresetError: one given without the others, an unknown number format, a bad number.
    """
    keys = ("bandwidth", "peak_flops", "compute_source")
    given = [k for k in keys if k in entry]
    if not given:
        return {}
    if len(given) != len(keys):
        missing = ", ".join(repr(k) for k in keys if k not in entry)
        raise PresetError(f"{where}: compute figures need {missing} too")
    peaks = entry["peak_flops"]
    if not isinstance(peaks, dict) or not peaks:
        raise PresetError(f"{where}: peak_flops must be a mapping of number format to FLOP/s")
    unknown = [str(k) for k in peaks if k not in PEAK_FORMATS]
    if unknown:
        raise PresetError(f"{where}: peak_flops: unknown number format {unknown[0]!r}; "
                          f"expected one of: {', '.join(PEAK_FORMATS)}")
    return {
        "bandwidth": _count(entry, "bandwidth", where),
        "peak_flops": {str(k): _count(peaks, k, f"{where}: peak_flops") for k in peaks},
        "compute_source": _text(entry, "compute_source", where),
    }


def suggest(name: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """Return the choice closest to ``name`` (difflib ratio ≥ 0.6), or ``None``."""
    lowered = name.strip().lower()
    close = difflib.get_close_matches(lowered, list(choices), n=1, cutoff=0.6)
    if close:
        return close[0]
    for choice in choices:  # "70b" → "llama-2-70b": a unique substring is a good hint too
        if lowered and lowered in choice and sum(lowered in c for c in choices) == 1:
            return choice
    return None


_Preset = TypeVar("_Preset", "ModelPreset", "GpuPreset")


def _lookup(kind: str, name: str, table: Mapping[str, _Preset]) -> _Preset:
    key = name.strip().lower()
    if key in table:
        return table[key]
    hint = suggest(key, tuple(table))
    message = f"unknown {kind} preset {name!r}"
    if hint:
        message += f"; did you mean {hint!r}?"
    else:
        message += f" (known: {', '.join(table)})"
    raise PresetError(message)


def get_model(name: str) -> ModelPreset:
    """Return the model preset ``name`` (case-insensitive).

    Raises:
        PresetError: unknown name, with a "did you mean" hint when one is close
            (``"llama-7b"`` → ``"unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?"``).
    """
    return _lookup("model", name, model_presets())


def get_gpu(name: str) -> GpuPreset:
    """Return the GPU preset ``name`` (case-insensitive).

    Raises:
        PresetError: unknown name, with a "did you mean" hint when one is close.
    """
    return _lookup("GPU", name, gpu_presets())


@lru_cache(maxsize=64)
def custom_gpu(base: str | None, memory: int | None, bandwidth: int | None,
               tflops: int | None) -> GpuPreset:
    """A GPU of your own (``--gpu-memory``, ``--gpu-bandwidth``, ``--gpu-tflops``), alone or
    overriding the figures of the preset ``base``. ``tflops`` (FLOP/s) is the dense BF16/FP16
    matrix peak: it replaces the preset's fp16 and bf16 peaks and keeps its others (FP8, FP32).

    Raises:
        PresetError: ``base`` is not a GPU preset; neither a base nor a memory is given.
    """
    from quiz.footprint.inputs.units import format_bytes

    given: list[str] = []
    if base is not None:
        gpu = get_gpu(base)
    elif memory is None:
        raise PresetError("a GPU needs its memory: give --gpu-memory or a --gpu preset")
    else:
        gpu = GpuPreset(id="custom", name="custom GPU", memory_bytes=memory,
                        datasheet="given", source="given")
    peaks = dict(gpu.peak_flops)
    if memory is not None:
        given.append(f"memory {format_bytes(memory, 'GB')}")
    if bandwidth is not None:
        given.append(f"bandwidth {format_bytes(bandwidth, 'GB')}/s")
    if tflops is not None:
        peaks.update(fp16=tflops, bf16=tflops)
        given.append(f"{tflops / 10**12:g} TFLOPS BF16/FP16")
    what = ", ".join(given)
    name = gpu.name if base is None else f"{gpu.name} ({what} as given)"
    compute = bandwidth if bandwidth is not None else gpu.bandwidth
    return GpuPreset(
        id=gpu.id, name=name, memory_bytes=memory if memory is not None else gpu.memory_bytes,
        datasheet=gpu.datasheet if base is not None and memory is None else f"as given: {what}",
        source=gpu.source if memory is None else "as given (--gpu-memory)",
        bandwidth=compute, peak_flops=peaks,
        compute_source=(gpu.compute_source + "; " if gpu.compute_source else "")
        + f"as given: {what}" if (bandwidth or tflops) else gpu.compute_source,
        unified=gpu.unified)
