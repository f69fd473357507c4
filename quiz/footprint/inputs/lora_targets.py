"""The projections LoRA can target in an architecture, their shapes and the adapter parameters
they get (Hu et al. 2021, LoRA, sec. 4.1: W₀ + BA with A: d_in × r and B: r × d_out; PEFT's
``lora_A``/``lora_B``). Input-level facts about an architecture: the spec checks a rank against
them, the adapter items count their bytes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from quiz.footprint.inputs.arch import Architecture
from quiz.footprint.inputs.fields import choice_list_values

ATTENTION_TARGETS = ("q", "k", "v", "o")


MLP_TARGETS = ("gate", "up", "down")


@dataclass(frozen=True, slots=True)
class AdaptedMatrix:
    """One kind of target projection: ``count`` matrices of ``d_in`` × ``d_out`` (over all layers
    and experts) that each get an adapter A (d_in × r) and B (r × d_out)."""

    target: str
    d_in: int
    d_out: int
    count: int

    def params(self, rank: int) -> int:
        """Adapter parameters of all ``count`` matrices: count × r × (d_in + d_out)."""
        return self.count * rank * (self.d_in + self.d_out)


def targets_of(arch: Architecture, text: str) -> tuple[str, ...]:
    """The targets named by ``text`` (a :class:`~quiz.footprint.inputs.fields.ChoiceList` value)
    that
    the architecture has: ``"all"`` on a non-gated MLP has no ``gate``."""
    names = choice_list_values(text, "lora_targets")
    return tuple(n for n in names if n != "gate" or arch.gated_mlp)


def target_matrices(arch: Architecture) -> dict[str, AdaptedMatrix]:
    """Every projection LoRA can target, by name, with its shape (see the module docstring).
    ``up`` is the first MLP matrix (``c_fc`` of a GPT-2 MLP), ``down`` the second."""
    n, h = arch.layers, arch.hidden
    experts = n * arch.experts
    out = {
        "q": AdaptedMatrix("q", h, arch.q_dim, n),
        "k": AdaptedMatrix("k", h, arch.kv_dim, n),
        "v": AdaptedMatrix("v", h, arch.kv_dim, n),
        "o": AdaptedMatrix("o", arch.q_dim, h, n),
        "up": AdaptedMatrix("up", h, arch.ffn, experts),
        "down": AdaptedMatrix("down", arch.ffn, h, experts),
    }
    if arch.gated_mlp:
        out["gate"] = AdaptedMatrix("gate", h, arch.ffn, experts)
    return out


def adapted_matrices(arch: Architecture, targets: str) -> list[AdaptedMatrix]:
    """The target projections named by ``targets`` that ``arch`` has, in canonical order."""
    shapes = target_matrices(arch)
    return [shapes[name] for name in targets_of(arch, targets)]


@lru_cache(maxsize=256)
def adapter_params(arch: Architecture, rank: int, targets: str) -> int:
    """Trainable adapter parameters Pₐ: Σ over the adapted matrices of r × (d_in + d_out).

    Example: Llama-2-7B, r = 8, ``"q,v"`` → 4,194,304; r = 16, ``"all"`` → 39,976,960."""
    return sum(m.params(rank) for m in adapted_matrices(arch, targets))


def rank_limit(arch: Architecture, targets: str) -> tuple[int, tuple[str, ...]]:
    """``(side, names)``: the smallest side min(d_in, d_out) of the targeted matrices, and the
    targets that have it. BA has rank at most r and at most that side, so a larger r only adds
    memory (Hu et al. 2021, sec. 4.1: r ≪ min(d, k)). ``(0, ())`` when ``arch`` has none of
    the targets."""
    mats = adapted_matrices(arch, targets)
    if not mats:  # only a gate on a plain MLP: the spec reports that
        return 0, ()
    side = min(min(m.d_in, m.d_out) for m in mats)
    return side, tuple(m.target for m in mats if min(m.d_in, m.d_out) == side)


@lru_cache(maxsize=256)
def active_adapter_params(arch: Architecture, rank: int, targets: str) -> int:
    """Adapter parameters a token passes through: the attention adapters, and of a mixture of
    experts' MLP adapters only those of its ``active_experts`` (compute, not memory)."""
    total = 0
    for m in adapted_matrices(arch, targets):
        p = m.params(rank)
        if m.target in MLP_TARGETS:
            p = p * arch.active_experts // arch.experts
        total += p
    return total
