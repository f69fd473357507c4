"""Moodle GIFT: import and export (https://docs.moodle.org/en/GIFT_format).

Import reads multiple choice (``=right ~wrong``), multiple response (``~%50%right ~%-100%wrong``,
weights with decimals), true/false (``{T}``, ``{FALSE#wrong feedback#right feedback}``),
per-answer feedback (``#...``, which becomes the wrong option's distractor review), general
feedback (``####...``, the full explanation), ``// comments``, ``::titles::`` (the id, made a
slug), ``$CATEGORY:`` (the topic: its last path segment, made a slug), the ``[markdown]``,
``[plain]``, ``[moodle]`` and ``[html]`` formats (HTML tags are removed: a bank shows text
literally) and the escapes ``\\~ \\= \\# \\{ \\} \\: \\n \\\\``. A "missing word" question
(text after the answers) gets ``_____`` where the answers stood. Short answer, numerical,
matching, essay and description questions are skipped, each with a note at its line.

Export writes one question per block: ``::id::[plain]`` stem ``{`` answers with the reviews as
feedback, the full explanation as general feedback ``}``. Line breaks are written ``\\n`` (a blank
line ends a GIFT question). A multiple-response key gets ``%100/n%`` per right option and
``%-100%`` per wrong one, as Moodle's own export does. What GIFT cannot carry (topic, short
explanation, infographic, worked example, references, tags, difficulty, shuffle) goes on a
``// quiz: {...}`` comment line before the question, which Moodle ignores and this importer
reads, so a bank exported and imported again is the same bank.

The PyPI GIFT parsers were judged first and not used: ``pygiftparser`` 1.1 (2017) needs
markdown and yattag, keeps no line numbers; ``pygiftparserrgmf`` 0.0.5 unescapes with chained
``str.replace`` (so ``\\\\`` followed by ``~`` comes out wrong) and accepts integer weights only
(Moodle writes ``%33.33333%``).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from quiz.bank.formats import Note, Parsed, letters, merge_header, question_data
from quiz.bank.library import LoadedBank
from quiz.bank.model import OPTION_KEYS
from quiz.bank.template import slug

META = "// quiz: "
"""The comment prefix of the fields GIFT cannot carry (JSON)."""

BANK_META = "// quiz-bank: "
"""The comment prefix of the bank header (JSON), at the top of an exported file."""

_SPECIAL = "~=#{}:"


# --- Import -------------------------------------------------------------------------------------

def unescape(text: str) -> str:
    """GIFT text → plain text: ``\\~ \\= \\# \\{ \\} \\:`` → the character, ``\\n`` → a line
    break, ``\\\\`` → a backslash; any other backslash stays."""
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            if following in _SPECIAL or following == "\\":
                out.append(following)
                i += 2
                continue
            if following == "n":
                out.append("\n")
                i += 2
                continue
        out.append(char)
        i += 1
    return "".join(out)


def _find(text: str, target: str, start: int = 0) -> int:
    """Index of the first unescaped ``target`` in ``text`` from ``start``, or -1."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(target, i):
            return i
        i += 1
    return -1


