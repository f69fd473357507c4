"""``quiz footprint``: the calculator on the command line.

:func:`register` adds the ``footprint`` subcommand to the ``quiz`` parser; :func:`run` executes
it. Every numeric flag takes text (``--params 7B``, ``--dataset-tokens 2T``) and is validated by
:class:`~quiz.footprint.spec.FootprintSpec`, so the CLI and question banks accept exactly the same
values. Exit status: 0 on success, 2 for bad flags (message on stderr, never a traceback), 1 for
an unexpected internal error.

A value that looks like a negative number (``--dataset-size -5GB``, ``--params -7B``) is taken
as the flag's value and then rejected by the spec like any other ("must be positive"), not
mistaken for an unknown flag. ``--width`` takes 40 to 400 columns.

Also runnable alone: ``python -m quiz.footprint.cli --model llama-2-7b``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from quiz.footprint.spec import CHOICES
from quiz.footprint.units import format_count

MIN_WIDTH, MAX_WIDTH = 40, 400
"""Range of ``--width`` (columns)."""
DEFAULT_MAX_WIDTH = 160
"""Widest output when the width comes from the terminal rather than ``--width``."""

# (flag dest, section of the spec or None for the top level)
_FIELDS: tuple[tuple[str, str | None], ...] = (
    ("model", None),
    ("params", None),
    ("layers", None),
    ("hidden", None),
    ("heads", None),
    ("kv_heads", None),
    ("head_dim", None),
    ("ffn", None),
    ("vocab", None),
    ("tied_embeddings", None),
    ("gated_mlp", None),
    ("norm", None),
    ("linear_bias", None),
    ("learned_positions", None),
    ("experts", None),
    ("active_experts", None),
    ("sliding_window", None),
    ("sliding_layers", None),
    ("phase", None),
    ("gpu", None),
    ("units", None),
    ("precision", "training"),
    ("grad_precision", "training"),
    ("optimizer", "training"),
    ("zero", "training"),
    ("dp", "training"),
    ("tp", "training"),
    ("pp", "training"),
    ("sequence_parallel", "training"),
    ("micro_batch", "training"),
    ("seq_len", "training"),
    ("recompute", "training"),
    ("weights", "inference"),
    ("group_size", "inference"),
    ("kv_dtype", "inference"),
    ("batch", "inference"),
    ("context", "inference"),
    ("dataset_tokens", "storage"),
    ("dataset_size", "storage"),
    ("bytes_per_token", "storage"),
    ("checkpoints", "storage"),
    ("checkpoint_kind", "storage"),
)

_BOOLEAN_FLAGS = frozenset({"tied_embeddings", "gated_mlp", "linear_bias", "sequence_parallel"})
VALUE_FLAGS = frozenset(
    {"--" + dest.replace("_", "-") for dest, _ in _FIELDS if dest not in _BOOLEAN_FLAGS}
    | {"--width"}
)
"""The flags that take a value (``--dataset-size 500GB``)."""
_NEGATIVE_LOOKING = re.compile(r"-\.?\d")

EXAMPLES = """\
examples:
  quiz footprint --model llama-2-7b
  quiz footprint --model llama-2-70b --gpu h100-80gb --zero 3 --dp 64 --recompute selective
  quiz footprint --params 7.5B --phase training --precision mixed-fp16 --optimizer adam \\
                 --zero 3 --dp 64                       # ZeRO paper, Fig. 1
  quiz footprint --model llama-2-7b --phase inference --weights int4 --context 4096 --batch 8
  quiz footprint --model mistral-7b --json
  quiz footprint --list-presets

Numbers accept 4096, 7B, 6.7b, 7e9, 1_000, 2T. Sizes accept B, kB, MB, GB, TB, PB (powers of
1000) and KiB, MiB, GiB, TiB, PiB (powers of 1024): 500GB, 80GiB; bits spelt out: 8Gbit. A
lower-case b means bits, so 1Gb and 1Gib are refused as ambiguous (write 1GB or 1Gbit); a unit
all in lower case (500gb) is read as bytes.
Upper bounds: --params 10^15; --seq-len, --context 10^9 tokens; --micro-batch, --batch 10^7;
--dp, --tp, --pp 10^6; --dataset-tokens 10^16; --dataset-size 10^18 bytes (1 EB).
Sizes print in decimal units (kB, MB, GB, ...: powers of 1000) or, with --units GiB, binary
units (KiB, MiB, GiB, ...: powers of 1024), exact, two decimals rounded half up;
--json always reports bytes."""


def _width(text: str) -> int:
    """``--width``: a whole number of columns from :data:`MIN_WIDTH` to :data:`MAX_WIDTH`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of columns, not {text!r}"
        ) from None
    if not MIN_WIDTH <= value <= MAX_WIDTH:
        raise argparse.ArgumentTypeError(
            f"must be from {MIN_WIDTH} to {MAX_WIDTH} columns (got {format_count(value)})"
        )
    return value


