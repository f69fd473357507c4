#!/usr/bin/env python3
"""Print a census of a question-bank folder and its item-writing cue statistics.

Usage: python3 tools/bank_census.py [FOLDER] [--files a.yaml,b.yaml]

Counts questions per topic and difficulty, multiple-response items and their key
letters, computed questions ({{ figure }} placeholders or answer_figure), questions
with `vary:`, and the cues reviewers look for: the keyed option strictly longest
or shortest among single-answer questions, absolute words in distractors against
keys, stems over 60 words, references without a URL/DOI/arXiv id, and short
explanations that hold arithmetic.
"""
from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

import yaml

ABSOLUTE = re.compile(r"\b(always|never|must|cannot|can't|at all|completely|whatever|however long|only|every|none|all)\b", re.I)
STRONG_ABS = re.compile(r"\b(always|never|must|cannot|at all|completely|whatever|however long)\b", re.I)
SOURCE = re.compile(r"(https?://|doi\.org|\bdoi:|arXiv:?\s*\d{4}\.\d{4,5})", re.I)
ARITH = re.compile(r"\d\s*[x×*/+=]\s*\d|\d+(\.\d+)?\s*(GB|GiB|TB|MB|GB/s|ms)\b")


def words(text: str) -> int:
    return len(re.findall(r"\S+", text))


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    folder = Path(args[0] if args else "question_bank")
    only: set[str] | None = None
    if "--files" in sys.argv:
        only = set(sys.argv[sys.argv.index("--files") + 1].split(","))
    files = sorted(p for p in folder.glob("*.yaml") if not p.name.startswith("."))
    from quiz.bank.load import load_library

    report = load_library([folder])
    if report.library is None:
        print("the library does not load:", *report.diagnostics, sep="\n")
        return 1
    rendered = {q.id: q for q in report.library.questions}
    qs = []
    for p in files:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
        for q in data.get("questions", []):
            r = rendered[q["id"]]
            q["_file"] = p.name
            q["_raw_computed"] = "answer_figure" in q or "{{" in yaml.safe_dump(q)
            q["_raw_vary"] = "vary" in q
            q["_raw_generated"] = "answer_figure" in q
            q["question"], q["options"] = r.stem, dict(r.options)
            q["answer"] = list(r.answer) if r.multiple_response else r.answer
            q["short_explanation"] = r.short_explanation
            qs.append(q)
    scope = [q for q in qs if only is None or q["_file"] in only]
    topics: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for q in qs:
        topics[q["topic"]][q.get("difficulty", "?")] += 1
    multi = [q for q in qs if isinstance(q["answer"], list)]
    single = [q for q in qs if not isinstance(q["answer"], list)]

    computed = [q for q in qs if q["_raw_computed"]]
    varied = [q for q in qs if q["_raw_vary"]]
    files_computed = sorted({q["_file"] for q in computed})
    print(f"questions: {len(qs)} in {len(files)} files")
    big = [t for t, c in topics.items() if sum(c.values()) >= 12]
    print(f"topics: {len(topics)} ({len(big)} with 12+)")
    for t, c in sorted(topics.items()):
        n = sum(c.values())
        flag = "" if n >= 12 and all(c[d] for d in ("easy", "medium", "hard")) else "  <-"
        print(f"  {t:28s} {n:3d}  easy {c['easy']:2d} medium {c['medium']:2d} hard {c['hard']:2d}{flag}")
    letters = collections.Counter(l for q in multi for l in q["answer"])
    combos = collections.Counter("".join(sorted(q["answer"])) for q in multi)
    five = [q for q in multi if len(q["options"]) >= 5]
    print(f"multiple response: {len(multi)}  key letters {dict(sorted(letters.items()))}")
    print(f"  combos {dict(combos.most_common())}; 5+-option items {len(five)}, with E keyed {sum('E' in q['answer'] for q in five)}")
    sl = collections.Counter(q["answer"] for q in single)
    print(f"single answer: {len(single)}  key letters {dict(sorted(sl.items()))}")
    print(f"computed: {len(computed)} in {len(files_computed)} files {files_computed}; with vary: {len(varied)}")

    print(f"--- cue statistics over {'all' if only is None else ','.join(sorted(only))} ---")
    sscope = [q for q in scope if not isinstance(q["answer"], list) and not q["_raw_generated"]]
    longest = shortest = 0
    for q in sscope:
        key = q["answer"]
        ln = {k: len(str(v)) for k, v in q["options"].items()}
        others = [v for k, v in ln.items() if k != key]
        if ln[key] > max(others):
            longest += 1
        if ln[key] < min(others):
            shortest += 1
    n = max(len(sscope), 1)
    print(f"key strictly longest: {longest}/{len(sscope)} ({100*longest/n:.0f}%)  strictly shortest: {shortest}/{len(sscope)} ({100*shortest/n:.0f}%)")
    kabs = kn = dabs = dn = 0
    for q in scope:
        if q["_raw_generated"]:
            continue
        keys = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
        for k, v in q["options"].items():
            hit = bool(STRONG_ABS.search(str(v)))
            if k in keys:
                kn += 1
                kabs += hit
            else:
                dn += 1
                dabs += hit
    print(f"absolute words: keys {kabs}/{kn} ({100*kabs/max(kn,1):.1f}%)  distractors {dabs}/{dn} ({100*dabs/max(dn,1):.1f}%)")
    def main_stem(q: dict) -> str:
        return q["question"].split("Assume:")[0]

    long_stems = [(q["id"], words(main_stem(q))) for q in scope if words(main_stem(q)) > 60]
    print(f"stems over 60 words: {len(long_stems)} {long_stems}")
    bad_refs = [q["id"] for q in scope for r in q.get("references", []) if not SOURCE.search(r)]
    print(f"references without URL/DOI/arXiv: {len(bad_refs)} {sorted(set(bad_refs))}")
    arith = [q["id"] for q in scope if ARITH.search(q["short_explanation"])]
    print(f"short explanations with figures/arithmetic: {len(arith)} {arith}")
    per_topic_mr = collections.Counter(q["topic"] for q in multi)
    print(f"multiple response per topic: {dict(per_topic_mr)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
