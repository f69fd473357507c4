"""The result of an estimate: items with their derivation, per phase, and the JSON contract.

Every size is an exact ``int`` of bytes. :meth:`Report.to_json` produces this contract (keys and
types are tested in ``tests/footprint/test_footprint_json.py``)::

    {"model": {"name": str, "preset": str | null, "params": int, "active_params": int,
               "trainable_params": int | null},
     "training": {"per_device": {"total_bytes": int, "items": [ITEM, ...]},
                  "devices": int,
                  "offloaded": {"cpu": {"total_bytes": int, "items": [ITEM, ...]},
                                "nvme": {"total_bytes": int, "items": [ITEM, ...]}},
                  "gpus_needed": int | null, "headroom_bytes": int | null,
                  "convention": str, "usable_bytes": int | null, "complete": bool,
                  "not_estimated": [str, ...], "assumptions": {"convention": str,
                  "attention": str, "recompute": str, "recipe": str | null,
                  "logits_bytes": int, "usable": str | null},
                  "load_cpu": LOAD, "pipeline_stages": [int, ...] | null} | null,
     "inference": {"per_device": {"total_bytes": int, "items": [ITEM, ...]},
                   "offloaded": {"cpu": {...}, "nvme": {...}} (as training's),
                   "gpus_needed": int | null, "headroom_bytes": int | null,
                   "convention": str, "quantization": QUANT | null, "usable_bytes": int | null,
                   "complete": bool, "not_estimated": [str, ...],
                   "max_batch": int | null, "max_context": int | null,
                   "assumptions": {"kv_block": int, "usable": str | null},
                   "kv": {"dtype": str, "bits_per_value": float,
                          "bytes_per_token": int | null, "shared_prefix_tokens": int,
                          "tensor_parallel": int, "kv_heads_per_gpu": int | null,
                          "kv_copies": int | null, "draft_model": str | null}} | null,
     "storage": {"items": [ITEM, ...], "total_bytes": int},
     "omitted": [{"phase": str, "item": str, "reason": str}, ...],
     "gpu": {"id": str, "name": str, "memory_bytes": int} | null,
     "compute": {"items": [QUANTITY, ...]},
     "warnings": [str, ...],
     "unused": [{"key": str, "reason": str}, ...]}

    ITEM = {"name": str, "bytes": int, "formula": str, "source": str}
    LOAD = {"zero_init": bool, "bytes_per_param": int, "params_per_process": int,
            "per_process_bytes": int, "gpus_per_node": int, "nodes": int,
            "per_node_bytes": int, "formula": str, "source": str}
    QUANTITY = {"name": str, "value": int, "unit": str, "formula": str, "source": str}
    QUANT = {"scheme": str, "label": str, "exact": bool, "quantized_params": int,
             "kept_params": int, "kept_bits": int, "bits_per_weight": float,
             "formats": [{"format": str, "params": int, "bytes": int}, ...], "source": str}

``quantization`` (issue 12 §2) describes a named weight quantization scheme (``--weights
gguf-q4_k_m``, ``bnb-nf4``, …): each storage format of its matrices with their weights and
bytes, and what it keeps unquantized (``kept_params`` at ``kept_bits``); ``null`` for the plain
formats fp32 … int4.

``per_device`` is GPU memory. ``offloaded`` (issue 12 §3) holds what ``--offload`` and
``--offload-params`` move off the GPU: CPU RAM and NVMe bytes per device (per data-parallel
process), each with items; empty, total 0, without offload. In inference (issue 21 §6) it holds
what llama.cpp's ``--gpu-layers`` leaves in CPU RAM (weights, block scales, KV cache).

``load_cpu`` (issue 21 §6) is the CPU RAM while the model loads for training, with or without
DeepSpeed's ``zero.Init`` (:mod:`quiz.footprint.items.load_ram`): per process and per node.

``compute`` (issue 12 §5) holds the FLOPs, the training time (seconds), the decode throughput
upper bound (tokens per second) and the decode crossover batch of
:mod:`quiz.footprint.compute.figures`; ``unit`` is ``"FLOPs"``, ``"s"``, ``"tokens/s"`` or
``"sequences"``; the list is empty when nothing could be computed (see ``omitted``, phase
``"compute"``).

``warnings`` (issue 21 §7) are the report's warning lines, as the text report prints them after
"Warning:" (a context longer than the model was trained for, a figure beyond physical sense);
``unused`` lists the settings given that do nothing in this case (spec key and why).

``kv`` (issue 21 §5) states how the KV cache is stored: its format and bits per value with the
scales, bytes per token of one sequence, the prefix tokens stored once, and the tensor-parallel
size whose KV head replication the ``kv_cache`` and ``draft_kv_cache`` items include. A draft
model's rows are the items ``draft_weights`` and ``draft_kv_cache``.

``quiz footprint --json --explain`` adds one more key, ``"explain": [str, ...]``: the CLI
attaches the notes of :func:`quiz.footprint.words.explain.explain_notes` (this module does not
import
the calculator, so there is no import cycle); without it the keys are exactly those above.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVarTuple, overload

from quiz.footprint.items.frozen import fast_init
from quiz.footprint.items.item import Item, Omitted

_set = object.__setattr__
"""Sets a slot of an immutable object (bound once)."""

Ts = TypeVarTuple("Ts")

Later = tuple[Callable[..., str], *tuple[Any, ...]]
"""A text written when first read, as ``(writer, *args)``: ``writer(*args)``. Cheaper to make
than a closure (a tuple, no function object and cells), for a text an estimate may never show.
"""


def _written(text: Later | Callable[[], str]) -> str:
    """The text of a :data:`Later` or of a function that writes it."""
    if isinstance(text, tuple):
        writer, *args = text
        return writer(*args)
    return text()

if TYPE_CHECKING:
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.spec import FootprintSpec

ITEM_NAMES = (
    "weights",
    "quantization_overhead",
    "fp8_weights",
    "gathered_layer",
    "adapter_weights",
    "gradients",
    "fp32_gradients",
    "master_weights",
    "optimizer_states",
    "load_fp32_copy",
    "estimator_margin",
    "activations",
    "embedding_activations",
    "output_activations",
    "logits",
    "kv_cache",
    "draft_weights",
    "draft_kv_cache",
    "ssm_state",
    "framework_overhead",
    "dataset",
    "checkpoints",
    "inference_artifact",
)
"""Every item name an estimate can contain, in display order."""

_PHASE_ITEMS = {
    "training": ("weights", "quantization_overhead", "adapter_weights", "gradients",
                 "master_weights", "optimizer_states", "activations", "embedding_activations",
                 "output_activations", "logits", "framework_overhead"),
    "inference": ("weights", "quantization_overhead", "kv_cache", "activations", "logits",
                  "framework_overhead", "draft_weights", "draft_kv_cache"),
    "storage": ("dataset", "checkpoints", "inference_artifact"),
}

FIGURE_NAMES: tuple[str, ...] = (
    "params",
    "active_params",
    "trainable_params",
    "training.total",
    *(f"training.{i}" for i in _PHASE_ITEMS["training"]),
    "training.devices",
    "training.gpus_needed",
    "training.headroom",
    "training.usable",
    "training.cpu_total",
    "training.nvme_total",
    "inference.total",
    *(f"inference.{i}" for i in _PHASE_ITEMS["inference"]),
    "inference.gpus_needed",
    "inference.headroom",
    "inference.usable",
    "inference.cpu_total",
    "inference.max_batch",
    "inference.max_context",
    "storage.total",
    *(f"storage.{i}" for i in _PHASE_ITEMS["storage"]),
    "compute.training_flops",
    "compute.training_hardware_flops",
    "compute.training_time",
    "compute.prefill_flops",
    "compute.decode_tokens_per_s",
    "compute.decode_crossover_batch",
)
"""Every name :meth:`Report.figure` accepts, in display order.