def join_negative_values(args: Sequence[str]) -> list[str]:
    """Glue a negative-looking value to its flag: ``["--dataset-size", "-5GB"]`` →
    ``["--dataset-size=-5GB"]``, so that argparse reads it as the value (and the spec rejects it
    with its usual message) instead of as an unknown option. Stops at ``--``."""
    out: list[str] = []
    items = list(args)
    k = 0
    while k < len(items):
        arg = items[k]
        if arg == "--":
            out += items[k:]
            break
        nxt = items[k + 1] if k + 1 < len(items) else None
        if arg in VALUE_FLAGS and nxt is not None and _NEGATIVE_LOOKING.match(nxt):
            out.append(f"{arg}={nxt}")
            k += 2
            continue
        out.append(arg)
        k += 1
    return out


class FootprintParser(argparse.ArgumentParser):
    """The ``footprint`` parser: negative-looking values are values
    (:func:`join_negative_values`), and a usage error is one line plus a pointer to ``--help``
    rather than the whole usage of some forty flags."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        given = sys.argv[1:] if args is None else args
        return super().parse_known_args(join_negative_values(given), namespace)

    def error(self, message: str) -> NoReturn:
        message = re.sub(r"^argument (--[\w-]+)(?:/[\w-]+)*: ", r"\1: ", message)
        self.exit(2, f"{self.prog}: error: {message}\n(see {self.prog} --help)\n")


def _metavar(field: str) -> str:
    return "{" + ",".join(CHOICES[field]) + "}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add every ``quiz footprint`` flag to ``parser`` (values stay text until the spec
    validates them)."""
    model = parser.add_argument_group("model (a preset, a parameter count or an architecture)")
    model.add_argument(
        "--model", metavar="PRESET", help="model preset, e.g. llama-2-7b (see --list-presets)"
    )
    model.add_argument("--params", metavar="N", help="parameter count, e.g. 7e9, 7B, 6.7b")
    arch = parser.add_argument_group("architecture (overrides the preset's values)")
    for flag, meta, text in (
        ("layers", "N", "transformer layers"),
        ("hidden", "N", "hidden size (d_model)"),
        ("heads", "N", "attention (query) heads"),
        ("kv-heads", "N", "key/value heads (fewer than heads: grouped-query attention)"),
        ("head-dim", "N", "size of one head (default hidden / heads)"),
        ("ffn", "N", "MLP inner size (per expert)"),
        ("vocab", "N", "vocabulary size"),
        ("learned-positions", "N", "rows of a learned position table (0: rotary)"),
        ("experts", "N", "mixture of experts: experts per layer (memory counts all)"),
        ("active-experts", "K", "mixture of experts: experts active per token"),
        ("sliding-window", "TOKENS", "sliding attention window"),
        ("sliding-layers", "N", "layers with the sliding window (default all)"),
    ):
        arch.add_argument(f"--{flag}", metavar=meta, help=text)
    for flag, text in (
        ("tied-embeddings", "the LM head shares the embedding matrix"),
        ("gated-mlp", "gated (SwiGLU) MLP with 3 matrices"),
        ("linear-bias", "linear layers have biases"),
    ):
        arch.add_argument(
            f"--{flag}", action=argparse.BooleanOptionalAction, default=None, help=text
        )
    arch.add_argument("--norm", metavar=_metavar("norm"), help="normalisation layers")
    parser.add_argument(
        "--phase", metavar=_metavar("phase"), help="phase(s) to estimate (default both)"
    )
    train = parser.add_argument_group("training")
    train.add_argument(
        "--precision",
        metavar=_metavar("precision"),
        help="default mixed-bf16 (BF16 weights, FP32 master copy)",
    )
    train.add_argument(
        "--grad-precision",
        metavar=_metavar("grad_precision"),
        help="gradient dtype (default: that of the weights, 16-bit in mixed "
        "precision as in the ZeRO paper)",
    )
    train.add_argument("--optimizer", metavar=_metavar("optimizer"), help="default adamw")
    train.add_argument("--zero", metavar="{0,1,2,3}", help="ZeRO stage (default 0)")
    train.add_argument("--dp", metavar="N", help="data-parallel size (default 1)")
    train.add_argument("--tp", metavar="N", help="tensor-parallel size (default 1)")
    train.add_argument("--pp", metavar="N", help="pipeline-parallel size (default 1)")
    train.add_argument(
        "--sequence-parallel",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Megatron sequence parallelism (with --tp)",
    )
    train.add_argument("--micro-batch", metavar="N", help="sequences per micro-batch (default 1)")
    train.add_argument("--seq-len", metavar="N", help="tokens per sequence (default 2048)")
    train.add_argument(
        "--recompute", metavar=_metavar("recompute"), help="activation recomputation (default none)"
    )
    inf = parser.add_argument_group("inference")
    inf.add_argument("--weights", metavar=_metavar("weights"), help="weight format (default bf16)")
    inf.add_argument("--group-size", metavar="N", help="INT8/INT4 quantization group (default 128)")
    inf.add_argument(
        "--kv-dtype", metavar=_metavar("kv_dtype"), help="KV cache dtype (default 16-bit)"
    )
    inf.add_argument("--batch", metavar="N", help="concurrent sequences (default 1)")
    inf.add_argument("--context", metavar="N", help="tokens held per sequence (default 2048)")
    store = parser.add_argument_group("storage")
    store.add_argument("--dataset-tokens", metavar="N", help="training tokens, e.g. 2T")
    store.add_argument("--dataset-size", metavar="SIZE", help="dataset size, e.g. 500GB")
    store.add_argument(
        "--bytes-per-token",
        metavar="N",
        help="bytes per stored token id (default 2 for vocabularies under 65,500, else 4)",
    )
    store.add_argument("--checkpoints", metavar="N", help="checkpoints kept (default 1)")
    store.add_argument(
        "--checkpoint-kind",
        metavar=_metavar("checkpoint_kind"),
        help="full training state (default) or weights only",
    )
    out = parser.add_argument_group("output")
    out.add_argument("--gpu", metavar="PRESET", help="GPU preset for the fit, e.g. h100-80gb")
    out.add_argument(
        "--units", metavar="{GB,GiB}", help="GB = 10^9 bytes (default), GiB = 2^30 bytes"
    )
    out.add_argument("--json", action="store_true", help="print the JSON report (bytes)")
    out.add_argument(
        "--explain", action="store_true", help="also say how common tools count this case"
    )
    out.add_argument(
        "--width",
        metavar="COLUMNS",
        type=_width,
        default=None,
        help=f"output width, {MIN_WIDTH} to {MAX_WIDTH} (default: the terminal's, at most "
        f"{DEFAULT_MAX_WIDTH})",
    )
    out.add_argument("--list-presets", action="store_true", help="list model and GPU presets")


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``footprint`` subcommand with all its flags; ``set_defaults(func=run)``."""
    parser = subparsers.add_parser(
        "footprint",
        help="training vs inference memory and storage, with the arithmetic shown",
        description="Estimate the memory (per device) and storage of training and serving a "
        "model, showing every formula and its source.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # add_parser builds a plain ArgumentParser; FootprintParser only overrides methods.
    parser.__class__ = FootprintParser
    add_arguments(parser)
    parser.set_defaults(func=run)


def spec_mapping(ns: argparse.Namespace) -> dict[str, Any]:
    """The spec mapping (bank form) expressed by the parsed flags: only flags that were given."""
    data: dict[str, Any] = {}
    for dest, section in _FIELDS:
        value = getattr(ns, dest, None)
        if value is None:
            continue
        if section is None:
            data[dest] = value
        else:
            data.setdefault(section, {})[dest] = value
    return data


def _flag(loc: tuple[Any, ...]) -> str:
    names = [str(part) for part in loc if not isinstance(part, int)]
    return f"--{names[-1].replace('_', '-')}: " if names else ""


def _list_presets() -> str:
    from quiz.footprint.presets import gpu_presets, model_presets
    from quiz.footprint.units import format_bytes

    lines = ["Model presets (parameters computed from the architecture):"]
    for p in model_presets().values():
        lines.append(f"  {p.id:<14} {p.name:<20} {format_count(p.params):>17}")
    lines.append("")
    lines.append("GPU presets (memory as the driver reports it):")
    for g in gpu_presets().values():
        lines.append(
            f"  {g.id:<14} {g.name:<32} {format_bytes(g.memory_bytes, 'GB'):>10} "
            f"= {format_bytes(g.memory_bytes, 'GiB')}"
        )
    return "\n".join(lines)


def _presets_json() -> dict[str, Any]:
    """``{"models": [...], "gpus": [...]}``: every preset with its numbers and sources."""
    from quiz.footprint.presets import gpu_presets, model_presets

    models = [
        {
            "id": p.id,
            "name": p.name,
            "params": p.params,
            "published_params": p.published_params,
            "published_params_source": p.published_params_source,
            "context": p.context,
            "source": p.source,
            "sources": dict(p.sources),
        }
        for p in model_presets().values()
    ]
    gpus = [
        {
            "id": g.id,
            "name": g.name,
            "memory_bytes": g.memory_bytes,
            "datasheet": g.datasheet,
            "source": g.source,
        }
        for g in gpu_presets().values()
    ]
    return {"models": models, "gpus": gpus}


def _write(text: str) -> None:
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `quiz footprint ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run(ns: argparse.Namespace) -> int:
    """Run ``quiz footprint`` for parsed flags ``ns``: print the report (or JSON) to stdout.

    ``--json`` prints :meth:`~quiz.footprint.report.Report.to_json` (with ``--explain``, plus an
    ``"explain"`` list of notes); ``--list-presets --json`` prints ``{"models": [...],
    "gpus": [...]}``.

    Returns:
        0 on success; 2 for invalid flags (each problem on stderr as
        ``quiz footprint: error: --zero: ZeRO stage must be 0, 1, 2 or 3 (got 4)``); 1 for an
        unexpected internal error (one line on stderr, no traceback).
    """
    from pydantic import ValidationError

    try:
        as_json = getattr(ns, "json", False)
        if getattr(ns, "list_presets", False):
            if as_json:
                _write(json.dumps(_presets_json(), indent=2, ensure_ascii=False))
            else:
                _write(_list_presets())
            return 0
        width = getattr(ns, "width", None)
        if width is not None and not MIN_WIDTH <= width <= MAX_WIDTH:
            print(
                f"quiz footprint: error: --width: must be from {MIN_WIDTH} to {MAX_WIDTH} "
                f"columns (got {format_count(width)})",
                file=sys.stderr,
            )
            return 2
        from quiz.footprint.engine import estimate
        from quiz.footprint.render import render_report
        from quiz.footprint.spec import FootprintSpec, error_lines

        try:
            spec = FootprintSpec.from_mapping(spec_mapping(ns))
        except ValidationError as exc:
            for loc, message in error_lines(exc):
                print(f"quiz footprint: error: {_flag(loc)}{message}", file=sys.stderr)
            return 2
        report = estimate(spec)
        explain = getattr(ns, "explain", False)
        if as_json:
            data = report.to_json()
            if explain:
                from quiz.footprint.explain import explain_notes

                data["explain"] = explain_notes(report, units=spec.units)
            _write(json.dumps(data, indent=2, ensure_ascii=False))
            return 0
        if width is None:
            columns = shutil.get_terminal_size((80, 24)).columns
            width = min(max(columns, MIN_WIDTH), DEFAULT_MAX_WIDTH)
        _write(render_report(report, width=width, units=spec.units, explain=explain))
        return 0
    except Exception as exc:  # noqa: BLE001 - the CLI promises no traceback
        print(f"quiz footprint: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m quiz.footprint.cli``: the ``footprint`` flags alone."""
    parser = argparse.ArgumentParser(prog="quiz")
    subparsers = parser.add_subparsers(dest="command")
    register(subparsers)
    args = list(sys.argv[1:] if argv is None else argv)
    ns = parser.parse_args(["footprint", *args])
    status: int = ns.func(ns)
    return status


if __name__ == "__main__":
    sys.exit(main())
