"""A whole model under a named scheme: the matrices by role and storage format, what stays
unquantized, and the ``quantization`` object of the JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from quiz.footprint.inputs.arch import count_params, linear_matrices, matrix_roles
from quiz.footprint.quant.gguf import GGML_TYPES, GGUF_FTYPES, gguf_tensor_types
from quiz.footprint.quant.layouts import ZERO_BYTES, QuantLayout, TensorBytes, ceil8, tensor_bytes
from quiz.footprint.quant.schemes import SCHEMES, Scheme

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture


@dataclass(frozen=True, slots=True)
class TensorGroup:
    """Matrices of one role stored in one format: ``count`` matrices of ``out × in``.

    ``role`` is the GGUF / Hugging Face tensor name (``"attn_v"``, ``"token_embd"``),
    ``fmt`` the format (``"Q6_K"``, ``"bnb-nf4"``, ``"BF16"``), ``bytes`` their storage."""

    role: str
    fmt: str
    out: int
    inp: int
    count: int
    quantized: bool
    bytes: TensorBytes
    layout: QuantLayout

    @property
    def params(self) -> int:
        """Weights in the group: out × in × count."""
        return self.out * self.inp * self.count


@dataclass(frozen=True, slots=True)
class WeightPlan:
    """The weights of a whole model under a named scheme: the matrices by role and format
    (``groups``, identical matrices merged), and what stays unquantized.

    ``overhead_known`` is false without an architecture for per-row and per-tensor layouts
    (their scales count rows or matrices, which a bare parameter count does not give).

    ``kept_params`` parameters (:attr:`Scheme.kept`) take ``kept_bits`` each. Without an
    architecture (``exact`` false) there is one group holding every parameter at the scheme's
    default layout, and ``groups[0].bytes`` counts its scales from ``⌈params / block⌉`` blocks.
    """

    scheme: Scheme
    groups: tuple[TensorGroup, ...]
    kept_params: int
    kept_bits: int
    exact: bool
    _matrices: TensorBytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The sum of the groups, once: a plan is cached (weight_plan) and every estimate reads
        # its weights and overhead bytes several times.
        total = ZERO_BYTES
        for g in self.groups:
            total = total + g.bytes
        object.__setattr__(self, "_matrices", total)

    @property
    def overhead_known(self) -> bool:
        """Whether :attr:`overhead_bytes` is the real count (see the class docstring)."""
        return self.exact or self.groups[0].layout.granularity in ("flat", "group")

    @property
    def quantized_params(self) -> int:
        """Weights stored in a quantized format (for GGUF, every matrix but F16/F32 ones)."""
        return sum(g.params for g in self.groups if g.quantized)

    @property
    def matrices(self) -> TensorBytes:
        """Bytes of all matrices in ``groups``."""
        return self._matrices

    @property
    def kept_bytes(self) -> int:
        """Bytes of the parameters that stay unquantized: ⌈kept_params × kept_bits / 8⌉."""
        return -(-self.kept_params * self.kept_bits // 8)

    @property
    def weight_bytes(self) -> int:
        """The ``weights`` item: packed values of the matrices + unquantized parameters."""
        return self.matrices.values + self.kept_bytes

    @property
    def overhead_bytes(self) -> int:
        """The ``quantization_overhead`` item: scales, zero points, second level, outliers."""
        return self.matrices.overhead

    @property
    def total(self) -> int:
        """All weight bytes."""
        return self.weight_bytes + self.overhead_bytes

    def by_format(self) -> dict[str, int]:
        """Weights per format, in first-seen order: ``{"Q4_K": …, "Q6_K": …}``."""
        out: dict[str, int] = {}
        for g in self.groups:
            out[g.fmt] = out.get(g.fmt, 0) + g.params
        return out


def _merge(rows: Iterable[tuple[str, int, int, int, QuantLayout, bool]]) -> tuple[TensorGroup, ...]:
    merged: dict[tuple[str, int, int, str], list[int]] = {}
    layouts: dict[str, tuple[QuantLayout, bool]] = {}
    for role, out, inp, count, layout, quantized in rows:
        key = (role, out, inp, layout.key)
        merged.setdefault(key, [0])[0] += count
        layouts[layout.key] = (layout, quantized)
    groups = []
    for (role, out, inp, fmt), (count,) in merged.items():
        layout, quantized = layouts[fmt]
        groups.append(TensorGroup(role, fmt, out, inp, count, quantized,
                                  tensor_bytes(layout, out, inp).times(count), layout))
    return tuple(groups)


_HF_ROLES = ("q_proj", "k_proj", "v_proj", "o_proj")


@lru_cache(maxsize=512)
def weight_plan(key: str, arch: Architecture | None, params: int,
                group_size: int = 128) -> WeightPlan:
    """The weights of a model under the named scheme ``key`` (a :data:`SCHEMES` key).

    With an architecture: GGUF schemes place every 2-D tensor per :func:`gguf_tensor_types`
    and keep the rest (norms, biases, router, learned positions) in F32; the other schemes
    quantize the linear layers of the blocks in their layout (``group_size`` for GPTQ/AWQ) and
    keep embeddings, LM head, norms, biases and router in 16 bits. Without one (``arch`` None),
    every one of ``params`` parameters counts as quantized in the default layout.

    Llama-2-7B ``gguf-q4_k_m``: 4,080,263,168 bytes (TheBloke's file: 4.08 GB).

    Raises:
        KeyError: an unknown scheme.
    """
    scheme = SCHEMES[key]
    if scheme.layout is None:
        default = GGML_TYPES[GGUF_FTYPES[key]]
    else:
        default = scheme.layout(group_size)
    if arch is None:
        layout = default
        values = ceil8(params * layout.value_bits)
        if layout.granularity in ("flat", "group"):
            blocks = -(-params // layout.block)
            scales = ceil8(blocks * layout.block_bits)
        else:
            scales = 0
        b = TensorBytes(values, scales, 0, 0)
        group = TensorGroup("all parameters", layout.key, params, 1, 1, True, b, layout)
        return WeightPlan(scheme, (group,), 0, scheme.kept_bits, False)
    counts = count_params(arch)
    rows: list[tuple[str, int, int, int, QuantLayout, bool]] = []
    if scheme.layout is None:
        for role, out, inp, count, t in gguf_tensor_types(key, arch):
            layout = GGML_TYPES[t]
            rows.append((role, out, inp, count, layout, t not in ("F16", "F32")))
    else:
        for role, (out, inp, count) in zip(_roles(arch), linear_matrices(arch), strict=True):
            rows.append((role, out, inp, count, default, True))
    groups = _merge(rows)
    kept = counts.total - sum(g.params for g in groups)
    return WeightPlan(scheme, groups, kept, scheme.kept_bits, True)


def _roles(arch: Architecture) -> tuple[str, ...]:
    """Names of the :func:`~quiz.footprint.inputs.arch.linear_matrices` entries, in order."""
    return matrix_roles(arch)


def plan_json(plan: WeightPlan) -> dict[str, object]:
    """The ``quantization`` object of the inference JSON for a named scheme.

    ``{"scheme": str, "label": str, "exact": bool, "quantized_params": int, "kept_params": int,
    "kept_bits": int, "bits_per_weight": float, "formats": [{"format": str, "params": int,
    "bytes": int}, ...], "source": str}`` — ``formats`` lists each storage format of the
    matrices with its weights and bytes (values and metadata); ``bits_per_weight`` is
    8 × those bytes ÷ those weights, rounded to 4 decimals (the kept parameters excluded).
    """
    formats: dict[str, list[int]] = {}
    for g in plan.groups:
        entry = formats.setdefault(g.fmt, [0, 0])
        entry[0] += g.params
        entry[1] += g.bytes.total
    params = sum(p for p, _ in formats.values())
    total = plan.matrices.total if plan.overhead_known else plan.matrices.values
    return {
        "scheme": plan.scheme.key,
        "label": plan.scheme.label,
        "exact": plan.exact,
        "quantized_params": plan.quantized_params,
        "kept_params": plan.kept_params,
        "kept_bits": plan.kept_bits,
        "bits_per_weight": round(8 * total / params, 4) if params else 0.0,
        "formats": [{"format": f, "params": p, "bytes": b} for f, (p, b) in formats.items()],
        "source": plan.scheme.source,
    }
