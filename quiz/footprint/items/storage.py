"""Storage: the training dataset, training checkpoints, and the inference artefact (bytes on disk).

Dataset
    tokens × bytes per token (the width of a stored token id), or a given size. The default
    width is Megatron-LM's choice for its indexed datasets (``DType.optimal_dtype``): uint16 (2
    bytes) when the vocabulary has fewer than 65,500 entries, int32 (4 bytes) otherwise — and 4
    when the vocabulary is unknown.
Checkpoints
    ``full``: the training state a framework saves to resume — working weights, the FP32 master
    copy (mixed precision) and the optimizer states, for the whole model (gradients are not
    saved); ``weights``: the working weights only. Times the number of checkpoints kept.
Inference artefact
    The served weights in the inference format plus their quantization scales.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.inputs.views import with_values
from quiz.footprint.items.inference import WEIGHT_BITS, weight_bytes
from quiz.footprint.items.item import Item, Omitted, lazy_item, make_item
from quiz.footprint.items.lora import PEFT_SAVE_SRC, adapter_states, trainable_params
from quiz.footprint.items.model_states import (
    _BYTES,
    has_master,
    weight_dtype,
)
from quiz.footprint.items.states import states_of
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel
    from quiz.footprint.inputs.spec import FootprintSpec

MEGATRON_DTYPE_LIMIT = 65500
"""Vocabulary size below which Megatron-LM stores token ids as uint16."""


def default_bytes_per_token(vocab: int | None) -> int:
    """Bytes per stored token id: 2 below :data:`MEGATRON_DTYPE_LIMIT` entries, else 4."""
    return 2 if vocab is not None and vocab < MEGATRON_DTYPE_LIMIT else 4


def storage_items(spec: FootprintSpec, r: ResolvedModel) -> tuple[list[Item], list[Omitted]]:
    """The storage items of ``spec``: dataset (when a size is given), checkpoints (training
    phase), inference artefact (inference phase).

    Returns:
        ``(items, omitted)``.
    """
    st = spec.storage
    items: list[Item] = []
    omitted: list[Omitted] = []
    if st.dataset_size is not None:
        items.append(
            make_item(
                "dataset",
                st.dataset_size,
                f"given: {count_noun(st.dataset_size, 'byte')}",
                "as given",
            )
        )
    elif st.dataset_tokens is not None:
        bpt = st.bytes_per_token
        given = bpt is not None
        if bpt is None:
            bpt = default_bytes_per_token(r.vocab) if r.vocab is not None else 4
        tokens = st.dataset_tokens
        items.append(
            lazy_item(
                "dataset",
                tokens * bpt,
                "Megatron-LM indexed dataset (megatron/core/datasets/indexed_dataset.py, "
                "DType.optimal_dtype)",
                _dataset_text, tokens, bpt, r.vocab, given,
            )
        )
    else:
        omitted.append(
            Omitted("dataset", "no dataset size given (dataset_tokens or dataset_size)", "storage",
                    "no dataset size given", ("storage.dataset_tokens", "storage.dataset_size"))
        )
    phases = spec.phases
    if "training" in phases and st.checkpoints > 0:
        _checkpoint_item(spec, r, items, omitted)
    if "inference" in phases:
        weights, overhead = weight_bytes(spec.inference, r)
        fmt = spec.inference.weights
        scheme = SCHEMES.get(fmt)
        if scheme is not None and scheme.layout is None:
            src = ("the GGUF file holds the tensors and a small header (tokenizer, "
                   "hyperparameters): about a megabyte for a 32k vocabulary")
        else:
            src = "the served checkpoint (e.g. safetensors) holds the weights and their scales"
        items.append(lazy_item("inference_artifact", weights + (overhead or 0), src,
                               _artifact_text, fmt, weights, overhead))
    return items, omitted


def _dataset_text(tokens: int, per: int, vocab: int | None, given: bool) -> str:
    """The dataset item's formula: ``tokens`` × ``per`` bytes a token, and why that many
    (``given``, or the token id type the vocabulary size ``vocab`` needs)."""
    if given:
        why = "as given"
    elif vocab is not None:
        kind, rel = ("uint16", "<") if per == 2 else ("int32", "≥")
        why = f"{kind} token ids, vocabulary {format_count(vocab)} {rel} 65,500"
    else:
        why = "int32 token ids, vocabulary unknown"
    return f"{count_noun(tokens, 'token')} × {count_noun(per, 'byte')} per token ({why})"


def _artifact_text(fmt: str, weights: int, overhead: int | None) -> str:
    """The inference artifact's formula: ``weights`` bytes in the weight format ``fmt`` and
    ``overhead`` bytes of scales and zero points."""
    scheme = SCHEMES.get(fmt)
    extra = ""
    if overhead:
        extra = f" + {count_noun(overhead, 'byte')} of quantization scales and zero points"
    if scheme is None:
        what = f"{fmt.upper()} weights{extra} ({WEIGHT_BITS[fmt]}-bit format"
    elif scheme.layout is None:
        what = f"{scheme.label} tensors{extra} (GGUF file, without its metadata"
    else:
        what = f"{scheme.label} weights{extra} ({WEIGHT_BITS[fmt]}-bit values"
    return f"{count_noun(weights, 'byte')} of {what}, as in the inference phase)"


_WHOLE = {"dp": 1, "tp": 1, "pp": 1, "cp": 1, "ep": 1, "zero": 0}
"""The layout of a checkpoint's whole model: one device, no ZeRO."""


