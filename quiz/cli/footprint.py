"""``quiz footprint``: the calculator on the command line.

:func:`register` adds the ``footprint`` subcommand to the ``quiz`` parser; :func:`run` executes
it. Every numeric flag takes text (``--params 7B``, ``--dataset-tokens 2T``) and is validated by
:class:`~quiz.footprint.inputs.spec.FootprintSpec`, so the CLI and question banks accept exactly
the same
values. Exit status: 0 on success, 2 for bad flags (message on stderr, never a traceback), 1 for
an unexpected internal error.

A value that looks like a negative number (``--dataset-size -5GB``, ``--params -7B``) is taken
as the flag's value and then rejected by the spec like any other ("must be positive"), not
mistaken for an unknown flag. ``--width`` takes 40 to 400 columns.

Also runnable alone: ``python -m quiz.cli.footprint --model llama-2-7b``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from quiz.footprint.inputs.fields import SpecField, bounds_text
from quiz.footprint.inputs.spec import spec_fields
from quiz.footprint.inputs.units import format_count

MIN_WIDTH, MAX_WIDTH = 40, 400
"""Range of ``--width`` (columns)."""
DEFAULT_MAX_WIDTH = 160
"""Widest output when the width comes from the terminal rather than ``--width``."""

FIELDS = spec_fields()
"""The spec's fields (:func:`quiz.footprint.inputs.spec.spec_fields`): one flag each."""

VALUE_FLAGS = frozenset({f.flag for f in FIELDS if f.kind != "yes_no"} | {"--width"})
"""The flags that take a value (``--dataset-size 500GB``)."""
_NEGATIVE_LOOKING = re.compile(r"-\.?\d")

EXAMPLES = """\
examples:
  quiz footprint --model llama-2-7b
  quiz footprint --model llama-2-70b --gpu h100-80gb --zero 3 --dp 64 --recompute selective
  quiz footprint --params 7.5B --phase training --precision mixed-fp16 --optimizer adam \\
                 --zero 3 --dp 64                       # ZeRO paper, Fig. 1
  quiz footprint --model llama-2-7b --phase inference --weights int4 --context 4096 --batch 8
  quiz footprint --model llama-2-7b --gpu a100-80gb --train-tokens 2T --dp 1024 \\
                 --zero 3 --mfu 0.4         # training FLOPs and time; decode tokens/s
  quiz footprint --model mistral-7b --json
  quiz footprint --list-presets

Numbers accept 4096, 7B, 6.7b, 7e9, 1_000, 2T. Sizes accept B, kB, MB, GB, TB, PB (powers of
1000) and KiB, MiB, GiB, TiB, PiB (powers of 1024): 500GB, 80GiB; bits spelt out: 8Gbit. A
lower-case b means bits, so 1Gb and 1Gib are refused as ambiguous (write 1GB or 1Gbit); a unit
all in lower case (500gb) is read as bytes.
Upper bounds: {bounds}.
Sizes print in decimal units (kB, MB, GB, ...: powers of 1000) or, with --units GiB, binary
units (KiB, MiB, GiB, ...: powers of 1024), exact, two decimals rounded half up;
--json always reports bytes."""

