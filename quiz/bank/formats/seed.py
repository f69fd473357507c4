"""Import documents laid out like the project's seed documents (plain text or Markdown).

Such a document holds one question, in this order::

    <the stem>
    Select an answer to reveal the explanation.
    Short Explanation and Infographic
    <the short explanation>
    Full explanation below image
    Full Explanation
    <the full explanation>
    <a lead-in such as "Let's review the distractors:"> then one review per wrong option,
    in prose ("Option A is incorrect because ...") or as a list ("- Option A is ...")

The section lines may be Markdown headings or bold (``## Full Explanation``, ``**Short
Explanation and Infographic**``); case and a trailing colon do not matter. In Markdown, image lines
(``![...](...)``) are dropped, and headings, emphasis and links become plain text, since a bank
shows text literally.

The document does not give the option texts, so each option becomes a ``TODO`` placeholder that
``quiz validate`` reports until it is written. The answer key is inferred as the one option of
A–D that the review does not refute (an option the review calls correct is the key); when that
leaves no option or several, the import says so and keeps the first candidate, to be checked.
Each review loses its "Option X is incorrect because" prefix: "Option A is incorrect because
training stores gradients" becomes "Training stores gradients".
"""

from __future__ import annotations

import re
from typing import Any

from quiz.bank.formats import TODO, Note, Parsed, letters, placeholder
from quiz.bank.model import OPTION_KEYS

_SECTIONS = {
    "select an answer to reveal the explanation": "select",
    "short explanation and infographic": "short",
    "short explanation": "short",
    "full explanation below image": "below",
    "full explanation": "full",
}


def _section(line: str) -> str | None:
    """The section a line announces, or None: Markdown heading marks, emphasis, a trailing
    colon or full stop, case and spacing are ignored."""
    text = re.sub(r"^\s*#+\s*", "", line)
    text = re.sub(r"[*_]+", "", text).strip().rstrip(":.").strip()
    return _SECTIONS.get(" ".join(text.casefold().split()))


_IMAGE = re.compile(r"^\s*!\[[^\]]*\]\([^)]*\)\s*$")


def _plain_markdown(line: str) -> str:
    """A Markdown line as plain text: heading marks, bold/italic markers and link syntax go."""
    line = re.sub(r"^\s*#+\s+", "", line)
    line = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", line)
    line = re.sub(r"(\*\*|__)(.+?)\1", r"\2", line)
    return re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", line)


