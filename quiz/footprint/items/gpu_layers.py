"""llama.cpp's partial offload, ``--gpu-layers N`` (``-ngl N``; issue 21 §6): which part of a
GGUF model and its KV cache sits in GPU memory and which in CPU RAM.

llama.cpp numbers L + 1 slots, the L repeating layers then the output layer, and puts the last
N of them on the GPU (``src/llama-model.cpp`` ``load_tensors``: ``i_gpu_start = max(n_layer + 1
− n_gpu_layers, 0)``; a layer below ``i_gpu_start`` is assigned to the CPU): ``-ngl 1`` moves
the output layer (the final norm and the LM head), ``-ngl N`` also the last N − 1 layers, and
``-ngl L+1`` everything. The input layer, the token embedding, always stays in CPU RAM ("there
is very little benefit to offloading the input layer"); with tied embeddings the output layer
on the GPU is a second copy of it (``TENSOR_DUPLICATED``). Each layer's KV cache lives on its
layer's device (``src/llama-kv-cache.cpp``: with ``offload_kqv``, the default, the buffer type
of ``model.dev_layer(il)``; ``--no-kv-offload`` keeps all of it in CPU RAM), so the KV cache of
the layers left on the CPU stays in CPU RAM.

Exact per tensor: each tensor's bytes come from its ggml type (:mod:`quiz.footprint.quant.gguf`),
so the ``_M`` mixes' heavier layers are counted where they sit. The F32 norms go with their
layer (the final norm with the output layer). The KV cache is split evenly per layer (exact when
every layer keeps the same tokens; with sliding-window layers an approximation). The compute
buffers (the activations and logits items) stay on the GPU.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, make_item
from quiz.footprint.quant.gguf import GGML_TYPES, gguf_tensor_types
from quiz.footprint.quant.layouts import tensor_bytes

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

NGL_SRC = ("llama.cpp src/llama-model.cpp load_tensors (i_gpu_start = max(n_layer + 1 − "
           "n_gpu_layers, 0): the last N of the layers and the output layer on the GPU, the "
           "input layer on the CPU)")
KV_SRC = ("llama.cpp src/llama-kv-cache.cpp (offload_kqv, the default: each layer's K and V "
          "in the buffer of model.dev_layer(il))")


def placement(n: int, layers: int) -> tuple[int, bool]:
    """``(layers on the GPU, output layer on the GPU)`` for ``--gpu-layers n`` of a model with
    ``layers`` layers: the last ``n`` of the ``layers + 1`` slots (llama.cpp's rule)."""
    return max(0, min(n, layers + 1) - 1), n >= 1


def _gpu_bytes(key: str, arch: Architecture, n: int) -> tuple[int, int]:
    """``(values, scales)`` bytes of the tensors on the GPU: the output matrix (or the tied
    embedding's duplicate) when the output layer is, and every tensor of the last GPU layers."""
    rows = gguf_tensor_types(key, arch)
    head = 1 if arch.tied_embeddings else 2
    per_layer = (len(rows) - head) // arch.layers
    gpu_layers, output = placement(n, arch.layers)
    chosen = []
    if output:
        chosen.append(rows[0] if arch.tied_embeddings else rows[1])
    first = arch.layers - gpu_layers
    chosen += rows[head + first * per_layer:]
    values = scales = 0
    for _role, out, inp, count, t in chosen:
        b = tensor_bytes(GGML_TYPES[t], out, inp).times(count)
        values += b.values
        scales += b.overhead
    return values, scales


def split_items(inf: InferenceSpec, r: ResolvedModel,
                items: list[Item]) -> tuple[list[Item], list[Item]]:
    """``(GPU items, CPU items)`` of the inference ``items`` under ``inf.gpu_layers``: the
    weights, their block scales and the KV cache split per :func:`placement`; the other items
    (compute buffers) stay on the GPU. The two parts of each split item sum to the item.
    The spec guarantees an architecture, a GGUF scheme and ``gpu_layers ≤ layers + 1``."""
    n = inf.gpu_layers
    arch = r.arch
    assert n is not None and arch is not None
    L, h = arch.layers, arch.hidden
    gpu_layers, output = placement(n, L)
    values, scales = _gpu_bytes(inf.weights, arch, n)
    by_name = {i.name: i for i in items}
    weights = by_name["weights"]
    kept_total = weights.bytes - _all_values(inf.weights, arch)
    final_norm = 4 * h if output else 0
    kept_gpu = final_norm + (kept_total - 4 * h) * gpu_layers // L
    dup = (arch.tied_embeddings and output)
    where = (f"the output layer{' (a copy of the tied embedding)' if dup else ''} and the last "
             f"{count_noun(gpu_layers, 'layer')} of {format_count(L)}" if output
             else "nothing (--gpu-layers 0)")
    ngl = f"llama.cpp --gpu-layers {format_count(n)}"
    gpu: list[Item] = []
    cpu: list[Item] = []
    w_gpu = values + kept_gpu
    # a tied output layer on the GPU is a duplicate: the CPU keeps the whole embedding too
    w_cpu = weights.bytes - w_gpu + (_embd_values(inf.weights, arch) if dup else 0)
    s_cpu_extra = _embd_scales(inf.weights, arch) if dup else 0
    for item in items:
        if item.name == "weights":
            gpu.append(make_item("weights", w_gpu, f"{where} ({ngl}): their tensors' values and "
                            f"F32 norms, each tensor in its ggml type", f"{NGL_SRC}; "
                            f"{item.source}"))
            cpu.append(make_item("weights", w_cpu, f"the token embedding and the first "
                            f"{count_noun(L - gpu_layers, 'layer')} ({ngl}): their tensors' "
                            "values and F32 norms", f"{NGL_SRC}; {item.source}"))
        elif item.name == "quantization_overhead":
            gpu.append(make_item(item.name, scales, f"the block scales of the tensors on the GPU "
                            f"({ngl})", item.source))
            cpu.append(make_item(item.name, item.bytes - scales + s_cpu_extra,
                            f"the block scales of the tensors in CPU RAM ({ngl})",
                            item.source))
        elif item.name == "kv_cache":
            kv_gpu = item.bytes * gpu_layers // L
            gpu.append(make_item(item.name, kv_gpu, f"{format_count(gpu_layers)} of "
                            f"{format_count(L)} layers' K and V (each layer's cache on its "
                            f"layer's device): {format_count(item.bytes)} × "
                            f"{format_count(gpu_layers)} / {format_count(L)}",
                            f"{KV_SRC}; {item.source}"))
            cpu.append(make_item(item.name, item.bytes - kv_gpu, f"the K and V of the "
                            f"{count_noun(L - gpu_layers, 'layer')} left on the CPU",
                            f"{KV_SRC}; {item.source}"))
        else:
            gpu.append(item)
    return gpu, cpu


def _all_values(key: str, arch: Architecture) -> int:
    """Bytes of the packed values of every 2-D tensor (the weights item less the F32 kept
    parameters)."""
    return sum(tensor_bytes(GGML_TYPES[t], out, inp).times(count).values
               for _r, out, inp, count, t in gguf_tensor_types(key, arch))


def _embd_values(key: str, arch: Architecture) -> int:
    row = gguf_tensor_types(key, arch)[0]
    return tensor_bytes(GGML_TYPES[row[4]], row[1], row[2]).values


def _embd_scales(key: str, arch: Architecture) -> int:
    row = gguf_tensor_types(key, arch)[0]
    return tensor_bytes(GGML_TYPES[row[4]], row[1], row[2]).overhead
