"""The figures a computed question can state, for one calculator scenario.

Three families of names, one namespace (``quiz validate`` suggests the closest on a typo):

- every figure ``expect`` knows (:data:`quiz.bank.expect.FIGURES`: ``training.total``,
  ``inference.kv_cache``, ``params``, ``compute.prefill_flops``, ...), read from the estimate;
- ``training.model_states``: weights + gradients + master weights + optimizer states per device,
  the items of the ZeRO paper's "model states" (Rajbhandari et al. 2020, sec. 3.1), each counted
  0 where the estimate has none (FP32 training has no master copy);
- the scenario's inputs: ``model.name``, ``model.layers`` ... ``model.vocab``, ``gpu.name``,
  ``gpu.memory`` (bytes), and every key of its ``training:``, ``inference:`` and ``storage:``
  parts (``inference.batch``, ``training.micro_batch``, ``training.optimizer``, ...), with the
  value in force (the default where the scenario does not set it). Where an input has the name
  of an estimate figure (``inference.weights`` is the weights' bytes; ``storage.checkpoints``
  their bytes on disk), the figure keeps the name and the input is written
  ``scenario.inference.weights``; every input can be written ``scenario.<key>``.

A figure is a *size* (an exact ``int`` of bytes), a *count* (an ``int``) or *text*
(:data:`Kind`). Pure: no Textual, no I/O.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from quiz.bank.expect import FIGURES, FigureMissing, read_figure

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec, Report

Kind = Literal["size", "count", "text"]

MODEL_STATES = ("weights", "gradients", "master_weights", "optimizer_states")
"""The training items summed by ``training.model_states``."""

_MODEL_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab")
"""Shape figures of the resolved model (``model.layers`` ...), counts."""

_SIZE_INPUTS = frozenset({"overhead", "storage.dataset_size"})
"""Inputs that are sizes in bytes (every other number is a count)."""


def _input_names() -> dict[str, Kind]:
    """Every scenario input key (dotted) → its kind, from the spec models' fields."""
    from pydantic import BaseModel

    from quiz.footprint import FootprintSpec, InferenceSpec, StorageSpec, TrainingSpec

    names: dict[str, Kind] = {}
    parts: dict[str, type[BaseModel]] = {"training": TrainingSpec, "inference": InferenceSpec,
                                         "storage": StorageSpec}
    for key, info in FootprintSpec.__pydantic_fields__.items():
        if key in parts:
            continue
        names[key] = _kind_of(key, info.annotation)
    for part, model in parts.items():
        for key, info in model.__pydantic_fields__.items():
            dotted = f"{part}.{key}"
            names[dotted] = _kind_of(dotted, info.annotation)
    return names


def _kind_of(key: str, annotation: object) -> Kind:
    text = str(annotation)
    if key in _SIZE_INPUTS:
        return "size"
    if "int" in text and "Literal" not in text:
        return "count"
    return "text"


@lru_cache(maxsize=1)
def scenario_keys() -> dict[str, Kind]:
    """Every key a scenario can set, dotted (``model``, ``params``, ``inference.batch``,
    ``training.optimizer``, ``gpu``, ...) → the kind of its value: what ``vary:`` may name."""
    return _input_names()


@lru_cache(maxsize=1)
def figure_kinds() -> dict[str, Kind]:
    """Every figure name a placeholder may use → its kind (see the module docstring)."""
    kinds: dict[str, Kind] = {name: kind for name, (kind, _) in FIGURES.items()}
    kinds["training.model_states"] = "size"
    kinds["model.name"] = "text"
    kinds.update({f"model.{f}": "count" for f in _MODEL_FIELDS})
    kinds["gpu.name"] = "text"
    kinds["gpu.memory"] = "size"
    for key, kind in scenario_keys().items():
        kinds[f"scenario.{key}"] = kind
        if key not in kinds and key not in ("model", "gpu", "params"):
            kinds[key] = kind
    return kinds