def whole_model(t: TrainingSpec) -> TrainingSpec:
    """``t`` on one device without ZeRO (:data:`_WHOLE`): a checkpoint holds every parameter's
    state once, so its sizes are the per-device quantities of this layout. A read-only view of
    ``t`` (:func:`~quiz.footprint.inputs.views.with_values`), not a pydantic copy (an estimate
    makes one on every keystroke; ``model_copy`` cost about 9 µs of it); kept for the last
    ``t``."""
    entry = _LAST_WHOLE[0]
    if entry[0] is t:
        found: TrainingSpec = entry[1]
        return found
    whole = cast("TrainingSpec", with_values(t, **_WHOLE))
    _LAST_WHOLE[0] = (t, whole)
    return whole


_LAST_WHOLE: list[tuple[object, Any]] = [(object(), None)]
"""``(t, whole_model(t))`` of the last training spec asked about, read and replaced whole."""


def checkpoint_bytes(spec: FootprintSpec, r: ResolvedModel,
                     whole: TrainingSpec | None = None) -> int | None:
    """Bytes of the checkpoints kept: ``checkpoints`` × (working weights, plus for a full
    checkpoint the FP32 master copy and the optimizer states, of the whole model; gradients are
    not saved). ``None`` for a full Adafactor checkpoint without an architecture. ``whole``:
    :func:`whole_model` of the training spec, when the caller has it already (the adapters'
    states are counted in that layout; a full fine-tuning's are the estimate's
    :meth:`~quiz.footprint.items.states.ModelStates.whole`)."""
    st = spec.storage
    if spec.training.finetune != "full":  # the adapters only: the base is the published model
        states = adapter_states(whole or whole_model(spec.training), r, 1)
        one = states.adapter
        if st.checkpoint_kind == "full":
            one += states.master + states.optimizer
        return st.checkpoints * one
    # the whole model's weight_bytes_per_device, master_bytes_per_device and
    # optimizer_bytes_per_device, from the estimate's states of the training spec
    one, master, opt = states_of(spec.training, r).whole()
    if st.checkpoint_kind == "full":
        if opt is None:
            return None
        one += master + opt
    return st.checkpoints * one


