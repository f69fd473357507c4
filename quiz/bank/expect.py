"""The ``expect:`` of a worked example: the figure its keyed option states, checked against the
calculator.

A worked example may say which figure of its estimate the right answer gives::

    worked_example:
      footprint: {params: 7B, training: {precision: mixed-bf16, optimizer: adam}}
      expect: {figure: training.total, value: "112 GB"}

and the bank check recomputes the estimate (:func:`quiz.footprint.engine.estimate.estimate`) and
asserts:

1. ``value`` is the figure rounded to the digits written (``"112 GB"``: whole GB;
   ``"13.48 GB"``: hundredths of a GB), rounded half up;
2. a keyed option states ``value`` word for word (``"About 112 GB"`` does);
3. every size (or count) a distractor states differs from the figure by at least one unit of the
   last digit written in ``value`` (1 GB for ``"112 GB"``; for ``"2 GPUs"`` any other whole
   number), after converting both to bytes, so ``"104 GiB"`` is compared as 111.67 GB.

Figure names (:data:`FIGURES`) read the :class:`~quiz.footprint.engine.report.Report` through one
accessor, :func:`read_figure`. Sizes are bytes (per device for training; the whole replica for
inference; on disk for storage), counts are plain numbers. GB = 10^9 bytes, GiB = 2^30 bytes.

Pure: no Textual, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from quiz.footprint import Report

Kind = Literal["size", "count"]

_WHAT = {
    "params": "parameters of the model (every expert of a mixture of experts)",
    "active_params": "parameters active per token (mixture of experts)",
    "training.total": "training memory per device, every item summed",
    "training.devices": "devices in the training layout (dp × tp × pp × cp)",
    "training.adapter_weights": "LoRA/QLoRA adapters A and B (`finetune` lora or qlora)",
    "training.quantization_overhead": "QLoRA: the NF4 base's block constants and code tables",
    "training.gpus_needed": "fewest GPUs of the `gpu` preset that hold the training job",
    "training.headroom": "GPU memory left on each training device (negative: missing)",
    "training.framework_overhead": "framework memory per GPU as set by `overhead`",
    "training.cpu_total": "CPU RAM per GPU of the offloaded states (0 without offload)",
    "training.nvme_total": "NVMe per GPU of the offloaded states (0 without offload)",
    "inference.framework_overhead": "framework memory, `overhead` × the GPUs of one replica",
    "inference.total": "inference memory of one replica, every item summed",
    "inference.gpus_needed": "fewest GPUs of the `gpu` preset that hold one replica",
    "inference.headroom": "memory left over the inference GPUs together (negative: missing)",
    "storage.total": "every storage item summed",
    "compute.training_flops": "training FLOPs, 6 × active parameters × training tokens",
    "compute.training_hardware_flops": "FLOPs executed with recomputation (`recompute` set)",
    "compute.training_time": "training time in whole seconds at `mfu` on the layout's GPUs",
    "compute.prefill_flops": "prefill FLOPs, 2 × active parameters × context × batch",
    "compute.decode_tokens_per_s": "decode upper bound in tokens per second (memory roofline)",
    "compute.decode_crossover_batch": "smallest decode batch that is compute-bound",
    "trainable_params": "parameters training updates (all, or the LoRA/QLoRA adapters')",
    "training.usable": "memory of each GPU training may use (all but a 1 GiB reserve)",
    "inference.usable": "memory of each GPU serving may use (vLLM's 0.9 by default)",
    "inference.max_batch": "most sequences of `context` tokens that fit on the GPUs needed",
    "inference.max_context": "longest context for `batch` sequences on the GPUs needed",
    "inference.draft_weights": "weights of the speculative-decoding `draft_model`",
    "inference.draft_kv_cache": "the `draft_model`'s own KV cache",
}


def _figures() -> dict[str, tuple[Kind, str]]:
    from quiz.footprint import FIGURE_NAMES

    table: dict[str, tuple[Kind, str]] = {}
    for name in FIGURE_NAMES:
        counted = (name in ("params", "active_params", "trainable_params")
                   or name.startswith("compute.")
                   or name.endswith((".devices", ".gpus_needed", ".max_batch", ".max_context")))
        part, _, item = name.partition(".")
        what = _WHAT.get(name, f"{part} {item.replace('_', ' ')}")
        table[name] = ("count" if counted else "size", what)
    return table


FIGURES: dict[str, tuple[Kind, str]] = _figures()
"""Every figure name (:data:`quiz.footprint.engine.report.FIGURE_NAMES`) → (``"size"`` in bytes or
``"count"``, what it is)."""

SIZE_UNITS: dict[str, int] = {
    "B": 1, "byte": 1, "bytes": 1,
    "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50,
}
"""Units a size value may use: SI (powers of 1000) and IEC (powers of 1024), case as written."""

COUNT_SCALES: dict[str, int] = {
    "": 1, "K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12,
    "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
}
"""Scale words a count value may use: ``"6.74B"``, ``"6.74 billion"``."""

_NUM = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_BEFORE = r"(?<![\w.,])"  # not inside a longer number or word (H100, v1.5)
_SIZE_UNIT = "|".join(sorted(SIZE_UNITS, key=len, reverse=True))
_SIZE = re.compile(rf"{_BEFORE}(?P<num>{_NUM})\s?(?P<unit>{_SIZE_UNIT})(?![\w])")
_COUNT_WORD = r"(?:\s?(?P<scale>[KMBT]|thousand|million|billion|trillion))?"
_COUNT_VALUE = re.compile(rf"(?P<num>{_NUM}){_COUNT_WORD}(?:\s+(?P<noun>[A-Za-z][\w-]*))?")


@dataclass(frozen=True)
class Quantity:
    """A number written in a bank with its unit.

    Attributes:
        amount: the value in base units (bytes for a size, ones for a count), exact.
        step: one unit of the last digit written, in base units (``"13.48 GB"`` → 10^7 bytes).
        text: the text as written (``"13.48 GB"``).
        scale: the unit or scale word (``"GB"``, ``"B"`` for billion, ``""``).
        noun: for a count, the word after it (``"GPUs"``), or ``""``.
    """

    amount: Fraction
    step: Fraction
    text: str
    scale: str = ""
    noun: str = ""

    decimals: int = 0

    @property
    def step_text(self) -> str:
        """The rounding step in the value's own unit: ``"1 GB"`` for ``"112 GB"``, ``"0.01 GB"``
        for ``"13.48 GB"``, ``"1"`` for ``"2 GPUs"``."""
        number = "1" if not self.decimals else "0." + "0" * (self.decimals - 1) + "1"
        return f"{number} {self.scale}".rstrip()


def _number(text: str, multiplier: int) -> tuple[Fraction, Fraction, int]:
    """(amount, step, decimals) of a written number times ``multiplier``."""
    digits = text.replace(",", "").lstrip("+")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return Fraction(digits) * multiplier, Fraction(multiplier, 10**decimals), decimals


@lru_cache(maxsize=4096)
def parse_value(text: str, kind: Kind) -> Quantity:
    """Parse an ``expect`` value: a size (``"112 GB"``, ``"13.48 GB"``, ``"104.31 GiB"``,
    ``"524,288 bytes"``) or a count (``"2"``, ``"3 GPUs"``, ``"6.74B"``, ``"46.7 billion
    parameters"``).

    Kept for each ``(text, kind)`` (a :class:`Quantity` is immutable): a bank parses an
    example's value three times and its distractors' numbers once per question.

    Raises:
        ValueError: the text is not such a value; the message says what is expected.
    """
    stripped = text.strip()
    if kind == "size":
        match = _SIZE.fullmatch(stripped)
        if match is None:
            raise ValueError(
                f"{text!r} is not a size: write a number and a unit, e.g. \"112 GB\" or "
                f"\"13.48 GiB\" (units: {', '.join(u for u in SIZE_UNITS if u != 'byte')})")
        amount, step, places = _number(match["num"], SIZE_UNITS[match["unit"]])
        return Quantity(amount, step, stripped, match["unit"], "", places)
    match = _COUNT_VALUE.fullmatch(stripped)
    if match is None:
        raise ValueError(
            f"{text!r} is not a count: write a number, optionally with a scale and a noun, "
            "e.g. \"2\", \"3 GPUs\", \"6.74B\" or \"46.7 billion parameters\"")
    scale = match["scale"] or ""
    amount, step, places = _number(match["num"], COUNT_SCALES[scale])
    return Quantity(amount, step, stripped, scale, match["noun"] or "", places)


def _singular(word: str) -> str:
    return word.lower().removesuffix("s")


def quantities_in(text: str, like: Quantity, kind: Kind) -> list[Quantity]:
    """Every quantity of the same kind as ``like`` that ``text`` states: for a size, every number
    with a size unit (any unit: GiB and GB are compared in bytes); for a count, every number with
    the same scale word and noun (singular or plural) as ``like``, or, when ``like`` has neither,
    every number that has no unit after it."""
    if kind == "size":
        return [parse_value(m.group(0), "size") for m in _SIZE.finditer(text)]
    found = []
    pattern = re.compile(rf"{_BEFORE}(?P<num>{_NUM}){_COUNT_WORD}(?:\s+(?P<noun>[A-Za-z][\w-]*))?")
    for m in pattern.finditer(text):
        scale, noun = m["scale"] or "", m["noun"] or ""
        if scale != like.scale:
            continue
        if like.noun and _singular(noun) != _singular(like.noun):
            continue
        if not like.noun and not scale and (noun in SIZE_UNITS or _SIZE.match(text, m.start())):
            continue
        amount, step, places = _number(m["num"], COUNT_SCALES[scale])
        found.append(Quantity(amount, step, m.group(0).strip(), scale, noun, places))
    return found


def rounds_to(exact: int, value: Quantity) -> bool:
    """True when ``exact`` (base units), rounded half up (ties away from zero) to the digits of
    ``value``, is ``value``: ``rounds_to(112_000_000_000, "112 GB")``; ``13,476,831,232`` rounds to
    ``"13.48 GB"`` and to ``"13 GB"``, not to ``"13.5 GB"`` (that is 13.50)."""
    units = Fraction(exact) / value.step
    magnitude = abs(units)
    whole = int(magnitude)
    if magnitude - whole >= Fraction(1, 2):
        whole += 1
    rounded = whole if units >= 0 else -whole
    return Fraction(rounded) * value.step == value.amount


def states(option: str, value: str) -> bool:
    """True when ``option`` contains ``value`` as written, not as part of a longer number
    (``"1112 GB"`` does not state ``"112 GB"``)."""
    return re.search(rf"{_BEFORE}{re.escape(value.strip())}(?![\w])", option) is not None


class FigureMissing(Exception):
    """The estimate has no such figure (a phase not estimated, an item omitted, no GPU preset);
    ``str()`` says why and what to add."""


def read_figure(report: Report, name: str) -> int:
    """The figure ``name`` of ``report`` (:meth:`quiz.footprint.engine.report.Report.figure`),
    exact:
    bytes for a size, a plain number for a count.

    Args:
        report: an estimate (:func:`quiz.footprint.engine.estimate.estimate`).
        name: a key of :data:`FIGURES` (``"training.total"``, ``"inference.kv_cache"``, ...).

    Raises:
        KeyError: ``name`` is not a figure name.
        FigureMissing: the estimate has no such figure; the message says why.
    """
    if name not in FIGURES:
        raise KeyError(name)
    value = report.figure(name)
    if value is not None:
        return value
    part, _, what = name.partition(".")
    if part == "compute":
        for o in report.omitted:
            if o.phase == "compute" and o.item == what:
                raise FigureMissing(f"the estimate has no {name}: {o.reason}")
        spec = report.spec
        wants = []
        if what.startswith("training") and spec.training.train_tokens is None \
                and spec.storage.dataset_tokens is None:
            wants.append("'training: {train_tokens: ...}' (or 'storage: {dataset_tokens: ...}')")
        if what not in ("training_flops", "training_hardware_flops", "prefill_flops") \
                and spec.gpu is None:
            wants.append("'gpu:' (e.g. h100-80gb)")
        if what == "training_hardware_flops" and spec.training.recompute == "none":
            wants.append("'training: {recompute: full}' or selective")
        raise FigureMissing(f"the estimate has no {name} for this scenario"
                            + (f": add {' and '.join(wants)}" if wants else ""))
    if part == "storage" and what == "total":
        raise FigureMissing("the estimate has no storage items: add a 'storage:' part")
    phase = None if part == "storage" else (
        report.training if part == "training" else report.inference)
    if part != "storage" and phase is None:
        raise FigureMissing(f"the estimate has no {part} phase (phase: {report.spec.phase})")
    if what in ("gpus_needed", "headroom"):
        if report.gpu is None:
            raise FigureMissing(f"{name} needs a GPU preset: add 'gpu:' (e.g. h100-80gb)")
        raise FigureMissing(f"no number of {report.gpu.name} GPUs holds this {part} job")
    if name in ADAPTER_FIGURES:
        raise FigureMissing(f"{name} needs {ADAPTER_FIGURES[name]}")
    if name in DRAFT_FIGURES and report.spec.inference.draft_model is None:
        raise FigureMissing(f"{name} needs {DRAFT_FIGURES[name]}")
    raise FigureMissing(_omitted_reason(report, part, what))


ADAPTER_FIGURES = {
    "training.adapter_weights": "adapters: add 'training: {finetune: lora}' (or qlora)",
    "training.quantization_overhead": "a quantized base: add 'training: {finetune: qlora}'",
}
"""The training figures only an adapter fine-tuning has, and what to add for them."""
DRAFT_FIGURES = {
    "inference.draft_weights": "a draft model: add 'inference: {draft_model: llama-3.2-1b}' "
                               "(a model preset)",
    "inference.draft_kv_cache": "a draft model: add 'inference: {draft_model: llama-3.2-1b}' "
                                "(a model preset)",
}
"""The inference figures only speculative decoding with a draft model has (issue 21 §5)."""


def _omitted_reason(report: Report, phase: str, item: str) -> str:
    for o in report.omitted:
        if o.phase == phase and o.item == item:
            return f"the estimate has no {phase} {item.replace('_', ' ')}: {o.reason}"
    return f"the estimate has no {phase} {item.replace('_', ' ')} for this scenario"


def shown(exact: int, kind: Kind, unit: str) -> str:
    """``exact`` as a person reads it, for messages: in ``unit`` with two decimals
    (``"112.00 GB"``), in bytes, or as a grouped count."""
    from quiz.footprint import format_count, format_in

    if kind == "count" or SIZE_UNITS.get(unit, 1) == 1:
        return format_count(exact) + ("" if kind == "count" else " bytes")
    return format_in(exact, unit)