def suggest(name: str) -> str:
    """`` (did you mean 'x'?)`` for the figure name closest to ``name``, or ``""``."""
    close = difflib.get_close_matches(name, list(figure_kinds()), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Figures:
    """The figures of one scenario, computed when first asked for and kept.

    Args:
        spec: a validated scenario.

    :meth:`get` raises :class:`~quiz.bank.expect.FigureMissing` (the message says why and what
    to add) for a figure this scenario does not produce, ``KeyError`` for an unknown name.
    """

    def __init__(self, spec: FootprintSpec) -> None:
        self.spec = spec
        self._report: Report | None = None
        self._found: dict[str, int | str] = {}
        self.rendered: dict[object, object] = {}
        """What was rendered from these figures, by what it was rendered from (texts by
        template, generated options by their plan): questions that share a scenario and a text
        render it once (:mod:`quiz.bank.computed.template`)."""

    @classmethod
    def of(cls, spec: FootprintSpec) -> Figures:
        """The figures of ``spec``, shared by every question (and variant) with an equal
        scenario: a library that repeats a scenario estimates it once.

        Looked up first by the scenario object itself: the bank model gives one object per
        scenario value (:func:`quiz.bank.model._shared_spec`), and hashing a scenario hashes
        every field of its parts (about 4 µs, 10,000 times in a 10,000-question bank)."""
        same = _BY_ID.get(id(spec))
        if same is not None and same[0] is spec:
            return same[1]
        try:
            found = _SHARED.get(spec)
        except TypeError:  # a scenario that cannot be hashed
            return cls(spec)
        if found is None:
            if len(_SHARED) >= _SHARED_KEPT:
                _SHARED.clear()
            found = _SHARED[spec] = cls(spec)
        if len(_BY_ID) >= _SHARED_KEPT:
            _BY_ID.clear()
        _BY_ID[id(spec)] = (spec, found)  # the spec kept alive: its id stays its own
        return found

    def remember(self, source: object, rendered: object) -> None:
        """Keep what was ``rendered`` from ``source`` in :attr:`rendered`, which is emptied
        when it holds :data:`RENDERED_KEPT` (``quiz validate`` checks a library file by file:
        the texts of every file it checked must not stay; at 100,000 varied questions they
        grew its memory by about 35 MB a file)."""
        if len(self.rendered) >= RENDERED_KEPT:
            self.rendered.clear()
        self.rendered[source] = rendered

    @property
    def report(self) -> Report:
        """The calculator's estimate of the scenario (made once)."""
        if self._report is None:
            from quiz.footprint import estimate

            self._report = estimate(self.spec)
        return self._report

    def get(self, name: str) -> int | str:
        """The exact figure ``name``: bytes or a count (``int``), or text."""
        found = self._found.get(name)
        if found is None:
            found = self._found[name] = self._compute(name)
        return found

    def number(self, name: str) -> int:
        """:meth:`get` for a size or count figure. Raises ``TypeError`` for a text figure."""
        value = self.get(name)
        if isinstance(value, str):
            raise TypeError(f"{name} is text, not a number")
        return value

    def item(self, phase: str, name: str) -> int:
        """Bytes of ``phase``'s item ``name`` (per device), 0 where the estimate has none."""
        estimate = self.report.training if phase == "training" else self.report.inference
        found = None if estimate is None else estimate.item(name)
        return 0 if found is None else found.bytes

    def _compute(self, name: str) -> int | str:
        kinds = figure_kinds()
        if name not in kinds:
            raise KeyError(name)
        if name in FIGURES:
            return read_figure(self.report, name)
        reader = _READERS.get(name)
        if reader is not None:
            return reader(self)
        key = name.removeprefix("scenario.")
        part, _, field = key.partition(".")
        value = getattr(getattr(self.spec, part), field) if field else getattr(self.spec, part)
        if value is None:
            raise FigureMissing(f"this scenario does not set {key}")
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int):
            return value
        return str(value)


_SHARED: dict[FootprintSpec, Figures] = {}
"""The figures of each scenario seen, by value (:meth:`Figures.of`)."""

_BY_ID: dict[int, tuple[FootprintSpec, Figures]] = {}
"""The figures of each scenario object seen, by its ``id()``, with the object
(:meth:`Figures.of`)."""


def forget_renderings() -> None:
    """Empty every scenario's :attr:`Figures.rendered` (the estimates stay): ``quiz validate``
    calls it after each file of a library it checks file by file, whose texts will not be
    rendered again (at 100,000 varied questions they were about 10 MB a file)."""
    for figures in _SHARED.values():
        figures.rendered.clear()
    for _, figures in _BY_ID.values():
        figures.rendered.clear()

RENDERED_KEPT = 512
"""Most renderings one scenario's :class:`Figures` keeps (see :meth:`Figures.remember`): a
10,000-question file of 112 scenarios renders about 250 texts per scenario."""

_SHARED_KEPT = 4096
"""Most scenarios kept in :data:`_SHARED` (it is emptied when full)."""


def _model_states(figures: Figures) -> int:
    if figures.report.training is None:
        raise FigureMissing(f"the estimate has no training phase (phase: {figures.spec.phase})")
    return sum(figures.item("training", item) for item in MODEL_STATES)


def _gpu(figures: Figures, what: str) -> int | str:
    gpu = figures.report.gpu
    if gpu is None:
        raise FigureMissing(f"gpu.{what} needs a GPU preset: add 'gpu:' (e.g. h100-80gb)")
    return gpu.name if what == "name" else gpu.memory_bytes


def _shape(field: str) -> Callable[[Figures], int]:
    def read(figures: Figures) -> int:
        value = getattr(figures.spec.resolved, field)
        if value is None:
            raise FigureMissing(f"the model's {field} is not known: use a preset or give "
                                f"'{field}:'")
        return int(value)
    return read


_READERS: dict[str, Callable[[Figures], int | str]] = {
    "training.model_states": _model_states,
    "model.name": lambda f: f.report.model.name,
    "gpu.name": lambda f: _gpu(f, "name"),
    "gpu.memory": lambda f: _gpu(f, "memory"),
    **{f"model.{field}": _shape(field) for field in _MODEL_FIELDS},
}