``params``, ``active_params``: parameter counts. ``training.total``: bytes per device of the
described layout (dp × tp × pp); ``training.<item>``: that item's bytes per device;
``training.devices``: devices in the layout. ``inference.total`` and ``inference.<item>``: bytes
of one model replica. ``<phase>.gpus_needed``: the fewest GPUs of the ``gpu`` preset (a count);
``<phase>.headroom``: bytes left (negative: short). ``storage.total`` and ``storage.<item>``:
bytes on disk. ``compute.<name>``: a compute figure in its unit (FLOPs, seconds, tokens per
second, sequences; see :data:`quiz.footprint.compute.figures.UNITS`)."""


class Notes(Sequence[str]):
    """The conventions notes of a report, written when first read (rendering reads them; the
    fewest-GPU search, a bank's figure check and the JSON do not)."""

    __slots__ = ("_args", "_build", "_notes")

    def __init__(self, build: Callable[[*Ts], list[str]], *args: *Ts) -> None:
        self._build: Callable[..., list[str]] = build
        self._args: tuple[Any, ...] = args
        self._notes: list[str] | None = None

    def _all(self) -> list[str]:
        if self._notes is None:
            self._notes = self._build(*self._args)
        return self._notes

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __eq__(self, other: object) -> bool:
        return list(self) == (list(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())


class Unused(NamedTuple):
    """A setting that was given but does nothing in this case: its spec ``key``
    (``"inference.group_size"``) and why (a sentence that names no flag or key, so each front
    end can name the setting its own way)."""

    key: str
    reason: str


@fast_init
@dataclass(frozen=True, slots=True)
class PhaseEstimate:
    """Memory of one phase (``"training"`` or ``"inference"``) on one device.

    Attributes:
        items: the items, in display order; their ``bytes`` sum to ``total_bytes``.
        total_bytes: bytes per device.
        devices: devices in the described layout (training: dp × tp × pp; inference: 1 replica).
        gpus_needed: with a GPU preset, the fewest GPUs of that kind that hold the job (training:
            keeping tp, pp, ZeRO stage and micro-batch, varying dp; inference: the footprint
            split evenly); ``None`` without a GPU or when no number of GPUs is enough.
        headroom: with a GPU preset, bytes left (negative: missing) — training: on each device
            of the described layout; inference: over ``gpus_needed`` GPUs together.
        convention: how this estimate counts (bytes per parameter, formulas, units).
        setup: one line describing the scenario (layout, precision, batch).
        fit_advice: with a GPU preset, what ``gpus_needed`` keeps fixed, or what to change when
            no number of GPUs is enough (empty without a GPU preset); given as
            ``fit_advice_text``, text, or a :data:`Later` or a function that writes it when
            first read (so are ``convention_text`` and ``setup_text``).
        host: training only: the offloaded items per device by location, ``{"cpu": [...],
            "nvme": [...]}`` (:mod:`quiz.footprint.items.offload`); empty lists without offload. Not
            part of ``items`` or ``total_bytes``, which are GPU memory.
        usable_bytes: with a GPU, the bytes of each GPU the phase may use (the usable
            fraction: ``--gpu-util``, vLLM's 0.9 for serving, a 1 GiB reserve for training;
            :func:`quiz.footprint.engine.fit.usable_memory`); ``headroom`` is counted against it.
        not_estimated: the memory items of this phase that could not be estimated (their
            reasons are in the report's ``omitted``), e.g. ``("activations",)`` without an
            architecture; the totals and the fit leave them out.
        kv_tp: inference: the tensor-parallel size whose KV head replication the KV items
            include (1: no replication; :mod:`quiz.footprint.engine.serving_fit`).
        quantization: inference with a named quantization scheme: its JSON object
            (:func:`quiz.footprint.quant.schemes.plan_json`), or a function that builds it when the
            JSON is written; ``None`` otherwise.
    """

    phase: str
    items: list[Item]
    total_bytes: int
    devices: int
    gpus_needed: int | None
    headroom: int | None
    convention_text: str | Later | Callable[[], str]
    setup_text: str | Later | Callable[[], str]
    fit_advice_text: str | Later | Callable[[], str] = ""
    host: dict[str, list[Item]] = field(default_factory=dict)
    quantization: dict[str, Any] | Callable[[], dict[str, Any]] | None = None
    not_estimated: tuple[str, ...] = ()
    usable_bytes: int | None = None
    capacity_of: tuple[int | None, int | None] | Callable[
        [PhaseEstimate], tuple[int | None, int | None]] = (None, None)
    kv_tp: int = 1

    @property
    def capacity(self) -> tuple[int | None, int | None]:
        """Inference: ``(max_batch, max_context)`` on the ``gpus_needed`` GPUs
        (:func:`quiz.footprint.engine.capacity.capacity`; worked out when first read, by
        ``capacity_of`` given this phase: a function that kept the phase itself would make a
        reference cycle, which only the garbage collector frees, so every estimate's items
        would outlive it); ``(None, None)`` for training, without a GPU or with an incomplete
        estimate."""
        found = self.capacity_of
        if callable(found):
            found = found(self)
            _set(self, "capacity_of", found)
        return found

    @property
    def complete(self) -> bool:
        """Whether every memory item of the phase was estimated (``not_estimated`` empty): when
        not, ``total_bytes``, ``headroom`` and ``gpus_needed`` count only what was (a lower
        bound), and every front end says so."""
        return not self.not_estimated

    @property
    def convention(self) -> str:
        """How this estimate counts (given as text, or as a function that writes it when first
        read)."""
        text = self.convention_text
        if not isinstance(text, str):
            text = _written(text)
            _set(self, "convention_text", text)
        return text

    @property
    def fit_advice(self) -> str:
        """What ``gpus_needed`` keeps fixed, or what to change (given as text, or as a function,
        like ``convention``)."""
        text = self.fit_advice_text
        if not isinstance(text, str):
            text = _written(text)
            _set(self, "fit_advice_text", text)
        return text

    @property
    def setup(self) -> str:
        """The scenario in one line (given as text, or as a function, like ``convention``)."""
        text = self.setup_text
        if not isinstance(text, str):
            text = _written(text)
            _set(self, "setup_text", text)
        return text

    def item(self, name: str) -> Item | None:
        """The item called ``name``, or ``None``."""
        return next((i for i in self.items if i.name == name), None)

    def host_total(self, location: str) -> int:
        """Bytes per device in ``location`` (``"cpu"`` or ``"nvme"``); 0 when nothing is there."""
        return sum(i.bytes for i in self.host.get(location, ()))

    def to_json(self) -> dict[str, Any]:
        """The phase part of the JSON contract."""
        data: dict[str, Any] = {
            "per_device": {
                "total_bytes": self.total_bytes,
                "items": [i.to_json() for i in self.items],
            }
        }
        if self.phase == "training":
            data["devices"] = self.devices
        if self.phase == "training" or self.host:
            data["offloaded"] = {
                where: {"total_bytes": self.host_total(where),
                        "items": [i.to_json() for i in self.host.get(where, ())]}
                for where in ("cpu", "nvme")
            }
        data["gpus_needed"] = self.gpus_needed
        data["headroom_bytes"] = self.headroom
        data["usable_bytes"] = self.usable_bytes
        data["complete"] = self.complete
        if self.phase == "inference":
            most, longest = self.capacity
            data["max_batch"] = most
            data["max_context"] = longest
        data["not_estimated"] = list(self.not_estimated)
        data["convention"] = self.convention
        if self.phase == "inference":
            plan = self.quantization
            data["quantization"] = plan() if callable(plan) else plan
        return data


@fast_init
@dataclass(frozen=True, slots=True)
class StorageEstimate:
    """Bytes on disk: dataset, checkpoints, the inference artefact; items sum to the total."""

    items: list[Item]
    total_bytes: int

    def item(self, name: str) -> Item | None:
        """The item called ``name``, or ``None``."""
        return next((i for i in self.items if i.name == name), None)

    def to_json(self) -> dict[str, Any]:
        """``{"items": [...], "total_bytes": int}``."""
        return {"items": [i.to_json() for i in self.items], "total_bytes": self.total_bytes}


@fast_init
@dataclass(frozen=True, slots=True)
class ModelSummary:
    """The model estimated: display name, preset id, total and active parameter counts, and how
    the count was obtained (``note``)."""

    name: str
    preset: str | None
    params: int
    active_params: int
    note: str


@fast_init
@dataclass(frozen=True, slots=True)
class Report:
    """A complete estimate (see :func:`quiz.footprint.engine.estimate.estimate`)."""

    model: ModelSummary
    training: PhaseEstimate | None
    inference: PhaseEstimate | None
    storage: StorageEstimate | None
    omitted: list[Omitted]
    conventions: Sequence[str]
    gpu: GpuPreset | None
    units: str
    spec: FootprintSpec = field(repr=False, compare=False)
    compute: list[Item] = field(default_factory=list)
    """FLOPs, time and throughput (:func:`quiz.footprint.compute.figures.compute_items`)."""
    unused: list[Unused] = field(default_factory=list)
    """Settings given that do nothing in this case (see
    :func:`quiz.footprint.engine.estimate.unused`)."""
    warnings: list[str] = field(default_factory=list)
    """Warning lines: a sequence longer than the model was trained for, figures beyond physical
    sense (see :func:`quiz.footprint.engine.estimate.implausible`)."""

    @property
    def phases(self) -> list[PhaseEstimate]:
        """The memory phases present, training first."""
        phases = []  # not a comprehension: that is a function made and called each time
        if self.training is not None:
            phases.append(self.training)
        if self.inference is not None:
            phases.append(self.inference)
        return phases

    def figure(self, name: str) -> int | None:
        """One named figure of this estimate, exactly as every view shows it: the stable way to
        read a number (a bank's expected value, a test, a script).

        Args:
            name: one of :data:`FIGURE_NAMES`, e.g. ``"training.total"`` (bytes per device),
                ``"inference.kv_cache"`` (bytes), ``"training.gpus_needed"`` (a count),
                ``"params"`` (a count).

        Returns:
            The exact ``int`` (bytes, or a count for ``params``, ``active_params``,
            ``*.devices`` and ``*.gpus_needed``); ``None`` when the estimate has no such figure:
            the phase was not estimated, the item could not be computed (see :attr:`omitted`),
            or there is no GPU preset (``gpus_needed``, ``headroom``), or no number of GPUs is
            enough (``gpus_needed``).

        Raises:
            KeyError: ``name`` is not in :data:`FIGURE_NAMES` (the message suggests the closest
                name).

        Example: for ``{"model": "llama-2-7b"}``, ``figure("inference.weights")`` is
        13,476,831,232 and ``figure("training.total")`` is the training total per device.
        """
        if name not in FIGURE_NAMES:
            import difflib

            close = difflib.get_close_matches(name, FIGURE_NAMES, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise KeyError(f"unknown figure {name!r}{hint}")
        if name == "params":
            return self.model.params
        if name == "active_params":
            return self.model.active_params
        if name == "trainable_params":
            return self.trainable_params
        section, _, what = name.partition(".")
        if section == "compute":
            return next((q.value for q in self.compute if q.name == what), None)
        if section == "storage":
            if self.storage is None:
                return None
            if what == "total":
                return self.storage.total_bytes if self.storage.items else None
            found = self.storage.item(what)
            return None if found is None else found.bytes
        phase = self.training if section == "training" else self.inference
        if phase is None:
            return None
        if what == "total":
            return phase.total_bytes
        if what == "devices":
            return phase.devices
        if what == "gpus_needed":
            return phase.gpus_needed
        if what == "headroom":
            return phase.headroom
        if what == "usable":
            return phase.usable_bytes
        if what == "max_batch":
            return phase.capacity[0]
        if what == "max_context":
            return phase.capacity[1]
        if what in ("cpu_total", "nvme_total"):
            return phase.host_total(what[:-6])
        found = phase.item(what)
        return None if found is None else found.bytes

    @property
    def trainable_params(self) -> int | None:
        """The parameters training updates, as PEFT's ``print_trainable_parameters`` counts
        them: every parameter in full fine-tuning, the adapters' with LoRA/QLoRA; ``None``
        when training is not estimated."""
        if self.training is None:
            return None
        t = self.spec.training
        if t.finetune == "full":
            return self.model.params
        from quiz.footprint.items.lora import trainable_params

        return trainable_params(t, self.spec.resolved)

    def assumptions(self, phase: str) -> dict[str, Any]:
        """What ``phase`` assumed, as fields (the JSON's ``assumptions``): the convention,
        attention kernel, recomputation and recipe for training; the KV block for serving;
        the usable share of GPU memory for both."""
        from quiz.footprint.engine.fit import usable_text

        spec = self.spec
        out: dict[str, Any] = {}
        if phase == "training":
            t = spec.training
            from quiz.footprint.items.activations import logit_value_bytes

            out.update(convention=t.convention, attention=t.attention_kernel,
                       recompute=t.recompute,
                       recipe="peft-qlora (gradient checkpointing)" if t.recipe_recompute
                       else None, logits_bytes=logit_value_bytes(t))
        else:
            out["kv_block"] = spec.inference.kv_block
        gpu = self.gpu
        out["usable"] = None if gpu is None else usable_text(
            gpu.memory_bytes, phase, spec.gpu_util, gpu.unified)
        return out

    def _kv_json(self, phase: PhaseEstimate) -> dict[str, Any]:
        from quiz.footprint.items.kv_layout import kv_json

        return kv_json(self.spec.inference, self.spec.resolved, phase.kv_tp)

    def _formats_json(self) -> dict[str, Any]:
        """The training keys of issue 21 §6: ``load_cpu``
        (:meth:`quiz.footprint.items.load_ram.LoadRam.to_json`) and ``pipeline_stages``, the
        layers of each pipeline stage (``null`` without pipeline parallelism or a layer
        count)."""
        from quiz.footprint.items.load_ram import load_ram
        from quiz.footprint.items.pipeline import stage_layers

        t, r = self.spec.training, self.spec.resolved
        stages = stage_layers(r.layers, t.pp) if r.layers and t.pp > 1 else None
        return {"load_cpu": load_ram(t, r).to_json(), "pipeline_stages": stages}

    def to_json(self) -> dict[str, Any]:
        """The JSON contract (see the module docstring); every size in bytes."""
        data: dict[str, Any] = {
            "model": {
                "name": self.model.name,
                "preset": self.model.preset,
                "params": self.model.params,
                "active_params": self.model.active_params,
                "trainable_params": self.trainable_params,
            },
            "training": None if self.training is None else {
                **self.training.to_json(), "assumptions": self.assumptions("training"),
                **self._formats_json()},
            "inference": None if self.inference is None else {
                **self.inference.to_json(), "assumptions": self.assumptions("inference"),
                "kv": self._kv_json(self.inference)},
            "storage": (
                {"items": [], "total_bytes": 0} if self.storage is None else self.storage.to_json()
            ),
            "omitted": [
                {"phase": o.phase, "item": o.item, "reason": o.reason} for o in self.omitted
            ],
            "gpu": None
            if self.gpu is None
            else {
                "id": self.gpu.id,
                "name": self.gpu.name,
                "memory_bytes": self.gpu.memory_bytes,
            },
            "compute": {"items": [q.to_json() for q in self.compute]},
            "warnings": list(self.warnings),
            "unused": [{"key": u.key, "reason": u.reason} for u in self.unused],
        }
        return data
