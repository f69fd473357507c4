"""The catalog of misconceptions that generate distractors (``misconceptions:`` in a bank).

Each :class:`Misconception` is a mistake students make when sizing memory, as arithmetic on the
calculator's figures of the question's own scenario: ``forget-optimizer-states`` computes the
answer figure without the optimizer states. It names the answer figures it applies to, its
review text (what the student forgot or confused, and the right rule) and a source. Where the
right rule depends on the scenario, the review is written for it
(:meth:`Misconception.review_text`): ``forget-optimizer-states`` names the scenario's optimizer
and what it keeps, ``fp32-everything`` speaks of training or of serving, whichever the figure is
about. A question may give its own wording instead (``misconception_reviews:``,
:mod:`quiz.bank.computed.template`). Where a misconception does not arise in a scenario (no ZeRO
sharding to forget, no grouped-query attention, no optimizer state), it gives no value and the
next misconception in the question's list is used. The catalog is documented for instructors in
``question_bank/FORMAT.md`` (Computed questions), generated from :data:`CATALOG`
(:func:`catalog_table`).

Sizes are exact bytes; every value is an ``int``. Pure: no Textual, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quiz.bank.computed.placeholders import SIZE_UNITS, Format

if TYPE_CHECKING:
    from quiz.bank.computed.figures import Figures
    from quiz.footprint.inputs.parts import InferenceSpec

MODEL_STATES = "training.model_states"
TRAIN_TOTAL = "training.total"
INFER_TOTAL = "inference.total"
KV = "inference.kv_cache"
INFER_WEIGHTS = "inference.weights"

_TRAINING_SUMS = (MODEL_STATES, TRAIN_TOTAL)
_SIZES = ("*size*",)
"""Marks a misconception that applies to every size figure."""

_ADAM = ("adam", "adamw")
_ACTIVATION_ITEMS = ("activations", "embedding_activations", "output_activations", "logits")
_INT4 = ("int4", "gptq-int4", "gptq-int4-sym", "awq-int4", "bnb-nf4", "bnb-nf4-dq", "bnb-fp4",
         "bnb-fp4-dq", "gguf-q4_k_m", "gguf-iq4_xs", "gguf-q4_0")


@dataclass(frozen=True)
class Misconception:
    """One named misconception.

    Attributes:
        name: its slug in a bank (``forget-optimizer-states``).
        figures: the answer figures it applies to (``("*size*",)``: every size figure).
        arithmetic: the distractor's value in words, for FORMAT.md.
        review: the distractor review, with ``{value}`` (the distractor as shown), ``{key}`` (the
            answer as shown) and ``{part}`` (the amount it differs by, in the answer's unit).
        source: where the right rule comes from.
        compute: ``(figures, answer format) -> exact value``, or ``None`` where the mistake does
            not arise in this scenario.
        written_for: ``(figures, answer format) -> review``, the review written for the
            scenario (with the same ``{value}``, ``{key}`` and ``{part}``), where the right rule
            depends on it; ``None``: ``review`` reads right for every scenario it arises in.
    """

    name: str
    figures: tuple[str, ...]
    arithmetic: str
    review: str
    source: str
    compute: Callable[[Figures, Format], int | None]
    written_for: Callable[[Figures, Format], str] | None = None

    def review_text(self, figures: Figures, fmt: Format) -> str:
        """The review for the scenario of ``figures`` and the answer figure ``fmt``, with
        ``{value}``, ``{key}`` and ``{part}`` still to fill (:meth:`str.format`)."""
        return self.review if self.written_for is None else self.written_for(figures, fmt)

    def applies_to(self, fmt: Format) -> bool:
        """True when this misconception can be made about the figure ``fmt`` writes (and, for
        the unit mix-ups, in the unit it is written in)."""
        if self.figures == _SIZES:
            if fmt.kind != "size":
                return False
            iec = "i" in fmt.unit
            return fmt.unit != "B" and (iec if self.name == "gb-labelled-gib" else not iec)
        return fmt.name in self.figures


def _minus(item: str) -> Callable[[Figures, Format], int | None]:
    def compute(figures: Figures, fmt: Format) -> int | None:
        part = figures.item("training", item)
        return figures.number(fmt.name) - part if part else None
    return compute


def _adam_one_moment(figures: Figures, fmt: Format) -> int | None:
    states = figures.item("training", "optimizer_states")
    if figures.spec.training.optimizer not in _ADAM or not states:
        return None
    if fmt.name == "training.optimizer_states":
        return states // 2
    return figures.number(fmt.name) - states // 2


def _fp32_everything(figures: Figures, fmt: Format) -> int | None:
    if fmt.name.startswith("training."):
        training = figures.spec.training
        if training.precision not in ("mixed-fp16", "mixed-bf16") \
                or training.grad_precision == "fp32":
            return None
        return (figures.number(fmt.name) + figures.item("training", "weights")
                + figures.item("training", "gradients"))
    inference = figures.spec.inference
    if inference.weights == "fp32":
        return None
    return _re_estimated(figures, fmt, {"inference": {"weights": "fp32", "kv_dtype": "fp32",
                                                      "group_size": None}})


def _re_estimated(figures: Figures, fmt: Format, changes: dict[str, object]) -> int | None:
    """The same figure for the scenario with ``changes``, or ``None`` if that is invalid."""
    from pydantic import ValidationError

    from quiz.bank.computed.figures import Figures as Figures_
    from quiz.bank.expect import FigureMissing

    try:
        value = Figures_.of(figures.spec.replace(changes)).get(fmt.name)
    except (ValidationError, FigureMissing):
        return None
    return value if isinstance(value, int) else None


def _weights_only(figures: Figures, fmt: Format) -> int | None:
    """The stored weights: for serving, with their quantization constants (scales, zero
    points), which are part of the checkpoint a student who counts "the weights" has in mind."""
    if fmt.name == INFER_TOTAL:
        return (figures.item("inference", "weights")
                + figures.item("inference", "quantization_overhead")) or None
    return figures.item("training", "weights") or None


def _kv_half(figures: Figures, fmt: Format) -> int | None:
    """Half the KV cache missing; ``None`` for multi-head latent attention (MLA, DeepSeek-V2/V3),
    whose cache holds one compressed latent and one shared rotary key per token and layer, not a
    K and V pair, so the factor 2 this mistake drops is not there to drop."""
    arch = figures.spec.resolved.arch
    if arch is not None and arch.mla:
        return None
    kv = figures.item("inference", "kv_cache")
    return figures.number(fmt.name) - kv // 2 if kv else None


def _kv_all_heads(figures: Figures, fmt: Format) -> int | None:
    resolved = figures.spec.resolved
    kv = figures.item("inference", "kv_cache")
    heads, kv_heads = resolved.heads, resolved.kv_heads
    if not kv or not heads or not kv_heads or kv_heads >= heads:
        return None
    return figures.number(fmt.name) - kv + kv * heads // kv_heads


def _kv_one_sequence(figures: Figures, fmt: Format) -> int | None:
    kv = figures.item("inference", "kv_cache")
    batch = figures.spec.inference.batch
    if not kv or batch <= 1:
        return None
    return figures.number(fmt.name) - kv + kv // batch


def _prefix_pair(unit: str) -> tuple[int, int]:
    """(SI bytes, IEC bytes) of the prefix of ``unit`` (``GB`` or ``GiB`` → 10^9, 2^30)."""
    prefix = unit[0].upper() if unit[0] != "k" else "K"
    si = {"K": "kB", "M": "MB", "G": "GB", "T": "TB", "P": "PB"}[prefix]
    return SIZE_UNITS[si], SIZE_UNITS[prefix + "iB"]


def _gib_as_gb(figures: Figures, fmt: Format) -> int | None:
    si, iec = _prefix_pair(fmt.unit)
    return figures.number(fmt.name) * si // iec


def _gb_as_gib(figures: Figures, fmt: Format) -> int | None:
    si, iec = _prefix_pair(fmt.unit)
    return figures.number(fmt.name) * iec // si


def _no_zero(figures: Figures, fmt: Format) -> int | None:
    training = figures.spec.training
    if training.zero == 0 or training.dp == 1:
        return None
    return _re_estimated(figures, fmt, {"training": {"zero": 0}})


def _int4_without_scales(figures: Figures, fmt: Format) -> int | None:
    if figures.spec.inference.weights not in _INT4:
        return None
    weights = figures.item("inference", "weights")
    overhead = figures.item("inference", "quantization_overhead")
    naive = (figures.report.model.params + 1) // 2
    if fmt.name == INFER_WEIGHTS:
        return naive
    return figures.number(fmt.name) - weights - overhead + naive


def _forget_activations(figures: Figures, fmt: Format) -> int | None:
    part = sum(figures.item("training", item) for item in _ACTIVATION_ITEMS)
    return figures.number(fmt.name) - part if part else None


def _forget_kv(figures: Figures, fmt: Format) -> int | None:
    kv = figures.item("inference", "kv_cache")
    return figures.number(fmt.name) - kv if kv else None


_OPTIMIZER_NAMES = {"adam": "Adam", "adamw": "AdamW", "adam-8bit": "8-bit Adam",
                    "sgd": "plain SGD", "sgd-momentum": "SGD with momentum",
                    "adafactor": "Adafactor"}
"""What each ``training.optimizer`` is called in a review."""


def _state_dtype(figures: Figures) -> tuple[str, int]:
    """The optimizer states' number format and bytes per value (FP32, or BF16 in pure BF16)."""
    from quiz.footprint.items.regime import state_bytes

    size = state_bytes(figures.spec.training)
    return ("FP32" if size == 4 else "BF16"), size


def _optimizer_keeps(figures: Figures) -> str:
    """What the scenario's optimizer keeps: ``"AdamW keeps two FP32 moments per trained
    parameter (8 bytes)"``."""
    from quiz.footprint.items.regime import ADAM_8BIT_BLOCK

    optimizer = figures.spec.training.optimizer
    name = _OPTIMIZER_NAMES.get(optimizer, optimizer)
    dtype, size = _state_dtype(figures)
    if optimizer in _ADAM:
        return f"{name} keeps two {dtype} moments per trained parameter ({2 * size} bytes)"
    if optimizer == "sgd-momentum":
        return f"{name} keeps one {dtype} momentum buffer per trained parameter ({size} bytes)"
    if optimizer == "adam-8bit":
        return (f"{name} keeps two 8-bit moments per trained parameter (2 bytes, plus a 4-byte "
                f"scale per block of {ADAM_8BIT_BLOCK:,})")
    if optimizer == "adafactor":
        return (f"{name} keeps factored {dtype} statistics (a row and a column per weight "
                "matrix)")
    return f"{name} keeps no state"


def _forget_optimizer_review(figures: Figures, fmt: Format) -> str:
    states = figures.item("training", "optimizer_states")
    others = [figures.item("training", item) for item in ("weights", "gradients",
                                                          "master_weights")]
    largest = ", the largest of the model states here" if states > max(others) else ""
    return ("{value} leaves out the optimizer states ({part}). " + _optimizer_keeps(figures)
            + largest + "; the full count is {key}.")


def _adam_one_moment_review(figures: Figures, fmt: Format) -> str:
    name = _OPTIMIZER_NAMES.get(figures.spec.training.optimizer, "Adam")
    dtype, size = _state_dtype(figures)
    return ("{value} counts one " + name + " moment instead of two ({part} short). " + name
            + " keeps both the first moment (the running mean of the gradients) and the second "
            f"(of their squares), {size} bytes each in {dtype}; the right count is {{key}}.")


def _weights_label(weights: str) -> str:
    """``bf16`` → ``BF16``; a named scheme → its label (``GPTQ INT4 (AutoGPTQ, asymmetric)``)."""
    from quiz.footprint.quant.schemes import SCHEMES

    scheme = SCHEMES.get(weights)
    return scheme.label if scheme is not None else weights.upper()


def _fp32_everything_review(figures: Figures, fmt: Format) -> str:
    if fmt.name.startswith("training."):
        training = figures.spec.training
        half = "BF16" if training.precision == "mixed-bf16" else "FP16"
        optimizer = training.optimizer
        fp32 = {"adam-8bit": "only the master copy is FP32 (8-bit Adam's moments take 1 byte "
                             "each)",
                "sgd": "only the master copy is FP32 (plain SGD keeps no state)",
                "sgd-momentum": "only the master copy and the momentum buffer are FP32",
                "adafactor": "only the master copy and Adafactor's statistics are FP32"}.get(
            optimizer, "only the master copy and the optimizer states are FP32")
        return ("{value} counts the working weights and gradients at 4 bytes (FP32). Mixed "
                f"precision keeps them in {half} (2 bytes per parameter); {fp32}. The right "
                "figure is {key}.")
    from quiz.footprint.items.inference import KV_BYTES, kv_dtype

    inference = figures.spec.inference
    params = figures.report.model.params
    weights = figures.item("inference", "weights") + figures.item("inference",
                                                                  "quantization_overhead")
    per = weights / params if params else 0.0
    per_text = (f"{round(per)} bytes" if abs(per - round(per)) < 0.005
                else f"about {per:.2f} bytes")
    kv = kv_dtype(inference)
    said = []
    if fmt.name != KV:
        said.append(f"the weights are {_weights_label(inference.weights)} ({per_text} per "
                    "parameter)")
    if fmt.name != INFER_WEIGHTS:
        said.append(f"the KV cache {'is ' * (not said)}{kv.upper()} ({KV_BYTES[kv]} "
                    f"byte{'s' * (KV_BYTES[kv] != 1)} per value)")
    return ("{value} counts every value at 4 bytes (FP32), but here " + " and ".join(said)
            + "; the right figure is {key}.")


def _constants(inference: InferenceSpec) -> str:
    from quiz.bank.computed.quant_words import constants

    return constants(inference)


def _int4_without_scales_review(figures: Figures, fmt: Format) -> str:
    from quiz.bank.computed.quant_words import int4_stores

    inference = figures.spec.inference
    label = ("Group-wise INT4" if inference.weights == "int4"
             else _weights_label(inference.weights).split(",")[0])
    kept = figures.item("inference", "weights") > (figures.report.model.params + 1) // 2
    return ("{value} counts 4 bits per parameter and nothing else. " + label + " also stores "
            + int4_stores(inference, kept) + "; the right figure is {key}.")


def _weights_only_review(figures: Figures, fmt: Format) -> str:
    if fmt.name == INFER_TOTAL:
        stored = ("the weights alone" if not figures.item("inference", "quantization_overhead")
                  else "the stored weights alone, with their " + _constants(figures.spec.inference))
        return ("{value} is " + stored + ". Serving also holds the KV cache of every "
                "sequence and working memory (activations); the right figure is {key}.")
    parts = ["gradients"]
    if figures.item("training", "master_weights"):
        parts.append("FP32 master weights")
    if figures.item("training", "optimizer_states"):
        parts.append("optimizer states")
    if fmt.name == TRAIN_TOTAL and any(figures.item("training", item)
                                       for item in _ACTIVATION_ITEMS):
        parts.append("activations")
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    return ("{value} is the weights alone. Training also holds the " + listed
            + "; the right figure is {key}.")


def _share(figures: Figures, stage: int, size: int) -> str:
    """``"; under ZeRO stage 1 this GPU keeps a 1/8 share of it (0.5 bytes per parameter)"``
    where ZeRO stage ``stage`` or above shards the part (``size`` bytes per parameter whole)
    over more than one data-parallel rank, else ``""``."""
    training = figures.spec.training
    if training.zero < stage or training.dp <= 1:
        return ""
    share = size / training.dp
    exact = share * 1000 == int(share * 1000)
    amount = f"{share:g}" if exact else f"about {share:.2f}"
    return (f"; under ZeRO stage {training.zero} this GPU keeps a 1/{training.dp} share of it "
            f"({amount} bytes per parameter)")


def _trained(figures: Figures, noun: str, size: int) -> str:
    """``"every trained weight (4 bytes per parameter)"``, or under LoRA/QLoRA ``"every adapter
    weight (4 bytes per adapter parameter; the frozen base has none)"``."""
    if figures.spec.training.finetune in ("lora", "qlora"):
        return (f"every adapter {noun} ({size} bytes per adapter parameter; the frozen base "
                "has none)")
    return f"every trained {noun} ({size} bytes per parameter)"


def _forget_master_review(figures: Figures, fmt: Format) -> str:
    return ("{value} leaves out the FP32 master weights ({part}). Mixed precision updates an "
            f"FP32 copy of {_trained(figures, 'weight', 4)} and casts it to the 16-bit "
            f"working weights{_share(figures, 1, 4)}; the full count is {{key}}.")


def _forget_gradients_review(figures: Figures, fmt: Format) -> str:
    from quiz.footprint.items.regime import _BYTES, grad_dtype

    dtype = grad_dtype(figures.spec.training)
    size = _BYTES[dtype]
    return ("{value} leaves out the gradients ({part}). Backpropagation writes one "
            f"{dtype.upper()} gradient for {_trained(figures, 'parameter', size)} before the "
            f"optimizer step reads them{_share(figures, 2, size)}; the full count is {{key}}.")


def _no_zero_review(figures: Figures, fmt: Format) -> str:
    training = figures.spec.training
    split = ["the optimizer states"]
    if figures.item("training", "master_weights"):
        split.append("the FP32 master weights")
    if training.zero >= 2:
        split.append("the gradients")
    if training.zero >= 3:
        split.append("the weights")
    listed = ", ".join(split[:-1]) + " and " + split[-1] if len(split) > 1 else split[0]
    return ("{value} ignores the ZeRO sharding: every data-parallel rank would keep the whole "
            f"state. ZeRO stage {training.zero} splits {listed} over the {training.dp} "
            "data-parallel ranks; the right figure per device is {key}.")


_ZERO = ("Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion "
         "Parameter Models, sec. 3.1 (mixed-precision Adam: 2 + 2 + 12 = 16 bytes per "
         "parameter)")
_KV_SOURCE = ("Pope et al. 2023, Efficiently Scaling Transformer Inference, sec. 2 (the KV "
              "cache: 2 x layers x KV heads x head dimension x bytes per value, per token)")
_UNITS_SOURCE = ("IEC 80000-13 and NIST, Prefixes for binary multiples: GB = 10^9 bytes, GiB = "
                 "2^30 bytes")

CATALOG: tuple[Misconception, ...] = (
    Misconception(
        "forget-optimizer-states", _TRAINING_SUMS,
        "the answer figure minus the optimizer states",
        "{value} leaves out the optimizer states ({part}). The optimizer keeps its own state per "
        "parameter, Adam two FP32 moments (8 bytes), and in mixed precision it is the largest "
        "of the model states; the full count is {key}.",
        _ZERO, _minus("optimizer_states"), _forget_optimizer_review),
    Misconception(
        "forget-master-weights", _TRAINING_SUMS,
        "the answer figure minus the FP32 master weights",
        "{value} leaves out the FP32 master weights ({part}). Mixed precision updates an FP32 "
        "copy of every weight (4 bytes per parameter) and casts it to the 16-bit working "
        "weights; the full count is {key}.",
        "Micikevicius et al. 2018, Mixed Precision Training, sec. 3.1 (the FP32 master copy "
        "of weights)", _minus("master_weights"), _forget_master_review),
    Misconception(
        "forget-gradients", _TRAINING_SUMS,
        "the answer figure minus the gradients",
        "{value} leaves out the gradients ({part}). Backpropagation writes one gradient per "
        "trained parameter, in the working precision, before the optimizer step reads them; "
        "the full count is {key}.",
        _ZERO, _minus("gradients"), _forget_gradients_review),
    Misconception(
        "adam-one-moment", (*_TRAINING_SUMS, "training.optimizer_states"),
        "the answer figure minus half the optimizer states (Adam or AdamW only)",
        "{value} counts one Adam moment instead of two ({part} short). Adam keeps both the "
        "first moment (the running mean of the gradients) and the second (of their squares), "
        "4 bytes each in FP32; the right count is {key}.",
        "Kingma and Ba 2015, Adam: A Method for Stochastic Optimization, Algorithm 1 (m_t and "
        "v_t)", _adam_one_moment, _adam_one_moment_review),
    Misconception(
        "fp32-everything", (*_TRAINING_SUMS, INFER_WEIGHTS, INFER_TOTAL, KV),
        "training: the answer figure plus the 16-bit weights and gradients again (counted at 4 "
        "bytes, mixed precision only); inference: the figure with FP32 weights and KV cache",
        "{value} counts every value at 4 bytes (FP32). Mixed precision keeps the working "
        "weights and gradients in 16 bits (2 bytes) and only the master copy and optimizer "
        "states in FP32; a model served in 16 bits or less stores 2 bytes or fewer per value. "
        "The right figure is {key}.",
        "Micikevicius et al. 2018, Mixed Precision Training, sec. 3", _fp32_everything,
        _fp32_everything_review),
    Misconception(
        "weights-only", (*_TRAINING_SUMS, INFER_TOTAL),
        "the weights alone (serving: the stored weights with their scales and zero points)",
        "{value} is the weights alone. Training also holds gradients, master weights and "
        "optimizer states (and activations); serving also holds the KV cache and working "
        "memory. The right figure is {key}.",
        _ZERO, _weights_only, _weights_only_review),
    Misconception(
        "kv-without-k-and-v", (KV, INFER_TOTAL),
        "the answer figure minus half the KV cache (not for multi-head latent attention, which "
        "caches a latent, not K and V)",
        "{value} caches only one of the key and value tensors ({part} short). Every layer "
        "stores both K and V for every token, hence the factor 2 in the KV cache size; the right "
        "figure is {key}.",
        _KV_SOURCE, _kv_half),
    Misconception(
        "kv-all-query-heads", (KV, INFER_TOTAL),
        "the KV cache scaled by heads / KV heads (models with grouped-query attention only)",
        "{value} sizes the KV cache with every query head. With grouped-query attention, "
        "groups of query heads share one key and value head, so the cache scales with the KV "
        "heads, not the query heads; the right figure is {key}.",
        "Ainslie et al. 2023, GQA: Training Generalized Multi-Query Transformer Models from "
        "Multi-Head Checkpoints, sec. 2", _kv_all_heads),
    Misconception(
        "gib-labelled-gb", _SIZES,
        "the figure's number in GiB written with the GB label (SI units only: x 10^9 / 2^30)",
        "{value} is the right byte count divided by 2^30 (GiB) but labelled GB. A GB is 10^9 "
        "bytes and a GiB 2^30 bytes, 7.4% more; the right figure is {key}.",
        _UNITS_SOURCE, _gib_as_gb),
    Misconception(
        "gb-labelled-gib", _SIZES,
        "the figure's number in GB written with the GiB label (IEC units only: x 2^30 / 10^9)",
        "{value} is the right byte count divided by 10^9 (GB) but labelled GiB. A GiB is 2^30 "
        "bytes, 7.4% more than a GB; the right figure is {key}.",
        _UNITS_SOURCE, _gb_as_gib),
    Misconception(
        "no-zero-sharding", (*_TRAINING_SUMS, "training.optimizer_states", "training.gradients",
                             "training.master_weights", "training.weights"),
        "the figure with ZeRO stage 0 (scenarios with ZeRO over more than one data-parallel "
        "rank only)",
        "{value} ignores the ZeRO sharding: every data-parallel rank would keep the whole "
        "state. ZeRO stage 1 splits the optimizer states over the data-parallel ranks, stage 2 "
        "the gradients too, stage 3 the weights too; the right figure per device is {key}.",
        "Rajbhandari et al. 2020, ZeRO, sec. 5 (Pos, Pos+g, Pos+g+p)", _no_zero, _no_zero_review),
    Misconception(
        "int4-without-scales", (INFER_WEIGHTS, INFER_TOTAL),
        "every parameter at 0.5 bytes and nothing else (4-bit weight formats only)",
        "{value} counts 4 bits per parameter and nothing else. A 4-bit format also stores its "
        "quantization constants per group or block, and keeps some tensors at more bits; the "
        "right figure is {key}.",
        "Dettmers and Zettlemoyer 2023, The case for 4-bit precision: k-bit Inference Scaling "
        "Laws, sec. 2 (block-wise quantization constants)", _int4_without_scales,
        _int4_without_scales_review),
    Misconception(
        "forget-activations", (TRAIN_TOTAL,),
        "the answer figure minus every activation item (activations, embeddings, output, "
        "logits)",
        "{value} leaves out the activations ({part}). The forward pass keeps every layer's "
        "inputs for the backward pass; they grow with the micro-batch and the sequence length. "
        "The right figure is {key}.",
        "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer "
        "Models, sec. 4", _forget_activations),
    Misconception(
        "forget-kv-cache", (INFER_TOTAL,),
        "the answer figure minus the KV cache",
        "{value} leaves out the KV cache ({part}). Serving keeps the keys and values of every "
        "token of every sequence in the batch; the right figure is {key}.",
        _KV_SOURCE, _forget_kv),
    Misconception(
        "kv-one-sequence", (KV, INFER_TOTAL),
        "the KV cache of one sequence instead of the batch (batch above 1 only)",
        "{value} sizes the KV cache for one sequence ({part} short). Each sequence of the batch "
        "has its own keys and values, so the cache grows with the batch; the right figure is "
        "{key}.",
        _KV_SOURCE, _kv_one_sequence),
)
"""Every misconception, in the order FORMAT.md lists them."""

BY_NAME: dict[str, Misconception] = {m.name: m for m in CATALOG}


def catalog_table() -> str:
    """The catalog as a Markdown table (name, applies to, arithmetic, source), for FORMAT.md."""
    rows = ["| misconception | applies to | distractor | source |", "|---|---|---|---|"]
    for m in CATALOG:
        figures = "every size figure" if m.figures == _SIZES else ", ".join(
            f"`{f}`" for f in m.figures)
        rows.append(f"| `{m.name}` | {figures} | {m.arithmetic} | {m.source} |")
    return "\n".join(rows)
