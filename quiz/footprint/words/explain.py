"""``--explain``: how common tools and sources would count the same case.

Sources disagree on a few conventions; each note states ours, the alternatives with their
source, and what they give for this case:

* bytes per parameter for mixed-precision Adam: 16 (Rajbhandari et al. 2020, ZeRO, sec. 3.1:
  16-bit gradients) vs 18 (Hugging Face Transformers, "GPU memory usage" guide
  ``model_memory_anatomy``: FP32 gradients; EleutherAI cookbook ``calc_transformer_mem.py``
  default ``bytes_per_grad_ele = 4``) vs 20 (the Ultra-Scale Playbook, FP32 gradient copies kept
  beside the 16-bit ones);
* GB (10^9) vs GiB (2^30);
* what "activation checkpointing" means: full (Hugging Face ``gradient_checkpointing_enable``
  checkpoints every decoder layer) vs selective (Megatron-LM ``--recompute-activations``);
  FlashAttention never materialises the s × s scores;
* KV cache with or without grouped-query attention;
* quantized weights as "params × bits / 8" vs with 16-bit embeddings and group scales; for a
  named scheme (:mod:`quiz.footprint.quant.schemes`), what it keeps unquantized, its tensor types
  (GGUF)
  and where its tools count differently (LLM.int8() outliers, GPTQ's g_idx and qzeros, double
  quantization, per-tensor vs per-channel FP8).
"""

from __future__ import annotations

from collections.abc import Callable

from quiz.footprint.compute.figures import INFERENCE_FORMAT, ceil_div
from quiz.footprint.engine.report import Report
from quiz.footprint.inputs.units import count_noun, format_bytes, format_count
from quiz.footprint.items.activations import (
    logit_value_bytes,
    logits_bytes,
    output_activation_bytes,
)
from quiz.footprint.items.inference import (
    WEIGHT_BITS,
    group_meta_bits,
    kv_dtype,
    plain_weight_bytes,
    scheme_plan,
)
from quiz.footprint.items.kv_layout import KV_FORMATS, kv_json
from quiz.footprint.items.model_states import (
    ADAM_8BIT_BLOCK,
    ADAM_8BIT_PAPER_BLOCK,
    activation_bytes,
    activation_value_bytes,
    bytes_per_param,
    grad_dtype,
    has_master,
)
from quiz.footprint.words.kv_notes import kv_notes
from quiz.footprint.words.quant_notes import scheme_notes
from quiz.footprint.words.serving_notes import serving_note

_RECOMPUTE = {"none": "no recomputation", "selective": "selective recomputation",
              "full": "full recomputation"}
"""The recomputation modes in words ("with no recomputation", never "with none
recomputation")."""


