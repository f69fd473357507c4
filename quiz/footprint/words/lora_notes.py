"""What ``--explain`` and the fit say about an adapter fine-tuning
(:mod:`quiz.footprint.items.lora`):
the notes compare with what PEFT, bitsandbytes and the QLoRA code do; the fit advice names the
recomputation mode that would make a run fit. Above :mod:`quiz.footprint.items.model_states` (they
compare
with its full-fine-tuning activations), so :mod:`quiz.footprint.items.lora` stays below it."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

from quiz.footprint.inputs.lora_targets import target_matrices
from quiz.footprint.inputs.units import count_noun, format_bytes, format_count
from quiz.footprint.items.activations import extra_activation_bytes
from quiz.footprint.items.lora import (
    Nf4Base,
    _arch,
    adapter_optimizer_bytes,
    qlora_base,
    trainable_params,
)
from quiz.footprint.items.model_states import activation_bytes
from quiz.footprint.items.regime import _BYTES, grad_dtype, has_master, weight_dtype

if TYPE_CHECKING:
    from quiz.footprint.engine.report import Report
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel


def explain_notes(report: Report, b: Callable[[int], str]) -> list[str]:
    """``--explain`` notes of an adapter fine-tuning (empty for full fine-tuning): alpha, the
    adapters' dtype in PEFT, the layers QLoRA keeps 16-bit, double quantization, paged
    optimizers, gradient checkpointing, and what the activation count assumes. ``b`` prints a
    byte count in the report's units."""

    spec = report.spec
    t, r = spec.training, spec.resolved
    if report.training is None or t.finetune == "full":
        return []
    arch = _arch(r)
    n = trainable_params(t, r)
    notes = [
        f"LoRA alpha{'' if t.lora_alpha is None else ' ' + format_count(t.lora_alpha)} scales "
        "the adapters' update by alpha/r (Hu et al. 2021, sec. 4.1); it changes no byte: this "
        "estimate is the same for every alpha. The rank r and the targets set the memory."
    ]
    if has_master(t):
        ours = _BYTES[weight_dtype(t)] + _BYTES[grad_dtype(t)] + 4
        peft = 4 + 4
        opt = adapter_optimizer_bytes(t, r)
        notes.append(
            f"Adapter precision: this estimate counts the adapters like a mixed-precision "
            f"model, {ours} bytes per adapter parameter (16-bit working copy, "
            f"{grad_dtype(t).upper()} gradients, FP32 master) + the optimizer states = "
            f"{b(ours * n + opt)} unsharded. PEFT keeps the adapters themselves in FP32 "
            "(get_peft_model with autocast_adapter_dtype=True) and trains them under autocast: "
            f"{peft} bytes (FP32 weights and gradients, no separate master copy) + the same "
            f"states = {b(peft * n + opt)}.")
    if t.finetune == "qlora":
        base = qlora_base(arch, t.double_quant)
        other = qlora_base(arch, not t.double_quant)
        kept, wb = base.kept, _BYTES[weight_dtype(t)]
        with_dq, without = (base, other) if t.double_quant else (other, base)

        def bits(x: Nf4Base) -> float:
            return float(Fraction(8 * (x.weights + x.constants), x.values))

        notes.append(
            "QLoRA's 4-bit base: bitsandbytes (through transformers' BitsAndBytesConfig "
            "load_in_4bit) replaces every linear layer of the blocks by Linear4bit — "
            f"{count_noun(base.values, 'weight')} here — and keeps the embeddings, the LM "
            "head and the norms in the load dtype: "
            f"{count_noun(kept, 'param')} × {wb} bytes = {b(kept * wb)}. PEFT's "
            "prepare_model_for_kbit_training casts those to FP32 "
            f"({b(kept * 4)}, {b(kept * (4 - wb))} more); the QLoRA authors' qlora.py casts "
            "the embeddings and LM head back to BF16 and keeps the norms in FP32.")
        notes.append(
            "NF4 quantization constants (block absmax and code tables): with double "
            f"quantization {b(with_dq.constants)} "
            f"({bits(with_dq):.3f} bits per quantized weight in all; the paper's 8/64 + "
            f"32/(64·256) = 0.127 bits of constants), without it {b(without.constants)} "
            f"({bits(without):.3f} bits per weight: one FP32 absmax per block of 64, "
            "32/64 = 0.5 bits). The paper's QLoRA uses double quantization (the default here, "
            "--no-double-quant turns it off); transformers' BitsAndBytesConfig defaults to "
            "bnb_4bit_use_double_quant=False.")
        big = max(m.d_in * m.d_out for m in target_matrices(arch).values())
        notes.append(
            "Not counted: QLoRA's paged optimizers (sec. 3) move optimizer states to CPU "
            "memory only when the GPU runs out, so the states are counted on the GPU here; and "
            "the 16-bit copy of one weight matrix that bitsandbytes dequantizes for each 4-bit "
            f"matrix product, a transient buffer (the largest here: {count_noun(big, 'value')} "
            f"× 2 bytes = {b(2 * big)}).")
    act = report.training.item("activations")
    if act is not None:
        full_t = t.model_copy(update={"finetune": "full"})
        extra = extra_activation_bytes(t, r)
        ours = act.bytes + extra
        full = (activation_bytes(full_t, r) or 0) + extra_activation_bytes(full_t, r)
        recompute = (activation_bytes(t, r, "full") or 0) + extra
        text = (
            f"Activations with adapters: {b(ours)} here (the layers, embedding, output layer "
            f"and logits) against {b(full)} for full fine-tuning of the same batch. A frozen "
            "projection keeps its input only when it has an adapter (A reads it); the frozen "
            "LM head and embedding keep none; the rest of each layer is kept to carry the "
            "gradient down to the adapters below. With LoRA dropout > 0 (PEFT's default is 0) "
            "each adapter also keeps a dropped copy of its input and the mask, not counted "
            "here.")
        if t.finetune == "qlora" and t.recompute != "full":
            text += (
                " PEFT's prepare_model_for_kbit_training turns on gradient checkpointing by "
                "default (use_gradient_checkpointing=True), as the QLoRA paper's runs do: "
                f"--recompute full gives {b(recompute)}.")
        notes.append(text)
    return notes


def fit_advice(t: TrainingSpec, r: ResolvedModel, memory: int, units: str = "GB") -> str:
    """When an adapter fine-tuning does not fit in ``memory`` bytes per device at any
    data-parallel size: the recomputation modes that would make it fit, with their totals in
    ``units`` (``"GB"`` or ``"GiB"``, the report's; activations are most of an adapter
    fine-tuning's memory); empty when none would."""

    from quiz.footprint.items.model_states import state_bytes_by_item
    from quiz.footprint.items.offload import gpu_state_bytes

    states = gpu_state_bytes(t, r, t.dp, lambda n: state_bytes_by_item(t, r, n)) or 0
    fits = []
    for mode in ("selective", "full"):
        if mode == t.recompute:
            continue
        total = states + (activation_bytes(t, r, mode) or 0) + extra_activation_bytes(t, r)
        if total <= memory:
            fits.append(f"--recompute {mode} gives {format_bytes(total, units)} per device")
    if not fits:
        return ""
    return ("the adapters' states are small, the activations are not: " + " and ".join(fits)
            + " (PEFT turns on full recomputation for QLoRA by default)")