def _paragraphs(lines: list[str], *, fold: bool = False) -> str:
    """Lines as text: paragraphs (split at blank lines) joined by a blank line. Within a
    paragraph, lines are joined by a space when ``fold`` (a stem), or when they are long enough
    to be unwrapped paragraphs of their own (then by a blank line); otherwise by a line break."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    out = []
    for para in (p for p in paragraphs if p):
        if fold:
            out.append(" ".join(p.strip() for p in para))
        elif len(para) > 1 and max(len(p) for p in para) > 100:
            out.append("\n\n".join(p.strip() for p in para))
        else:
            out.append("\n".join(para))
    return "\n\n".join(out)


# "Option A" opening a review: at the start, after a sentence, a colon or a list mark.
_OPTION = re.compile(r"(?:(?<=^)|(?<=[.!?:;]\s)|(?<=[.!?:;]\s\s)|(?<=\n)|(?<=[-*•]\s))"
                     r"\*{0,2}Option\s+([A-H])\b\*{0,2}", re.MULTILINE)
_REFUTED = re.compile(r"^\s*[:,–—-]?\s*(?:is|was)\s+(?:incorrect|wrong|not\s+(?:correct|right)|"
                      r"false|a\s+distractor)\b\s*[,:;–—-]?\s*(?:(?:because|since|as)\b\s*"
                      r"[,:]?\s*)?", re.IGNORECASE)
_AFFIRMED = re.compile(r"^\s*[:,–—-]?\s*(?:is|was)\s+(?:the\s+)?(?:correct|right)\b",
                       re.IGNORECASE)


def parse(text: str, *, markdown: bool = False) -> Parsed:
    """Read one seed-layout document (``markdown``: the Markdown flavour) into one question
    with placeholder options, or an error note when a section is missing."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if markdown:
        lines = [_plain_markdown(line) for line in lines if not _IMAGE.match(line)]
    found: dict[str, int] = {}
    for number, text_line in enumerate(lines, start=1):
        kind = _section(text_line)
        if kind is not None:
            if kind in found and kind == "select":
                return Parsed(notes=[Note(number, "a second 'Select an answer to reveal the "
                                      "explanation.' line: a seed-layout document holds one "
                                      "question; split it into one file per question", "error")])
            found.setdefault(kind, number - 1)
    missing = [name for kind, name in (("short", "Short Explanation and Infographic"),
                                       ("full", "Full Explanation")) if kind not in found]
    if missing:
        return Parsed(notes=[Note(0, "this is not a seed-layout document: no "
                                  + " and no ".join(f"'{m}' line" for m in missing)
                                  + " (see FORMAT.md, 'Importing')", "error")])
    stem_end = found.get("select", found["short"])
    stem = _paragraphs(lines[:stem_end], fold=True)
    short_end = found.get("below", found["full"])
    if short_end < found["short"]:
        short_end = found["full"]
    short = _paragraphs(lines[found["short"] + 1:short_end])
    full_start = found["full"] + 1
    body = "\n".join(lines[full_start:])
    notes: list[Note] = []
    full, reviews, refuted, affirmed, review_line = _split_review(body, full_start)
    mentioned = set(refuted) | affirmed
    count = max([4] + [OPTION_KEYS.index(k) + 1 for k in mentioned])
    keys = letters(count)
    candidates = [k for k in keys if k not in refuted]
    at = review_line or full_start
    if len(affirmed) == 1:
        answer = next(iter(affirmed))
    elif len(candidates) == 1:
        answer = candidates[0]
    else:
        answer = candidates[0] if candidates else keys[0]
        said = (f"the review refutes {', '.join(sorted(refuted)) or 'no option'}, which leaves "
                + (", ".join(candidates) if candidates else "none") + f" of {keys[0]}–{keys[-1]}")
        notes.append(Note(at, f"cannot tell the answer key: {said}; '{answer}' was set, check "
                          "it"))
    if not stem:
        notes.append(Note(1, "the document has no stem before its first section line", "error"))
        return Parsed(notes=notes)
    question: dict[str, Any] = {
        "line": 1,
        "question": stem,
        # Not "option A": naming an option by its letter is what shuffling breaks.
        "options": {k: f"{TODO}: write this option's text (the source calls it {k} but does "
                       "not give its text)" for k in keys},
        "answer": answer,
        "short_explanation": short,
        "full_explanation": full,
        "distractor_review": {k: reviews[k] for k in keys if k in reviews and k != answer},
    }
    if not short:
        notes.append(Note(found["short"] + 1, "the short explanation is empty"))
    return Parsed(questions=[question], notes=notes)


def _split_review(body: str, first_line: int,
                  ) -> tuple[str, dict[str, str], dict[str, str], set[str], int]:
    """Split the text after "Full Explanation" into the full explanation and the reviews.

    Returns ``(full explanation, reviews by letter, refuted letters → review, letters called
    correct, line of the review)``. The review starts at the paragraph holding the first
    "Option X" that opens a sentence or a list item; that paragraph's lead-in ("Let's review the
    distractors:") is dropped, any whole sentences before it stay in the explanation."""
    matches = list(_OPTION.finditer(body))
    if not matches:
        return _paragraphs(body.split("\n")), {}, {}, set(), 0
    start = matches[0].start()
    para = body.rfind("\n", 0, start) + 1
    lead = body[para:start]
    cut = max(lead.rfind(". "), lead.rfind("! "), lead.rfind("? "))
    kept = (body[:para] + (lead[:cut + 1] if cut >= 0 else "")).rstrip()
    last = kept.rfind("\n") + 1
    if kept[last:].rstrip().endswith(":"):  # a lead-in on its own line before a list
        kept = kept[:last]
    full = _paragraphs(kept.split("\n"))
    reviews: dict[str, str] = {}
    refuted: dict[str, str] = {}
    affirmed: set[str] = set()
    for n, match in enumerate(matches):
        end = matches[n + 1].start() if n + 1 < len(matches) else len(body)
        segment = body[match.end():end].strip()
        segment = re.sub(r"\s*[-*•]\s*$", "", segment).strip()
        letter = match.group(1)
        if _AFFIRMED.match(segment):
            affirmed.add(letter)
            continue
        stripped = _REFUTED.match(segment)
        if stripped:
            review = segment[stripped.end():].strip()
        else:
            review = f"This option {segment}" if segment else ""
        review = " ".join(review.split())
        if review:
            review = review[0].upper() + review[1:]
            if review[-1] not in ".!?\"'”’)":
                review += "."
        reviews[letter] = review or placeholder("why this option is wrong")
        refuted[letter] = reviews[letter]
    line = first_line + body.count("\n", 0, start) + 1
    return full, reviews, refuted, affirmed, line