def _checkpoint_item(
    spec: FootprintSpec, r: ResolvedModel, items: list[Item], omitted: list[Omitted]
) -> None:
    t, st = spec.training, spec.storage
    n_ckpt = st.checkpoints
    adapters = t.finetune != "full"
    whole = whole_model(t) if adapters else None  # the adapters' layout (checkpoint_bytes)
    total = checkpoint_bytes(spec, r, whole)
    if total is None:
        omitted.append(
            Omitted(
                "checkpoints",
                "a full checkpoint with Adafactor needs the factored state size: give a model "
                "preset or a full architecture (or checkpoint_kind: weights)",
                "storage",
                "a full checkpoint with Adafactor needs the factored state size",
                ("model", "layers", "hidden", "heads", "ffn", "vocab", "storage.checkpoint_kind"),
            )
        )
        return
    kind = st.checkpoint_kind
    if whole is not None:  # adapters
        items.append(lazy_item("checkpoints", total, PEFT_SAVE_SRC, _adapter_checkpoint_text, t,
                               r, whole, n_ckpt, kind))
        return
    if kind == "weights":
        items.append(lazy_item("checkpoints", total,
                               "weights-only export (e.g. safetensors of the model state dict)",
                               _weights_checkpoint_text, t, r, n_ckpt))
        return
    items.append(
        lazy_item(
            "checkpoints",
            total,
            "full training state as saved by DeepSpeed / Megatron-LM to resume: model weights, "
            "FP32 master copy and optimizer states",
            _full_checkpoint_text, t, r, n_ckpt,
        )
    )


def _adapter_checkpoint_text(t: TrainingSpec, r: ResolvedModel, whole: TrainingSpec,
                             n_ckpt: int, kind: str) -> str:
    """The checkpoints item's formula for adapters: ``n_ckpt`` saves of the adapters (and for
    ``kind`` ``"full"`` their master copy and optimizer states, in the layout ``whole``)."""
    wd = weight_dtype(t)
    wb = _BYTES[wd]
    adapters = count_noun(trainable_params(t, r), "adapter param")
    if kind == "weights":
        what = f"{adapters} × {wb} bytes ({wd.upper()} adapters only)"
    else:
        opt = adapter_states(whole, r, 1).optimizer
        per_param = wb + (4 if has_master(t) else 0)
        held = f"{wd.upper()} adapters" + (" + FP32 master" if has_master(t) else "")
        what = (f"{adapters} × {per_param} bytes ({held}) + {count_noun(opt, 'byte')} "
                f"of {t.optimizer} states")
    return (f"{count_noun(n_ckpt, 'checkpoint')} × ({what}); the frozen base is not saved (it "
            "is the published model)")


def _weights_checkpoint_text(t: TrainingSpec, r: ResolvedModel, n_ckpt: int) -> str:
    """The checkpoints item's formula for a weights-only save: ``n_ckpt`` × every weight."""
    wd = weight_dtype(t)
    return (f"{count_noun(n_ckpt, 'checkpoint')} × {count_noun(r.params, 'param')} × "
            f"{_BYTES[wd]} bytes ({wd.upper()} weights only)")


def _full_checkpoint_text(t: TrainingSpec, r: ResolvedModel, n_ckpt: int) -> str:
    """The checkpoints item's formula for a full save: ``n_ckpt`` × (the weights, the master
    copy and the optimizer states of the whole model)."""
    wd = weight_dtype(t)
    opt = states_of(t, r).whole()[2] or 0  # the whole model's optimizer_bytes_per_device
    per_param = _BYTES[wd] + (4 if has_master(t) else 0)
    what = f"{wd.upper()} weights" + (" + FP32 master" if has_master(t) else "")
    return (f"{count_noun(n_ckpt, 'checkpoint')} × ({count_noun(r.params, 'param')} × "
            f"{per_param} bytes ({what}) + {count_noun(opt, 'byte')} of {t.optimizer} states); "
            "gradients are not saved")