def explain_notes(report: Report, *, units: str = "GB") -> list[str]:
    """Notes comparing this estimate's conventions with other tools', with this case's numbers.

    Returns:
        A list of paragraphs (plain text, no line breaks).
    """
    spec, notes = report.spec, []
    psi = report.model.params

    def b(n: int) -> str:
        return format_bytes(n, units)

    if report.training is not None:
        from quiz.footprint.items.fp8 import is_fp8
        from quiz.footprint.words.training_notes import fp8_note

        t = spec.training
        if (t.optimizer in ("adam", "adamw") and has_master(t) and t.convention == "paper"
                and t.finetune == "full"):
            ours = sum(part for part, _ in bytes_per_param(t))
            grads = "FP32" if grad_dtype(t) == "fp32" else "16-bit"
            notes.append(
                f"Bytes per parameter, mixed-precision Adam: this estimate counts {ours} "
                f"({grads} gradients) = {b(ours * psi)} of model "
                f"states for {count_noun(psi, 'parameter')} before any sharding. The ZeRO paper "
                f"(sec. 3.1) counts 16 = 2 + 2 + 12 → {b(16 * psi)}; Hugging Face's \"GPU "
                'memory usage" guide counts 18 = 6 (FP16 and FP32 weights) + 4 (FP32 gradients) '
                f"+ 8 (Adam) → {b(18 * psi)}, as does EleutherAI's calc_transformer_mem.py "
                "(4-byte gradients by default); the Ultra-Scale Playbook gets 20 when FP32 "
                f"gradient copies are kept beside the 16-bit ones → {b(20 * psi)}. "
                "--grad-precision fp32 gives the 18-byte count."
                + (" The FP8 copy of the GEMM weights (1 byte each, a separate item) comes on top "
                   "of these counts." if is_fp8(t) else "")
            )
        r = spec.resolved
        vals = {mode: activation_bytes(t, r, mode) for mode in ("none", "selective", "full")}
        if report.training.item("activations") is not None:
            notes.append(
                '"Activation checkpointing" means different things: Hugging Face '
                "Transformers' gradient_checkpointing_enable() recomputes every decoder layer "
                "from its input (--recompute full here); Megatron-LM's --recompute-activations "
                "recomputes only the attention scores (--recompute selective); FlashAttention "
                "never stores the s × s scores, so without recomputation it costs about what "
                f"'selective' does. This case: none {b(vals['none'] or 0)}, selective "
                f"{b(vals['selective'] or 0)}, full {b(vals['full'] or 0)} per device."
            )
        from quiz.footprint.words.training_notes import convention_note, offload_note

        if is_fp8(t):
            notes.append(fp8_note(t, r, b))

        for extra in (convention_note(t, r, b),
                      offload_note(t, b, report.training.host_total("cpu"),
                                   report.training.host_total("nvme"))):
            if extra:
                notes.append(extra)
        if t.finetune != "full":
            from quiz.footprint.words.lora_notes import explain_notes as adapter_notes

            notes += adapter_notes(report, b)
        if t.optimizer == "adam-8bit" and t.finetune == "full":
            paper = 2 * -(-psi // ADAM_8BIT_PAPER_BLOCK) * 4
            ours = 2 * -(-psi // ADAM_8BIT_BLOCK) * 4
            notes.append(
                f"8-bit Adam's block size: this estimate uses bitsandbytes' blocks of "
                f"{format_count(ADAM_8BIT_BLOCK)} values (one FP32 absmax per block and state: "
                f"{b(ours)} of scales for {count_noun(psi, 'parameter')}); the paper (Dettmers "
                f"et al. 2022, sec. 2.1) used blocks of {format_count(ADAM_8BIT_PAPER_BLOCK)}: "
                f"{b(paper)}. bitsandbytes also keeps 32-bit states for tensors under 4,096 "
                "values (min_8bit_size), not counted here."
            )
        notes += activation_notes(report)
        notes.append(overhead_note(spec.overhead, b))
    if report.inference is not None:
        inf = spec.inference
        r = spec.resolved
        kv = report.inference.item("kv_cache")
        if kv is not None and r.heads and r.kv_heads and r.head_dim and r.layers:
            head = KV_FORMATS[kv_dtype(inf)].vector_bits(r.head_dim)  # bits per head, token
            gqa = -(-2 * r.kv_heads * head // 8) * r.layers
            mha = -(-2 * r.heads * head // 8) * r.layers
            if gqa != mha:
                notes.append(
                    f"KV cache per token: {count_noun(gqa, 'byte')} with grouped-query attention "
                    f"({count_noun(r.kv_heads, 'key/value head')}). A calculator that sizes it "
                    f"from the hidden size or the {count_noun(r.heads, 'query head')} counts "
                    f"{count_noun(mha, 'byte')} per token, {format_count(mha // gqa)}× too much: "
                    f"{b(kv.bytes * mha // gqa)} instead of {b(kv.bytes)}."
                )
            else:
                notes.append(
                    f"KV cache per token: {count_noun(gqa, 'byte')}. This model uses multi-head "
                    "attention (as many key/value heads as query heads), so counts with and "
                    "without grouped-query attention agree."
                )
        notes += kv_notes(report, b)
        working = serving_note(inf, r, report.gpu, b)
        if working is not None:
            notes.append(working)
        bits = WEIGHT_BITS[inf.weights]
        plan = scheme_plan(inf, r)
        if plan is not None:
            w = report.inference.item("weights")
            q = report.inference.item("quantization_overhead")
            naive = plain_weight_bytes(psi, inf.weights)
            ours = (w.bytes if w else 0) + (q.bytes if q else 0)
            notes.append(
                f'Quantized weights: "params × {bits}/8" gives {b(naive)}; {plan.scheme.label} '
                f"with the layers it keeps and its scales gives {b(ours)} "
                f"({(ours - naive) / naive:+.1%}).")
            notes += scheme_notes(plan, r.arch if r.counts is not None else None, b)
        elif bits < 16:
            w = report.inference.item("weights")
            q = report.inference.item("quantization_overhead")
            naive = plain_weight_bytes(psi, inf.weights)
            ours = (w.bytes if w else 0) + (q.bytes if q else 0)
            if r.counts is None:
                kept = ("with no architecture this estimate quantizes every parameter too (real "
                        "checkpoints keep the embeddings and LM head 16-bit, so they are larger)")
            else:
                kept = "this estimate keeps embeddings, LM head and norms in 16 bits"
            if inf.weights == "fp8":
                scales = ("adds one FP32 scale per quantized weight matrix (per-tensor scaling, as "
                          "FP8 checkpoints for vLLM and TensorRT-LLM store it; no group scales)"
                          if q is not None else
                          "leaves out the FP8 per-tensor scales (their number needs an "
                          "architecture)")
            else:
                scale_bits, zero_bits = group_meta_bits(inf)
                scale = (inf.scale_dtype or "fp16").upper()
                zero = (f"one {zero_bits}-bit zero point" if zero_bits else "no zero point")
                chosen = ("as chosen (published GPTQ/AWQ checkpoints: FP16 scale and a zero "
                          "point of the weight's width)"
                          if inf.scale_dtype is not None or inf.zero_point is not None
                          else "as published GPTQ/AWQ checkpoints do")
                scales = (f"adds one {scale} scale and {zero} per group of "
                          f"{format_count(inf.group_size)} weights, {chosen}")
            notes.append(
                f'Quantized weights: "params × {bits}/8" gives {b(naive)}; {kept}, and '
                f"{scales}: {b(ours)} ({(ours - naive) / naive:+.1%})."
            )
    if report.training is None and report.inference is not None:
        notes.append(overhead_note(spec.overhead, b))
    notes += compute_notes(report)
    largest = max((p.total_bytes for p in report.phases), default=0)
    if largest:
        notes.append(
            f"GB or GiB: {count_noun(largest, 'byte')} = {format_bytes(largest, 'GB')} = "
            f'{format_bytes(largest, "GiB")}. Datasheets\' "80GB" on an A100 is 80 GiB '
            "(nvidia-smi: 81,920 MiB = 85.90 GB); nvidia-smi prints MiB; EleutherAI's "
            "calculator prints GiB; disks and this tool's default print decimal units (GB = "
            "10^9 bytes)."
        )
    from quiz.footprint.words.format_notes import format_notes

    notes += format_notes(report, units)
    return notes


def overhead_note(overhead: int, b: Callable[[int], str]) -> str:
    """``--explain``: the framework-overhead item, set or not."""
    if overhead:
        counted = (f"this estimate counts {b(overhead)} per GPU of framework overhead as you set "
                   "it (--overhead)")
    else:
        counted = ("this estimate counts no framework overhead: --overhead is 0 by default; set "
                   "it (e.g. --overhead 1GiB) to reserve memory per GPU")
    return (f"Memory the framework takes: {counted} for the CUDA context (several hundred MiB "
            "per process), the caching allocator's fragmentation and library workspaces "
            "(cuBLAS, NCCL). ZeRO communication buckets are not counted either; EleutherAI's "
            "calc_transformer_mem.py has flags for buckets and a miscellaneous overhead.")


def parallel_notes(report: Report, b: Callable[[int], str]) -> list[str]:
    """``--explain`` notes on context parallelism (what it splits, the ring's K/V buffers it
    leaves out) and on a mixture of experts' activations (the router and the top-k copies)."""
    spec, notes = report.spec, list[str]()
    t, r = spec.training, spec.resolved
    if t.cp > 1 and r.layers and r.head_dim:
        kv = (r.kv_heads or r.heads or 0) * r.head_dim
        e = activation_value_bytes(t.precision)
        ring = 2 * 2 * (t.seq_len // t.cp) * t.micro_batch * kv * e // t.tp
        notes.append(
            f"Context parallelism: each of the {format_count(t.cp)} ranks keeps the activations "
            f"of {count_noun(t.seq_len // t.cp, 'token')} of every sequence (Megatron-LM "
            "--context-parallel-size; the sequence is cut into 2 × cp chunks and each rank "
            "takes two, for load balance), and its attention scores span all "
            f"{count_noun(t.seq_len, 'key')}. The weights are replicated over the cp ranks, "
            "and ZeRO (Megatron's distributed optimizer) shards over dp × cp. Not counted: the "
            "ring's K/V exchange buffers, the chunk being received while the current one is "
            f"used, 2 × 2 × s/cp × b × KV width × e = {b(ring)} per layer in flight, freed "
            "after each layer, nor DeepSpeed Ulysses, which splits heads instead.")
    if r.arch is not None and r.arch.experts > 1 and t.recompute != "full":
        notes.append(
            f"Mixture of experts: Korthikanti's Table 2 assumes one dense 4h MLP; this estimate "
            f"replaces it with the router (FP32 probabilities over "
            f"{count_noun(r.arch.experts, 'expert')}) and each token's "
            f"{format_count(r.arch.active_experts)} copies through its experts, assuming the "
            "router spreads tokens evenly (capacity factor 1, no dropped tokens); expert "
            "parallelism moves tokens between devices but, balanced, leaves each device as many "
            "expert activations as it has tokens × k. Imbalanced routing can make one device "
            "hold several times that.")
    from quiz.footprint.items.ep import uses_ep
    from quiz.footprint.words.training_notes import ep_note

    if uses_ep(t, r):
        notes.append(ep_note(t, r, b))
    return notes


def activation_notes(report: Report) -> list[str]:
    """``--explain`` notes on the training activations outside the layers: the logits (with
    the FP32 copy, against Korthikanti's 4sbv/t, Megatron-LM's count and fused kernels that
    never materialise them), and with pipeline parallelism the last stage, which holds them."""
    spec = report.spec
    notes: list[str] = []
    training = report.training
    if training is None:
        return notes
    t, r = spec.training, spec.resolved
    logits = training.item("logits")
    layers = activation_bytes(t, r)
    if logits is None or layers is None or not r.layers or not r.vocab:
        return notes
    units = report.units

    def b(n: int) -> str:
        return format_bytes(n, units)

    notes += parallel_notes(report, b)
    one_layer = -(-layers // r.layers)
    if t.pp == 1:
        per = logit_value_bytes(t)
        fp32_only = -(-t.seq_len * t.micro_batch * r.vocab * 4 // t.tp)
        size = "larger" if logits.bytes > one_layer else "smaller"
        notes.append(
            f"Logits: this estimate keeps {per} bytes per logit ({b(logits.bytes)}): "
            + ("the 16-bit logits of the output projection, alive while the loss is computed, "
               "and the FP32 copy cross-entropy makes and keeps for its backward pass "
               "(Megatron-LM's vocab_parallel_cross_entropy on logits.float(); Hugging Face's "
               "ForCausalLMLoss upcasts the same way). " if per > 4 else
               "the FP32 copy cross-entropy keeps, as set with --logits-bytes 4 (the 16-bit "
               "logits it is made from are not counted). " if t.precision != "fp32" else
               "FP32 logits, which cross-entropy uses without a copy. ")
            + f"Korthikanti et al. 2022 (arXiv 2205.05198, sec. 4.3) count only the FP32 "
            f"logits, 4sbv/t = {b(fp32_only)}, as does Megatron-LM's "
            "theoretical_memory_usage.py (which also adds 8 bytes per token for the int64 "
            "token ids)"
            + ("; --logits-bytes 4 (with --convention paper for the layers) reproduces their "
               "figures. " if per > 4 else ". ")
            + "Fused or chunked cross-entropy kernels "
            "(Liger Kernel's FusedLinearCrossEntropy, Apple's Cut Cross-Entropy) never "
            f"materialise them. Here the logits are {size} than one layer's activations "
            f"({b(one_layer)} with {_RECOMPUTE[t.recompute]}): their size grows with the "
            f"vocabulary ({count_noun(r.vocab, 'entry', 'entries')}), not with the layers.")
    else:
        flat = t.model_copy(update={"pp": 1})
        from quiz.footprint.items.pipeline import layers_held, stage_layers

        last_n = stage_layers(r.layers, t.pp)[-1]
        # ⌊L/p⌋ layers, one micro-batch in flight (1F1B), of the p × ⌈L/p⌉ the first stage holds
        last_layers = -(-layers * last_n // layers_held(t, r))
        out = (output_activation_bytes(flat, r) or 0) + (logits_bytes(flat, r) or 0)
        first = sum(i.bytes for i in training.items if i.name in (
            "activations", "embedding_activations"))
        notes.append(
            f"Pipeline stages: these activations are the first stage's, which keeps "
            f"{count_noun(t.pp, 'micro-batch', 'micro-batches')} in flight (1F1B; "
            f"{b(first)}). The last stage keeps one micro-batch through its "
            f"{count_noun(last_n, 'layer')} ({b(last_layers)}) plus the final norm, "
            f"output projection and logits ({b(out)}): {b(last_layers + out)}"
            + (", more than the first stage: it is the one that limits the fit."
               if last_layers + out > first else "."))
    return notes


def compute_notes(report: Report) -> list[str]:
    """``--explain`` notes on the compute figures: what 6ND leaves out, MFU against hardware
    FLOPs utilization, and the decode crossover with the KV cache reads counted."""
    spec, notes = report.spec, []
    r = spec.resolved
    figures = {q.name: q.value for q in report.compute}
    flops = figures.get("training_flops")
    if flops is not None:
        t = spec.training
        d = t.train_tokens if t.train_tokens is not None else spec.storage.dataset_tokens or 0
        text = (
            "Training FLOPs: 6ND counts 2N per token forward and 4N backward and leaves out "
            "attention's context-dependent products, as Kaplan et al. (2020, sec. 2.1) and "
            "Hoffmann et al. (2022) do for their scaling laws")
        if t.finetune != "full":
            six = 6 * report.model.active_params * d
            text = (
                f"Training FLOPs with adapters: (4N + 6Nₐ)D = {format_count(flops)}, not 6ND = "
                f"{format_count(six)} ({flops / six - 1:+.1%}): the backward pass through the "
                "frozen weights computes the gradients of their inputs (2N) but not of the "
                "weights (the other 2N); LoRA reports a 25 % speed-up over full fine-tuning of "
                "GPT-3 175B (Hu et al. 2021, sec. 4.2)"
                + (". QLoRA also dequantizes each 4-bit weight before its product, work the "
                   "FLOP count leaves out" if t.finetune == "qlora" else "")
                + ". Both counts leave out attention's context-dependent products, as Kaplan et "
                "al. (2020, sec. 2.1) and Hoffmann et al. (2022) do for their scaling laws")
        if r.heads and r.head_dim and r.layers:
            attn = 6 * r.layers * t.seq_len * r.heads * r.head_dim * d
            text += (
                f"; counting them (Kaplan's Table 1: 2 × layers × context × d_attn per token "
                f"forward, three times that with the backward pass) adds "
                f"{format_count(attn)} FLOPs here ({attn / flops:+.1%})")
        text += (
            f". The training time assumes MFU {t.mfu:g} (--mfu; the default 0.4 is an "
            "assumption, not a measurement: PaLM 540B reached 46.2 % on TPU v4, Chowdhery et "
            "al. 2022, Table 3). MFU counts model FLOPs only")
        hardware = figures.get("training_hardware_flops")
        if hardware is not None:
            text += (
                f"; with {_RECOMPUTE[t.recompute]} the GPUs execute {format_count(hardware)} "
                f"FLOPs, so the hardware FLOPs utilization is {hardware / flops:.3f} × the MFU "
                "for the same run time (Chowdhery et al. 2022, app. B)")
        else:
            text += ("; with recomputation the hardware executes more (8ND with full "
                     "recomputation) and the MFU a run reaches drops accordingly")
        notes.append(text + ".")
    gpu = report.gpu
    batch_needed = figures.get("decode_crossover_batch")
    inf = report.inference
    if batch_needed is not None and gpu is not None and gpu.bandwidth and inf is not None:
        peak = gpu.peak_flops[INFERENCE_FORMAT[spec.inference.weights]]
        n = report.model.active_params
        weights = sum(i.bytes for i in inf.items if i.name in ("weights", "quantization_overhead"))
        kv = inf.item("kv_cache")
        text = (
            f"Decode roofline: below a batch of {format_count(batch_needed)} a decoding step is "
            "bound by reading the weights, above it by the matrix units; the throughput figure "
            "is an upper bound (it assumes every byte moves at the datasheet bandwidth and "
            "ignores kernel launch and scheduling time)")
        per_token = kv_json(spec.inference, spec.resolved, 1)["bytes_per_token"]
        if kv is not None and spec.inference.batch and per_token:
            # One sequence reads its whole context's keys and values once per step, one copy
            # of each head (replicas on other GPUs are read by those GPUs, for their heads).
            per_seq = per_token * spec.inference.context
            denominator = 2 * n * gpu.bandwidth - per_seq * peak
            if denominator <= 0:
                text += (
                    f". Counting the KV cache each sequence reads per step "
                    f"({count_noun(per_seq, 'byte')} at "
                    f"{count_noun(spec.inference.context, 'token')}), decode never becomes "
                    "compute-bound at this context: attention reads "
                    "about a byte per FLOP")
            else:
                with_kv = ceil_div(weights * peak, denominator)
                text += (
                    f". Counting the KV cache each sequence reads per step "
                    f"({count_noun(per_seq, 'byte')}), the crossover moves to a batch of "
                    f"{format_count(with_kv)}")
        notes.append(text + ".")
    return notes