def _split_marks(body: str) -> list[tuple[str, str, int]]:
    """Split an answer body at unescaped ``=``, ``~`` and ``#``: ``(mark, text, offset)``; text
    before the first mark has mark ``""``."""
    parts: list[tuple[str, str, int]] = []
    mark, begin, i = "", 0, 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            i += 2
            continue
        if char in "=~#":
            parts.append((mark, body[begin:i], begin))
            mark, begin = char, i + 1
        i += 1
    parts.append((mark, body[begin:], begin))
    return parts


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "p", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_to_text(markup: str) -> str:
    """HTML → plain text: tags removed (``<br>``, ``<p>``, ``<li>`` become line breaks),
    entities decoded, runs of blank lines reduced to one."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    text = "".join(parser.parts)
    return re.sub(r"\n\s*\n+", "\n\n", text).strip()


_WEIGHT = re.compile(r"^\s*%(-?\d+(?:\.\d+)?)%")
_TF = {"t": True, "true": True, "f": False, "false": False}


def parse(text: str) -> Parsed:
    """Read a GIFT file: every question it can hold as bank data, and a note for each one it
    skipped or changed (see the module docstring)."""
    result = Parsed()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    category: str | None = None
    block: list[tuple[int, str]] = []
    meta: dict[str, Any] | None = None

    def flush() -> None:
        nonlocal block, meta
        if block:
            _question(block, category, meta, result)
        block, meta = [], None

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("//"):
            for prefix in (BANK_META, META):
                if stripped.startswith(prefix):
                    try:
                        value = json.loads(stripped[len(prefix):])
                    except json.JSONDecodeError as exc:
                        result.notes.append(Note(number, f"this '{prefix.strip()}' comment is "
                                                 f"not valid JSON ({exc.msg}); ignored"))
                        break
                    if prefix == BANK_META and isinstance(value, dict):
                        result.bank = merge_header(result.bank, value)
                    elif isinstance(value, dict):
                        flush()
                        meta = value
                    break
            continue
        if not stripped:
            flush()
            continue
        if not block and stripped.startswith("$CATEGORY:"):
            category = stripped[len("$CATEGORY:"):].strip()
            continue
        block.append((number, line))
    flush()
    return result


def _question(block: list[tuple[int, str]], category: str | None, meta: dict[str, Any] | None,
              result: Parsed) -> None:
    first = block[0][0]
    raw = "\n".join(line for _, line in block)

    def line_at(offset: int) -> int:
        return first + raw.count("\n", 0, offset)

    def skip(message: str, offset: int = 0) -> None:
        result.notes.append(Note(line_at(offset), message, "error"))

    title = None
    rest = raw.lstrip()
    base = len(raw) - len(rest)
    if rest.startswith("::"):
        end = _find(rest, "::", 2)
        if end < 0:
            return skip("this title '::' is never closed with '::'")
        title = unescape(rest[2:end]).strip()
        rest = rest[end + 2:]
        base += end + 2
    form = "moodle"
    match = re.match(r"\s*\[(html|moodle|plain|markdown)\]", rest)
    if match:
        form = match.group(1)
        rest, base = rest[match.end():], base + match.end()
    open_at = _find(rest, "{")
    if open_at < 0:
        return skip("a description (no answers in braces): skipped, a bank question needs "
                    "options")
    close_at = _find(rest, "}", open_at + 1)
    if close_at < 0:
        return skip("these answers' '{' is never closed with '}'", base + open_at)
    before, body, after = rest[:open_at], rest[open_at + 1:close_at], rest[close_at + 1:]

    def clean(part: str) -> str:
        part = unescape(part.strip())
        if form == "html":
            part = html_to_text(part)
        return part

    stem = clean(before)
    if after.strip():
        stem = f"{stem} _____ {clean(after)}".strip()
    general = None
    split = _find(body, "####")
    if split >= 0:
        general = clean(body[split + 4:])
        body = body[:split]
    where = base + open_at + 1
    data: dict[str, Any] = {"line": line_at(where)}
    if title:
        data["id"] = slug(title)
    if category:
        data["topic"] = slug(category.rstrip("/").split("/")[-1])
    data["question"] = stem
    answers = _split_marks(body)
    lead = answers[0][1].strip()
    kinds = {mark for mark, _, _ in answers}
    if not stem:
        return skip("this question has no stem", where)
    truth = lead.lower().split("#")[0].strip()
    if truth in _TF and kinds <= {"", "#"}:
        key = _TF[truth]
        feedback = [clean(t) for m, t, _ in answers if m == "#"]
        data["options"] = {"A": "True", "B": "False"}
        data["answer"] = "A" if key else "B"
        if feedback and feedback[0]:
            data["distractor_review"] = {("B" if key else "A"): feedback[0]}
        data["shuffle"] = False
    elif body.lstrip().startswith("#"):
        return skip("a numerical question: skipped, a bank question has options", where)
    elif not body.strip():
        return skip("an essay question (empty braces): skipped, a bank question has options",
                    where)
    elif _find(body, "->") >= 0:
        return skip("a matching question: skipped, a bank question has options", where)
    elif "~" not in kinds:
        return skip("a short-answer question (only '=' answers): skipped, a bank question has "
                    "options to choose from", where)
    else:
        if lead:
            return skip(f"text {lead[:30]!r} before the first '=' or '~' answer", where)
        if not _choices(answers, data, clean, where, line_at, result):
            return None
    if general:
        data["full_explanation"] = general
    if meta:
        for name, value in meta.items():
            if name not in ("question", "options", "answer", "distractor_review",
                            "full_explanation", "line"):
                data[name] = value
    result.questions.append(data)
    return None


def _choices(answers: list[tuple[str, str, int]], data: dict[str, Any], clean: Any, where: int,
             line_at: Any, result: Parsed) -> bool:
    """Fill ``options``, ``answer`` and ``distractor_review`` from ``=``/``~`` answers; False
    (with an error note) when the question cannot be a bank question."""
    choices: list[tuple[str, str, float | None, str | None, int]] = []
    for mark, text, offset in answers[1:]:
        if mark == "#":
            if choices:
                m, t, w, _, o = choices[-1]
                choices[-1] = (m, t, w, clean(text), o)
            continue
        weight = None
        found = _WEIGHT.match(text)
        if found:
            weight = float(found.group(1))
            text = text[found.end():]
        choices.append((mark, clean(text), weight, None, where + offset))
    if len(choices) > len(OPTION_KEYS):
        result.notes.append(Note(line_at(where), f"{len(choices)} answers: a bank question has "
                                 f"at most {len(OPTION_KEYS)} options; skipped", "error"))
        return False
    keys = letters(len(choices))
    right = []
    weights = set()
    for key, (mark, _text, weight, _fb, offset) in zip(keys, choices, strict=True):
        if mark == "=" or (weight is not None and weight > 0):
            right.append(key)
            if weight is not None and mark == "~":
                weights.add(weight)
            if mark == "~" and weight is not None and 0 < weight < 100 and "=" in {
                    c[0] for c in choices}:
                result.notes.append(Note(line_at(offset), f"partial credit {weight:g}% on an "
                                         "answer of a single-answer question is not kept: it "
                                         "counts as right"))
    if not right:
        result.notes.append(Note(line_at(where), "no answer is marked right ('=' or a "
                                 "positive '%weight%'); skipped", "error"))
        return False
    if len(right) == len(keys):
        result.notes.append(Note(line_at(where), "every answer is right: a bank question needs a "
                                 "distractor; skipped", "error"))
        return False
    if len(weights) > 1:
        result.notes.append(Note(line_at(where), "unequal weights (" + ", ".join(
            f"{w:g}%" for w in sorted(weights)) + ") are not kept: the student must choose "
            "every right option"))
    empty = [k for k, c in zip(keys, choices, strict=True) if not c[1]]
    if empty:
        result.notes.append(Note(line_at(where), f"answer {', '.join(empty)} is empty; skipped",
                                 "error"))
        return False
    data["options"] = {k: c[1] for k, c in zip(keys, choices, strict=True)}
    data["answer"] = right[0] if len(right) == 1 else right
    reviews = {k: c[3] for k, c in zip(keys, choices, strict=True) if k not in right and c[3]}
    if reviews:
        data["distractor_review"] = reviews
    return True


# --- Export -------------------------------------------------------------------------------------

def escape(text: str) -> str:
    """Plain text → GIFT text: ``~ = # { } :`` escaped, a backslash before one of them (or
    before ``n``, a line break or another backslash) doubled, line breaks written ``\\n``."""
    out = []
    for i, char in enumerate(text):
        if char == "\\":
            following = text[i + 1] if i + 1 < len(text) else ""
            out.append("\\\\" if following and following in _SPECIAL + "n\\\n" else "\\")
        elif char in _SPECIAL:
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        else:
            out.append(char)
    return "".join(out)


def _weight(count: int) -> str:
    return f"{100 / count:.5f}".rstrip("0").rstrip(".")


def render(banks: list[LoadedBank]) -> str:
    """The questions of ``banks`` as one GIFT file (UTF-8 text), each bank's questions after its
    header on a ``// quiz-bank:`` comment, under a ``$CATEGORY:`` per topic."""
    out: list[str] = []
    category = None
    for bank in banks:
        header = bank.info.model_dump(mode="json", by_alias=True, exclude_unset=True)
        out += [BANK_META + json.dumps(header, ensure_ascii=False), ""]
        category = None
        for question in bank.questions:
            if question.topic != category:
                category = question.topic
                out += [f"$CATEGORY: $course$/{category}", ""]
            data = question_data(question)
            meta = {k: v for k, v in data.items() if k not in (
                "id", "question", "options", "answer", "distractor_review", "full_explanation")}
            out.append(META + json.dumps(meta, ensure_ascii=False))
            out.append(f"::{escape(question.id)}::[plain]{escape(question.stem)} {{")
            keys = question.answer_keys
            for key, text in question.options.items():
                if question.multiple_response:
                    mark = f"~%{_weight(len(keys))}%" if key in keys else "~%-100%"
                else:
                    mark = "=" if key in keys else "~"
                review = question.distractor_review.get(key)
                feedback = f"#{escape(review)}" if review else ""
                out.append(f"\t{mark}{escape(text)}{feedback}")
            out.append(f"\t####{escape(question.full_explanation)}")
            out.append("}")
            out.append("")
    return "\n".join(out)

