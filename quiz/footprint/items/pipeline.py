"""Pipeline stages whose layer counts differ (issue 21 §6): L layers over p stages when p does
not divide L (Llama 3.1 405B: 126 layers over 16 stages).

The split is DeepSpeed's ``PipelineModule(partition_method="uniform")``
(``deepspeed/runtime/utils.py`` ``partition_uniform``): every stage gets ⌊L/p⌋ layers and the
first ``L mod p`` stages one more, ⌈L/p⌉. (Megatron-LM refuses an uneven split unless told where
the extra layers go: ``--decoder-first-pipeline-num-layers`` and
``--decoder-last-pipeline-num-layers``.) The estimate describes the first stage, which is the
heaviest: it holds the most layers (⌈L/p⌉) and, in the 1F1B schedule, the most micro-batches in
flight (p; Narayanan et al. 2021, sec. 2.2; Korthikanti et al. 2022, sec. 4.2.3):

* its model states: the parameters × ⌈L/p⌉ / L, then ÷ tp (the embedding and the LM head are
  spread over the stages in proportion, the same idealisation as the even split's ÷ pp);
* its activations: p × ⌈L/p⌉ layers' worth (L when p divides L).

The last stage, with ⌊L/p⌋ layers, one micro-batch, the output layer and the logits, is compared
in ``--explain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

UNIFORM_SRC = ("DeepSpeed PipelineModule partition_method='uniform' (runtime/utils.py "
               "partition_uniform: the first L mod p stages take one more layer)")


def stage_layers(layers: int, pp: int) -> list[int]:
    """Layers of each of ``pp`` stages: ⌈L/p⌉ for the first ``L mod p``, ⌊L/p⌋ after."""
    base, extra = divmod(layers, pp)
    return [base + 1] * extra + [base] * (pp - extra)


def uneven(t: TrainingSpec, r: ResolvedModel | None) -> bool:
    """Whether the pipeline stages of ``t`` hold different numbers of ``r``'s layers."""
    return r is not None and t.pp > 1 and bool(r.layers) and bool(r.layers % t.pp)  # type: ignore[operator]


def heaviest(t: TrainingSpec, r: ResolvedModel) -> int:
    """Layers of the first (heaviest) stage: ⌈L/p⌉."""
    layers = r.layers or 0
    return -(-layers // t.pp)


def pp_split(t: TrainingSpec, r: ResolvedModel | None, n: int, extra: int = 1) -> int:
    """``n`` values split over the tensor- and pipeline-parallel group (and ``extra`` more
    ranks, the expert-parallel size for experts), rounded up: ⌈n ÷ (tp × pp × extra)⌉, or with
    uneven stages the first stage's share ⌈n × ⌈L/p⌉ ÷ (L × tp × extra)⌉. The two agree when
    p divides L."""
    pp = t.pp
    layers = 0 if r is None else r.layers
    if pp == 1 or not layers or not layers % pp:  # even stages (not uneven(t, r)), inlined
        return -(-n // (t.tp * pp * extra))
    return -(-n * -(-layers // pp) // (layers * t.tp * extra))  # ⌈L/p⌉: heaviest(t, r)


def layers_held(t: TrainingSpec, r: ResolvedModel) -> int:
    """Layers' worth of activations on the first stage: p × ⌈L/p⌉ (L when p divides L)."""
    layers = r.layers or 0
    pp = t.pp
    return pp * -(-layers // pp) if pp > 1 and layers % pp else layers  # uneven(t, r)


def split_text(t: TrainingSpec, r: ResolvedModel, extra: int = 1, what: str = "") -> str:
    """The uneven split in words: `` × 8/126 (the first pipeline stage's layers) ÷ 8 (tp)``;
    ``what`` names ``extra`` (``" × ep 4"``)."""
    div = t.tp * extra
    text = (f" × {format_count(heaviest(t, r))}/{format_count(r.layers or 0)} (the first "
            "pipeline stage's layers)")
    if div > 1:
        text += f" ÷ {format_count(div)} (tp{what})"
    return text


def stages_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """``"126 layers over 16 stages: 14 × 8 then 2 × 7"``."""
    layers = stage_layers(r.layers or 0, t.pp)
    big, small = layers[0], layers[-1]
    n_big = layers.count(big)
    return (f"{count_noun(r.layers or 0, 'layer')} over {format_count(t.pp)} stages: "
            f"the first {format_count(n_big)} take {format_count(big)}, the other "
            f"{format_count(t.pp - n_big)} take {format_count(small)}")
