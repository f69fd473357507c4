#!/usr/bin/env python3
"""Propose (or apply, with --apply) {{ figure | UNIT:digits }} placeholders for the hand-typed
figures of every question with a worked_example scenario in the given bank files.

A number with a size unit (GB, GiB, TB, MB, ...), a byte count ("13,476,831,232 bytes") or a
parameter count ("6,738,415,616", "6.74 billion") is replaced when it equals one of the
scenario's figures at the digits written. Where several figures share the value, the one whose
name matches a word just before the number ("gradients", "KV cache", ...) wins.

Usage: python3 tools/placeholderize.py question_bank/memory.yaml ... [--apply]
"""
from __future__ import annotations

import re
import sys
from fractions import Fraction

import yaml

from quiz.bank.computed.figures import Figures, figure_kinds
from quiz.footprint import FootprintSpec

SIZE = {"B": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
        "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
NUM = r"(?<![\w.,{])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?"
SIZE_RE = re.compile(NUM + r"\s?(GB|GiB|TB|TiB|MB|MiB|PB)\b(?!/)")
BYTES_RE = re.compile(r"(?<![\w.,{])(\d{1,3}(?:,\d{3})+)\s+bytes\b")
COUNT_RE = re.compile(r"(?<![\w.,{])(\d{1,3}(?:,\d{3}){2,})(?![\d,]*\s*bytes)(?!\.\d)")
BILLION_RE = re.compile(r"(?<![\w.,{])(\d+)\.(\d+)\s(billion)\b")
HINTS = [("gradient", "gradients"), ("master", "master_weights"), ("moment", "optimizer_states"),
         ("optimizer", "optimizer_states"), ("adam", "optimizer_states"), ("kv", "kv_cache"),
         ("cache", "kv_cache"), ("activation", "activations"), ("logit", "logits"),
         ("scale", "quantization_overhead"), ("checkpoint", "checkpoints"),
         ("dataset", "dataset"), ("token", "dataset"), ("file", "inference_artifact"),
         ("artifact", "inference_artifact"), ("weights", "weights"), ("total", "total"),
         ("left", "headroom"), ("spare", "headroom"), ("reports", "memory"), ("h100", "memory"),
         ("gpu", "memory")]
ORDER = ["training.total", "training.model_states",
         "training.weights", "training.gradients", "training.master_weights",
         "training.optimizer_states", "training.activations", "training.logits",
         "training.headroom", "training.cpu_total", "training.adapter_weights",
         "training.quantization_overhead",
         "inference.total", "inference.weights", "inference.kv_cache",
         "inference.quantization_overhead", "inference.activations", "inference.logits",
         "inference.headroom", "storage.inference_artifact", "storage.checkpoints",
         "storage.dataset", "storage.total", "gpu.memory"]
TEXT_KEYS = ("question", "short_explanation", "full_explanation", "caption")


def figures_of(fp: dict) -> dict[str, int]:
    figs = Figures(FootprintSpec.model_validate(fp))
    kinds = figure_kinds()
    out: dict[str, int] = {}
    names = ORDER + [n for n in kinds if n not in ORDER]
    for name in names:
        if name.startswith(("scenario.", "model.")) or "." not in name and name not in (
                "params", "active_params"):
            continue
        if kinds.get(name) not in ("size", "count"):
            continue
        try:
            v = figs.get(name)
        except Exception:
            continue
        if isinstance(v, int) and v > 0:
            out[name] = v
    for name in ("params", "active_params"):
        try:
            out[name] = int(figs.get(name))
        except Exception:
            pass
    return out


def rounds(exact: int, whole: str, frac: str | None, scale: int) -> bool:
    digits = len(frac or "")
    written = Fraction(int(whole.replace(",", "") + (frac or "")), 10**digits) * scale
    step = Fraction(scale, 10**digits)
    return abs(Fraction(exact) - written) < step / 2 + Fraction(1, 10**9)


def pick(cands: list[str], before: str) -> str:
    low = before.lower()
    best = None
    for word, item in HINTS:
        pos = low.rfind(word)
        if pos >= 0:
            for c in cands:
                if c.endswith(item) and (best is None or pos > best[0]):
                    best = (pos, c)
    return best[1] if best else cands[0]


def convert(text: str, figs: dict[str, int], log: list[str]) -> str:
    sizes = {n: v for n, v in figs.items() if n not in ("params", "active_params")
             and not n.startswith("compute.") and not n.endswith(("devices", "gpus_needed"))}

    def size_sub(m: re.Match) -> str:
        whole, frac, unit = m.group(1), m.group(2), m.group(3)
        if not int(whole.replace(",", "") + (frac or "0")):
            return m.group(0)
        cands = [n for n, v in sizes.items() if rounds(v, whole, frac, SIZE[unit])]
        if not cands:
            return m.group(0)
        name = pick(cands, text[max(0, m.start() - 60):m.start()])
        d = len(frac or "")
        new = f"{{{{ {name} | {unit}:{d} }}}}"
        log.append(f"   {m.group(0)!r:>16} -> {new}")
        return new

    def bytes_sub(m: re.Match) -> str:
        cands = [n for n, v in sizes.items() if v == int(m.group(1).replace(",", ""))]
        if not cands:
            return m.group(0)
        name = pick(cands, text[max(0, m.start() - 60):m.start()])
        log.append(f"   {m.group(0)!r:>16} -> {{{{ {name} | B }}}} bytes")
        return f"{{{{ {name} | B }}}}"

    def count_sub(m: re.Match) -> str:
        v = int(m.group(1).replace(",", ""))
        for name in ("params", "active_params"):
            if figs.get(name) == v:
                log.append(f"   {m.group(0)!r:>16} -> {{{{ {name} }}}}")
                return f"{{{{ {name} }}}}"
        return m.group(0)

    def billion_sub(m: re.Match) -> str:
        for name in ("params", "active_params"):
            if name in figs and rounds(figs[name], m.group(1), m.group(2), 10**9):
                new = f"{{{{ {name} | billion:{len(m.group(2))} }}}}"
                log.append(f"   {m.group(0)!r:>16} -> {new}")
                return new
        return m.group(0)

    text = BYTES_RE.sub(bytes_sub, text)
    text = SIZE_RE.sub(size_sub, text)
    text = COUNT_RE.sub(count_sub, text)
    text = BILLION_RE.sub(billion_sub, text)
    return text


def main() -> None:
    apply = "--apply" in sys.argv
    for path in [a for a in sys.argv[1:] if not a.startswith("--")]:
        src = open(path, encoding="utf-8").read()
        parts = re.split(r"(?m)^(?=  - id: )", src)
        out = [parts[0]]
        for block in parts[1:]:
            q = yaml.safe_load(block)[0]
            we = q.get("worked_example") or {}
            if "footprint" not in we or "vary" in q:
                out.append(block)
                continue
            figs = figures_of(we["footprint"])
            log: list[str] = []
            lines = block.split("\n")
            # only text fields: skip references, tags, footprint/expect lines
            skip = False
            new_lines = []
            key = letter = ""
            answer = q.get("answer")
            keyed = set(answer) if isinstance(answer, list) else {answer}
            for line in lines:
                stripped = line.strip()
                top = re.match(r"^    (\w+):", line)
                if top:
                    key = top.group(1)
                sub = re.match(r"^      ([A-H]):", line)
                if sub:
                    letter = sub.group(1)
                if key == "options" and letter and letter not in keyed:
                    new_lines.append(line)
                    continue
                if re.match(r"^    (references|tags|worked_example|expect|lint):", line) or \
                        re.match(r"^\s+(footprint|expect|figure|value):", line) or \
                        re.match(r"^      - \"", line) and skip:
                    skip = stripped.startswith("references") or skip and stripped.startswith("- ")
                    new_lines.append(line)
                    continue
                if re.match(r"^    \w", line):
                    skip = False
                if skip:
                    new_lines.append(line)
                    continue
                new_lines.append(convert(line, figs, log))
            if log:
                print(f"{path}: {q['id']}")
                print("\n".join(log))
            out.append("\n".join(new_lines))
        if apply:
            open(path, "w", encoding="utf-8").write("".join(out))


if __name__ == "__main__":
    main()
