"""CPU RAM while a training job loads its model (issue 21 §6), with and without DeepSpeed's
``zero.Init``, per process and per node.

Without ``zero.Init`` every process builds the whole model in CPU RAM before
``deepspeed.initialize`` moves its part to the GPU: PyTorch creates parameters in its default
dtype, FP32 (``torch.get_default_dtype()``), and Hugging Face's ``from_pretrained`` outside
ZeRO-3 builds every module in each process. A node running G processes (one per GPU) needs G
copies at once: ``P × 4 bytes × G`` (2 bytes per parameter when the model is built in BF16:
the pure-BF16 regime, or a LoRA/QLoRA base loaded in its 16-bit dtype).

With ``zero.Init`` (ZeRO stage 3; the Hugging Face integration turns it on whenever the
DeepSpeed config has stage 3) each module's parameters are partitioned over the data-parallel
group as the module is constructed, so a process materialises only its partition:
``⌈P ÷ (tp × pp) ÷ (dp × cp)⌉`` parameters. DeepSpeed places the partitions on the GPU unless
``remote_device`` is ``"cpu"``; this figure is the CPU RAM when they are kept in CPU RAM, the
most the partitions need there.

Not counted: the checkpoint shard being read (``from_pretrained`` loads one shard of the
saved state dict at a time, typically 5–10 GB) and the Python process itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.ep import param_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

PLAIN_SRC = ("DeepSpeed docs, ZeRO: Constructing Massive Models (without zero.Init each process "
             "materialises the full model in CPU memory first); PyTorch "
             "torch.get_default_dtype (FP32); Hugging Face transformers from_pretrained")
INIT_SRC = ("DeepSpeed docs, deepspeed.zero.Init: parameters are partitioned across the "
            "data-parallel group as each module is constructed (remote_device: where the "
            "partitions live); Hugging Face transformers DeepSpeed integration (zero.Init "
            "under stage 3)")
NODE_GPUS = 8
"""GPUs per node when not given: an HGX/DGX node (8 GPUs), or the devices when fewer."""


@dataclass(frozen=True, slots=True)
class LoadRam:
    """The CPU RAM of model loading: ``per_process`` bytes in each of ``gpus_per_node``
    processes per node, over ``nodes`` nodes.

    Attributes:
        zero_init: whether DeepSpeed's ``zero.Init`` partitions the model as it is built.
        bytes_per_param: 4 (FP32 construction) or 2 (built in BF16).
        params: parameters one process materialises (the whole model, or its partition).
        per_process: ``params × bytes_per_param``.
        gpus_per_node: processes (GPUs) per node (at most the devices).
        nodes: ``⌈devices ÷ gpus_per_node⌉``.
    """

    zero_init: bool
    bytes_per_param: int
    params: int
    per_process: int
    gpus_per_node: int
    nodes: int

    @property
    def per_node(self) -> int:
        """Bytes of CPU RAM one node needs: ``per_process × gpus_per_node``."""
        return self.per_process * self.gpus_per_node

    @property
    def formula(self) -> str:
        """The arithmetic in words, with this case's numbers."""
        what = ("its zero.Init partition" if self.zero_init else "the whole model")
        dtype = "FP32" if self.bytes_per_param == 4 else "BF16"
        return (f"{what}, {count_noun(self.params, 'param')} × {self.bytes_per_param} bytes "
                f"({dtype}) per process × {count_noun(self.gpus_per_node, 'GPU')} per node")

    @property
    def source(self) -> str:
        """Where the rule comes from."""
        return INIT_SRC if self.zero_init else PLAIN_SRC

    def to_json(self) -> dict[str, Any]:
        """``{"zero_init": bool, "bytes_per_param": int, "params_per_process": int,
        "per_process_bytes": int, "gpus_per_node": int, "nodes": int, "per_node_bytes": int,
        "formula": str, "source": str}``."""
        return {"zero_init": self.zero_init, "bytes_per_param": self.bytes_per_param,
                "params_per_process": self.params, "per_process_bytes": self.per_process,
                "gpus_per_node": self.gpus_per_node, "nodes": self.nodes,
                "per_node_bytes": self.per_node, "formula": self.formula,
                "source": self.source}


def gpus_per_node(t: TrainingSpec) -> int:
    """``gpus_per_node`` if given, else :data:`NODE_GPUS`, or the devices when fewer."""
    if t.gpus_per_node is not None:
        return t.gpus_per_node
    return min(NODE_GPUS, t.devices)


def uses_zero_init(t: TrainingSpec) -> bool:
    """``zero_init`` if given, else whether the ZeRO stage is 3 (the Hugging Face integration
    enters ``zero.Init`` whenever the config has stage 3)."""
    return t.zero_init if t.zero_init is not None else t.zero == 3


def load_ram(t: TrainingSpec, r: ResolvedModel) -> LoadRam:
    """The CPU RAM while the model of ``r`` loads for training ``t`` (see the module
    docstring). Exact integers. A node runs ``min(gpus_per_node, devices)`` processes; the
    nodes are ``⌈devices ÷ gpus_per_node⌉`` (the last may be partly used). The spec guarantees
    that ``zero_init`` comes with ZeRO stage 3."""
    init = uses_zero_init(t)
    per = 2 if (t.precision == "bf16" or t.finetune != "full") else 4
    params = param_count(t, r, 3, t.dp) if init else r.params
    g = gpus_per_node(t)
    return LoadRam(init, per, params, params * per, min(g, t.devices), -(-t.devices // g))


def load_note(t: TrainingSpec, r: ResolvedModel, b: Any) -> str:
    """The ``--explain`` note: this case's figure and the other case's (with against without
    ``zero.Init``), per process and per node; ``b`` formats bytes."""
    ram = load_ram(t, r)
    node = (f"{count_noun(ram.nodes, 'node')} × {format_count(ram.gpus_per_node)} GPUs"
            if ram.nodes > 1 else f"{count_noun(ram.gpus_per_node, 'GPU')} on one node")
    text = (f"CPU RAM while the model loads ({node}): {ram.formula} = {b(ram.per_process)} "
            f"per process, {b(ram.per_node)} per node. ")
    if ram.zero_init:
        plain = r.params * ram.bytes_per_param
        text += (f"DeepSpeed's zero.Init partitions each module as it is built (ZeRO-3); "
                 f"without it every process would build the whole model first: "
                 f"{b(plain)} per process, {b(plain * ram.gpus_per_node)} per node. The "
                 "partitions go to the GPU unless remote_device is cpu, so this is the most "
                 "they need in CPU RAM.")
    else:
        init = param_count(t.model_copy(update={"zero": 3}), r, 3, t.dp) * ram.bytes_per_param
        text += (f"Every process builds the whole model before deepspeed.initialize moves it "
                 f"(no zero.Init: it needs ZeRO stage 3); with ZeRO-3 and zero.Init each would "
                 f"hold its partition, {b(init)} per process, {b(init * ram.gpus_per_node)} "
                 "per node.")
    return text + (" Not counted: the checkpoint shard being read (from_pretrained loads one "
                   "saved shard at a time) and the Python processes themselves.")
