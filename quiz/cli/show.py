"""``quiz show BANK... ID [--seed N] [--json]``: one question as a student sees it, then every
section of its reveal, as plain text, so instructors can review content without the TUI.

A computed question (issue 20) is shown in one variant: its first without ``--seed``, the one the
seed draws with it; with a seed the options are also shuffled as a session shuffles them.
``--json`` prints the bank's own field names with every text rendered, plus ``variant`` (the
drawn values keyed as in ``vary``; ``{}`` without ``vary``).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import Any

from quiz.cli.status import EXIT_ERRORS, EXIT_OK, EXIT_USAGE

_WIDTH = 78
"""Columns the text is wrapped to."""


def run_show(argv: Sequence[str]) -> int:
    """Parse the arguments, load the banks, print the question; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="quiz show",
        description="Print one question as a student sees it, then every section of its "
        "reveal, as plain text. A computed question is shown in its first variant, or in "
        "the one --seed draws.")
    parser.add_argument("args", nargs="+", metavar="BANK... ID",
                        help="bank files or folders, then the question id")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="draw the variant and shuffle the options with this seed")
    parser.add_argument("--json", action="store_true",
                        help="print the question as JSON, with the bank's field names")
    ns = parser.parse_args(argv)
    if len(ns.args) < 2:
        parser.error("give at least one bank and a question id")
    *banks, question_id = ns.args
    from quiz.bank.load import load_library

    report = load_library(banks)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    for diag in errors:
        print(diag)
    if report.library is None:
        print(f"{len(errors)} error(s): fix them (quiz validate) and try again")
        return EXIT_ERRORS
    found = {q.id: q for q in report.library.questions}
    question = found.get(question_id)
    if question is None:
        import difflib

        close = difflib.get_close_matches(question_id, list(found), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        print(f"quiz show: no question {question_id!r} in these banks{hint}", file=sys.stderr)
        return EXIT_USAGE
    from quiz.bank.variants import drawn_variant

    shown = drawn_variant(question, ns.seed)
    data = as_data(shown, ns.seed)
    if ns.json:
        import json

        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        from quiz.bank.terminal import terminal_safe

        # Bank text is data: a control character is shown as its picture (ESC as ␛), never
        # sent to the terminal (as the app and quiz validate show it).
        print("\n".join(terminal_safe(line) for line in as_text(data).split("\n")))
    return EXIT_OK


def as_data(question: Any, seed: int | None) -> dict[str, Any]:
    """``question`` (a rendered :class:`~quiz.bank.model.Question`) as the bank's field names,
    its options relettered in the order shown (shuffled by ``seed`` unless the question keeps
    its order), with ``variant`` and the worked example's derivation steps."""
    keys = list(question.options)
    if seed is not None and not question.keeps_order:
        random.Random(f"{seed}:{question.id}").shuffle(keys)
    letter = {key: "ABCDEFGH"[i] for i, key in enumerate(keys)}
    answer = sorted(letter[k] for k in question.answer_keys)
    data: dict[str, Any] = {
        "id": question.id, "topic": question.topic, "difficulty": question.difficulty,
        "question": question.stem,
        "options": {letter[k]: question.options[k] for k in keys},
        "answer": answer if question.multiple_response else answer[0],
        "short_explanation": question.short_explanation,
        "infographic": None, "full_explanation": question.full_explanation,
        "distractor_review": {letter[k]: v for k, v in sorted(
            question.distractor_review.items(), key=lambda kv: letter[kv[0]])},
        "worked_example": None, "references": list(question.references),
        "variant": question.variant,
    }
    info = question.infographic
    if info is not None:
        data["infographic"] = {"caption": info.caption, "kind": info.kind}
        if info.table is not None:
            data["infographic"].update(columns=info.table.columns, rows=info.table.rows)
        elif info.text is not None:
            data["infographic"]["text"] = info.text
        else:
            data["infographic"]["footprint"] = info.footprint.to_mapping()
    example = question.worked_example
    if example is not None:
        from quiz.footprint import derivation_steps, estimate

        data["worked_example"] = {
            "caption": example.caption, "footprint": example.footprint.to_mapping(),
            "steps": derivation_steps(estimate(example.footprint), units=example.footprint.units)}
    return data


def _wrapped(text: str, indent: str = "") -> str:
    import textwrap

    paragraphs = text.split("\n")
    return "\n".join(textwrap.fill(p, _WIDTH, initial_indent=indent, subsequent_indent=indent)
                     if p.strip() else "" for p in paragraphs)


def as_text(data: dict[str, Any]) -> str:
    """The question then its reveal, as plain text wrapped to 78 columns."""
    out = [f"{data['id']} ({data['topic']})"]
    if data["variant"]:
        out[0] += "  variant: " + ", ".join(f"{k}={v}" for k, v in data["variant"].items())
    out += ["", _wrapped(data["question"]), ""]
    out += [_wrapped(f"{k}. {v}", "") for k, v in data["options"].items()]
    answer = data["answer"]
    out += ["", "Answer: " + (", ".join(answer) if isinstance(answer, list) else answer), "",
            "Short explanation", _wrapped(data["short_explanation"], "  ")]
    info = data["infographic"]
    if info is not None:
        out += ["", "Infographic" + (f": {info['caption']}" if info.get("caption") else "")]
        if "rows" in info:
            out += ["  " + " | ".join(info["columns"])]
            out += ["  " + " | ".join(row) for row in info["rows"]]
        elif "text" in info:
            out += ["  " + line for line in info["text"].split("\n")]
        else:
            from quiz.footprint import FootprintSpec, estimate, render_bars

            spec = FootprintSpec.from_mapping(info["footprint"])
            out += [render_bars(estimate(spec), width=_WIDTH, units=spec.units)]
    out += ["", "Full explanation", _wrapped(data["full_explanation"], "  ")]
    if data["distractor_review"]:
        out += ["", "Distractor review"]
        out += [_wrapped(f"{k}. {v}", "  ") for k, v in data["distractor_review"].items()]
    example = data["worked_example"]
    if example is not None:
        out += ["", "Worked example" + (f": {example['caption']}" if example["caption"] else "")]
        out += [_wrapped(step, "  ") for step in example["steps"]]
    if data["references"]:
        out += ["", "References"] + [_wrapped(r, "  ") for r in data["references"]]
    return "\n".join(out)