_GROUPS = {
    "model": "model (a preset, a parameter count or an architecture)",
    "architecture": "architecture (overrides the preset's values)",
    "": "",
    "training": "training",
    "inference": "inference",
    "storage": "storage",
    "output": "output",
}
"""``--help`` groups in order: a top-level field's ``Doc.group``, or a nested field's section
(``""``: no group)."""


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
        unknown = re.match(r"unrecognized arguments: (\S+)", message)
        if unknown:
            flag = unknown.group(1).split("=", 1)[0]
            known = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
            close = difflib.get_close_matches(flag, known, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {close[0]}?"
        self.exit(2, f"{self.prog}: error: {message}\n(see {self.prog} --help)\n")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """``--help`` wrapped at spaces only: a flag name (``--tied-embeddings``, ``--no-double-quant``)
    is never split over two lines, as textwrap's default break at hyphens would (issue 21 §7).
    The description and epilog stay as written (raw)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = " ".join(text.split())
        return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)


def _description() -> str:
    return ("Estimate the memory (per device) and storage of training and serving a model, "
            "showing every formula and its source.")


def _epilog() -> str:
    return EXAMPLES.format(bounds="\n".join(
        textwrap.wrap(bounds_text(FIELDS), 78, subsequent_indent="  ", break_on_hyphens=False)))


def build_parser(prog: str = "quiz footprint") -> FootprintParser:
    """The ``quiz footprint`` parser on its own: its usage errors name ``prog`` and its flags
    (``quiz footprint: error: unrecognized arguments: --bogus; did you mean ...?``), not an
    outer parser's."""
    parser = FootprintParser(prog=prog, description=_description(), epilog=_epilog(),
                             formatter_class=HelpFormatter)
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser


def _help(field: SpecField) -> str:
    default = field.default_text
    return field.doc.help + (f" (default {default})" if default is not None else "")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add every ``quiz footprint`` flag to ``parser``, one per spec field (values stay text
    until the spec validates them), plus the output flags."""
    groups: dict[str, Any] = {
        key: parser.add_argument_group(title) if title else parser for key, title in _GROUPS.items()
    }
    for field in FIELDS:
        group = groups[field.section or field.doc.group]
        if field.kind == "yes_no":
            # --flag, --flag=yes|no (the spec validates the word) and --no-flag
            group.add_argument(field.flag, dest=field.name, nargs="?", const="true",
                               metavar="yes|no", help=_help(field) + f"; {field.flag} alone "
                               f"means yes, --no-{field.flag[2:]} means no")
            group.add_argument(f"--no-{field.flag[2:]}", dest=field.name, action="store_const",
                               const="false", help=argparse.SUPPRESS)
            continue
        metavar = field.doc.metavar or "VALUE"
        if field.choices:
            metavar = "{" + ",".join(field.choices) + "}"
        group.add_argument(field.flag, metavar=metavar, help=_help(field))
    out = groups["output"]
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
        description=_description(),
        epilog=_epilog(),
        formatter_class=HelpFormatter,
    )
    # add_parser builds a plain ArgumentParser; FootprintParser only overrides methods.
    parser.__class__ = FootprintParser
    add_arguments(parser)
    parser.set_defaults(func=run)


def spec_mapping(ns: argparse.Namespace) -> dict[str, Any]:
    """The spec mapping (bank form) expressed by the parsed flags: only flags that were given."""
    data: dict[str, Any] = {}
    for field in FIELDS:
        value = getattr(ns, field.name, None)
        if value is None:
            continue
        if field.section is None:
            data[field.name] = value
        else:
            data.setdefault(field.section, {})[field.name] = value
    return data


def flag_name(key: str) -> str:
    """The flag of a spec key: ``"training.micro_batch"`` → ``"--micro-batch"``."""
    return "--" + key.rpartition(".")[2].replace("_", "-")


_KEYS = {f.name for f in FIELDS}


def flags_in(message: str) -> str:
    """A spec message with its key names as flags, for the command line: ``"give a model preset
    (model), a parameter count (params) ... (missing: layers, hidden)"`` → ``"... (--model) ...
    (--params) ... (missing: --layers, --hidden)"``; a key with ``_`` (``head_dim``) anywhere.
    Plain words are left alone outside those places."""
    def one(match: re.Match[str]) -> str:
        word = match.group(0)
        return flag_name(word) if word in _KEYS else word

    message = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", one, message)
    message = re.sub(r"(?<=\()[a-z]+(?=\))", one, message)
    return re.sub(r"(?<=missing: )[a-z, -]+",
                  lambda m: re.sub(r"[a-z]+(?:-[a-z]+)*", one, m.group(0)), message)


def _flag(loc: tuple[Any, ...]) -> str:
    names = [str(part) for part in loc if not isinstance(part, int)]
    return f"--{names[-1].replace('_', '-')}: " if names else ""


def _list_presets() -> str:
    from quiz.footprint.inputs.presets import gpu_presets, model_presets
    from quiz.footprint.inputs.units import format_bytes

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
    from quiz.footprint.inputs.presets import gpu_presets, model_presets

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

    ``--json`` prints :meth:`~quiz.footprint.engine.report.Report.to_json` (with ``--explain``,
    plus an
    ``"explain"`` list of notes); ``--list-presets --json`` prints ``{"models": [...],
    "gpus": [...]}``.

    Returns:
        0 on success; 2 for invalid flags (each problem on stderr as
        ``quiz footprint: error: --zero: ZeRO stage must be 0, 1, 2 or 3 (got 4)``); 1 for an
        unexpected internal error (one line on stderr; the traceback too with ``QUIZ_DEBUG=1``).
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
        from quiz.footprint.engine.estimate import estimate
        from quiz.footprint.inputs.spec import FootprintSpec, error_lines
        from quiz.footprint.words.render import render_report, setting_lines

        try:
            spec = FootprintSpec.from_mapping(spec_mapping(ns))
        except ValidationError as exc:
            for loc, message in error_lines(exc):
                print(f"quiz footprint: error: {_flag(loc)}{flags_in(message)}",
                      file=sys.stderr)
            return 2
        report = estimate(spec)
        explain = getattr(ns, "explain", False)
        if as_json:  # the JSON stays the contract; warnings and notes go to stderr
            for warning in report.warnings:
                print(f"quiz footprint: warning: {warning}", file=sys.stderr)
            for line in setting_lines(report, flag_name):
                print(f"quiz footprint: note: {line}", file=sys.stderr)
            data = report.to_json()
            if explain:
                from quiz.footprint.words.explain import explain_notes

                data["explain"] = explain_notes(report, units=spec.units)
            _write(json.dumps(data, indent=2, ensure_ascii=False))
            return 0
        if width is None:
            columns = shutil.get_terminal_size((80, 24)).columns
            width = min(max(columns, MIN_WIDTH), DEFAULT_MAX_WIDTH)
        _write(render_report(report, width=width, units=spec.units, explain=explain,
                             name=flag_name))
        for warning in report.warnings:  # also where a script watching stderr sees it
            print(f"quiz footprint: warning: {warning}", file=sys.stderr)
        return 0
    except Exception as exc:  # noqa: BLE001 - the CLI promises no traceback
        from quiz.debug import HINT, show_traceback

        print(f"quiz footprint: internal error: {type(exc).__name__}: {exc} ({HINT})",
              file=sys.stderr)
        show_traceback(exc)
        return 1


def main(argv: list[str] | None = None) -> int:
    """``quiz footprint ARGS`` (and ``python -m quiz.cli.footprint ARGS``): parse the flags with
    :func:`build_parser` and :func:`run` them. Returns the exit status of :func:`run`; ``--help``
    and usage errors raise ``SystemExit`` (0 and 2) as argparse does."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run(build_parser().parse_args(args))  # a usage error raises SystemExit(2)


if __name__ == "__main__":
    sys.exit(main())
