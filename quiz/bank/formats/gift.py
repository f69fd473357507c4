"""Moodle GIFT: import and export (https://docs.moodle.org/en/GIFT_format).

Import reads questions as Moodle's own reader does (``qformat_gift::readquestion``):
multiple choice (``=right ~wrong``; any ``~`` makes a question multiple choice, even with ``->``
in an answer), multiple response (no ``=``: every ``~%50%`` with a positive weight is right;
weights with decimals), true/false (``{T}``, ``{FALSE#wrong feedback#right feedback}``),
``// comments``, ``::titles::`` (the id, made a slug) and ``$CATEGORY:`` (the topic: its last
path segment, made a slug, with that segment as the topic's name; the segment before it names
the bank). Feedback is kept: a wrong answer's ``#feedback`` becomes its distractor review, a
right answer's the short explanation, ``####general feedback`` the full explanation. In a
single-answer question (one with ``=``) an answer with a partial weight (``~%50%``) earns
partial credit in Moodle: it becomes a distractor whose review keeps its feedback and says so.
``[markdown]``, ``[plain]``, ``[moodle]`` and ``[html]`` are read before the stem and before any
answer or feedback (HTML tags are removed: a bank shows text literally; images, audio and video
cannot be kept, and a warning names each); the escapes ``\\~ \\= \\# \\{ \\} \\: \\n \\\\``
are resolved. A "missing word" question (text after the answers) gets ``_____`` where the
answers stood. Short answer, numerical, matching, essay and description questions are skipped,
each with a note at its line.

Export writes one question per block: ``::id::[plain]`` stem ``{`` answers (the right one with
the short explanation as feedback, each wrong one with its review), the full explanation as
general feedback ``}``. Line breaks are written ``\\n`` (a blank line ends a GIFT question). A
multiple-response key gets ``%100/n%`` per right option and ``%-100%`` per wrong one, as
Moodle's own export does; a wrong answer whose text starts like a weight (``%50% ...``) gets an
explicit ``%0%`` first. Each bank's title and topic names are the ``$CATEGORY`` path
(``$course$/top/TITLE/TOPIC``). What GIFT cannot carry (topic key, infographic, worked example,
references, tags, difficulty, shuffle; the bank header) goes on a ``// quiz: {...}``
(``// quiz-bank: {...}``) comment line, which Moodle ignores and this importer reads, so a bank
exported and imported again is the same bank.

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

from quiz.bank.computed.template import COMPUTED_KEYS
from quiz.bank.formats import (
    Note,
    Parsed,
    checked_meta,
    id_from,
    letters,
    question_data,
    written_questions,
)
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
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "p", "div", "li", "tr"):
            self.parts.append("\n")
        if tag == "a":
            href = dict(attrs).get("href") or ""
            self.links.append((len(self.parts), href))

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.links:
            start, href = self.links.pop()
            shown = "".join(self.parts[start:]).strip()
            if href and not href.startswith("#") and href != shown:
                self.parts.append(f" ({href})")  # a link keeps its address, as text

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_to_text(markup: str) -> str:
    """HTML → plain text: tags removed (``<br>``, ``<p>``, ``<li>`` become line breaks, a link
    is its text and its address in brackets), entities decoded, runs of spaces and of blank
    lines reduced to one."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    text = re.sub(r"[ \t]+", " ", "".join(parser.parts))  # as a browser shows it
    text = re.sub(r" ?\n ?", "\n", text)
    return re.sub(r"\n\s*\n+", "\n\n", text).strip()


_WEIGHT = re.compile(r"^\s*%(-?\d+(?:\.\d+)?)%")
_TF = {"t": True, "true": True, "f": False, "false": False}
_FORMAT = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]")
_MEDIA = re.compile(r"<\s*(img|audio|video|source|object|embed|iframe)\b([^>]*)>",
                    re.IGNORECASE)
_SRC = re.compile(r"\b(?:src|data)\s*=\s*[\"']?([^\"'\s>]+)", re.IGNORECASE)
_MEDIA_NAMES = {"img": "an image", "audio": "audio", "video": "a video", "source": "media",
                "object": "an embedded object", "embed": "an embedded object",
                "iframe": "an embedded page"}


def media_in(markup: str) -> list[str]:
    """The media an HTML text shows (images, audio, video, embedded objects), each as "an
    image (name)", which a bank cannot carry: an import warns about each."""
    found = []
    for match in _MEDIA.finditer(markup):
        what = _MEDIA_NAMES[match.group(1).lower()]
        found_src = _SRC.search(match.group(2))
        src = found_src.group(1).replace("@@PLUGINFILE@@/", "") if found_src else ""
        found.append(f"{what} ({src})" if src else what)
    return list(dict.fromkeys(found))


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
    bank_index: int | None = None
    by_title: dict[str, int] = {}

    def flush() -> None:
        nonlocal block, meta
        if block:
            _question(block, category, meta, result, bank_index)
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
                    label = prefix.strip("/ :")
                    if prefix == BANK_META:
                        header = checked_meta(value, number, result.notes, header=True,
                                              label=label)
                        if header.get("id") and header.get("title"):
                            bank_index = result.add_bank(header)
                            by_title[str(header["title"])] = bank_index
                        elif header:
                            result.notes.append(Note(number, "this 'quiz-bank:' comment has "
                                                     "no id and title; ignored"))
                    else:
                        flush()
                        meta = checked_meta(value, number, result.notes, label=label)
                    break
            continue
        if not stripped:
            flush()
            continue
        if not block and stripped.startswith("$CATEGORY:"):
            category = stripped[len("$CATEGORY:"):].strip()
            parts = _category_parts(category)
            if parts:
                result.topics.setdefault(slug(parts[-1]), parts[-1])
            if len(parts) >= 2:
                # A topic below a named parent: the parent names the bank (as quiz exports it).
                parent = parts[-2]
                if parent not in by_title:
                    by_title[parent] = result.add_bank({"id": slug(parent), "title": parent})
                bank_index = by_title[parent]
            continue
        block.append((number, line))
    flush()
    return result


def _category_parts(path: str) -> list[str]:
    """The names of a Moodle category path, without ``$course$``-like contexts and ``top``."""
    parts = [unescape(p).strip() for p in re.split(r"(?<!/)/(?!/)", path.strip("/"))]
    parts = [p.replace("//", "/") for p in parts if p]
    while parts and (parts[0].startswith("$") or parts[0] == "top"):
        parts = parts[1:]
    return parts


def _question(block: list[tuple[int, str]], category: str | None, meta: dict[str, Any] | None,
              result: Parsed, bank_index: int | None) -> None:
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
    match = _FORMAT.match(rest)
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
    media: list[str] = []

    def clean(part: str) -> str:
        """One text of the question: its own ``[format]`` marker (an answer or a feedback
        may have one) or the stem's, escapes resolved, HTML made plain text."""
        part = part.strip()
        own = _FORMAT.match(part)
        kind = form
        if own:
            kind = own.group(1)
            part = part[own.end():].strip()
        part = unescape(part)
        if kind in ("html", "moodle", "markdown") and "<" in part:
            media.extend(media_in(part))
            if kind == "html" or re.search(r"</?[a-zA-Z][^>]*>", part):
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
    if bank_index is not None:
        data["bank"] = bank_index
    if title:
        data["id"] = id_from(title)
    if category and _category_parts(category):
        data["topic"] = slug(_category_parts(category)[-1])
    data["question"] = stem
    answers = _split_marks(body)
    lead = answers[0][1].strip()
    kinds = {mark for mark, _, _ in answers}
    if not stem:
        return skip("this question has no stem", where)
    truth = lead.lower().split("#")[0].strip()
    # Moodle's order (qformat_gift::readquestion): empty braces, '#', '~', '=' with '->',
    # true/false, short answer.
    if not body.strip():
        return skip("an essay question (empty braces): skipped, a bank question has options",
                    where)
    if body.lstrip().startswith("#"):
        return skip("a numerical question: skipped, a bank question has options", where)
    if "~" in kinds:
        if lead:
            return skip(f"text {lead[:30]!r} before the first '=' or '~' answer", where)
        if not _choices(answers, data, clean, where, line_at, result):
            return None
    elif "=" in kinds and _find(body, "->") >= 0:
        return skip("a matching question: skipped, a bank question has options", where)
    elif truth in _TF and kinds <= {"", "#"}:
        key = _TF[truth]
        feedback = [clean(t) for m, t, _ in answers if m == "#"]
        data["options"] = {"A": "True", "B": "False"}
        data["answer"] = "A" if key else "B"
        if feedback and feedback[0]:
            data["distractor_review"] = {("B" if key else "A"): feedback[0]}
        if len(feedback) > 1 and feedback[1]:
            data["short_explanation"] = feedback[1]
        data["shuffle"] = False
    else:
        return skip("a short-answer question (only '=' answers): skipped, a bank question has "
                    "options to choose from", where)
    if general:
        data["full_explanation"] = general
    if media:
        result.notes.append(Note(line_at(where), "this question shows " + ", ".join(media)
                                 + ", which a bank cannot carry: not imported; describe it in "
                                 "words if the question needs it"))
    if meta:
        for name, value in meta.items():
            data[name] = value
    result.questions.append(data)
    return None


def _choices(answers: list[tuple[str, str, int]], data: dict[str, Any], clean: Any, where: int,
             line_at: Any, result: Parsed) -> bool:
    """Fill ``options``, ``answer``, ``distractor_review`` and (from right answers' feedback)
    ``short_explanation`` from ``=``/``~`` answers, as Moodle reads them: a question with an
    ``=`` answer is single-answer, and a ``~%50%`` answer in it earns partial credit (it becomes
    a distractor whose review says so); without ``=``, every answer with a positive weight is
    right (multiple response). False (with an error note) when the question cannot be a bank
    question."""
    choices: list[tuple[str, str, float | None, str | None, int]] = []
    for mark, text, offset in answers[1:]:
        if mark == "#":
            if choices:
                m, t, w, _, o = choices[-1]
                choices[-1] = (m, t, w, clean(text), o)
            continue
        weight = None
        found = _WEIGHT.match(text) if mark == "~" else None  # '=' takes no weight in Moodle
        if found:
            weight = float(found.group(1))
            text = text[found.end():]
        choices.append((mark, clean(text), weight, None, where + offset))
    if len(choices) > len(OPTION_KEYS):
        result.notes.append(Note(line_at(where), f"{len(choices)} answers: a bank question has "
                                 f"at most {len(OPTION_KEYS)} options; skipped", "error"))
        return False
    keys = letters(len(choices))
    single = any(c[0] == "=" for c in choices)
    right = []
    weights = set()
    partial: dict[str, float] = {}
    for key, (mark, _text, weight, _fb, _offset) in zip(keys, choices, strict=True):
        if mark == "=" or (weight is not None and weight >= 100 and single):
            right.append(key)
        elif single and weight is not None and 0 < weight < 100:
            partial[key] = weight
        elif not single and weight is not None and weight > 0:
            right.append(key)
            weights.add(weight)
    if not right:
        result.notes.append(Note(line_at(where), "no answer is marked right ('=' or a "
                                 "positive '%weight%'); skipped", "error"))
        return False
    if single and len(right) > 1:
        result.notes.append(Note(line_at(where), f"{len(right)} answers are fully right in a "
                                 "single-answer question (either one scores): a bank question "
                                 "has one key, or asks for all of them; skipped", "error"))
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
    for key, weight in partial.items():
        reviews[key] = partial_review(reviews.get(key), weight)
        result.notes.append(Note(line_at(choices[keys.index(key)][4]), f"option {key} earned "
                                 f"{weight:g}% partial credit in the source: it is a distractor "
                                 "here, and its review says so"))
    if reviews:
        data["distractor_review"] = reviews
    praise = [c[3] for k, c in zip(keys, choices, strict=True) if k in right and c[3]]
    if praise:
        data["short_explanation"] = "\n\n".join(dict.fromkeys(praise))
    return True


def partial_review(feedback: str | None, weight: float) -> str:
    """The review of an option that earned partial credit (``weight`` percent) in a
    single-answer source question: its feedback, and a sentence saying so."""
    said = (f"In the source this option earned {weight:g}% partial credit: it is partly "
            "right, but not the best answer.")
    return f"{feedback.rstrip()}\n\n{said}" if feedback else said


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


def category_name(name: str) -> str:
    """A name as one segment of a Moodle category path (``/`` doubled, as Moodle does)."""
    return " ".join(name.split()).replace("/", "//")


def render(banks: list[LoadedBank], warnings: list[str] | None = None) -> str:
    """The questions of ``banks`` as one GIFT file (UTF-8 text): each bank's header on a
    ``// quiz-bank:`` comment, its questions under a ``$CATEGORY: $course$/top/TITLE/TOPIC``
    line per topic (the bank title and topic names, which Moodle keeps as categories). A right
    answer's feedback is the short explanation. ``warnings`` is not used: GIFT can write any
    text."""
    out: list[str] = []
    for bank in banks:
        header = bank.info.model_dump(mode="json", by_alias=True, exclude_unset=True)
        out += [BANK_META + json.dumps(header, ensure_ascii=False), ""]
        written = written_questions(bank.path)
        category = None
        for question in bank.questions:
            if question.topic != category:
                category = question.topic
                name = bank.info.topics.get(category, category)
                out += [f"$CATEGORY: $course$/top/{category_name(bank.info.title)}/"
                        f"{category_name(name)}", ""]
            data = question_data(question, written.get(question.id))
            # A computed question goes out as the variant rendered (plain text): the keys that
            # would compute it again stay behind.
            meta = {k: v for k, v in data.items() if k not in (
                "id", "question", "options", "answer", "distractor_review", "full_explanation",
                *COMPUTED_KEYS)}
            out.append(META + json.dumps(meta, ensure_ascii=False))
            out.append(f"::{escape(question.id)}::[plain]{escape(question.stem)} {{")
            keys = question.answer_keys
            for key, text in question.options.items():
                if question.multiple_response:
                    mark = f"~%{_weight(len(keys))}%" if key in keys else "~%-100%"
                elif key in keys:
                    mark = "="  # Moodle reads no weight after '=': a leading %50% is text
                else:
                    # A wrong answer's text that starts like a weight gets an explicit one.
                    mark = "~%0%" if _WEIGHT.match(text) else "~"
                feedback = (question.short_explanation if key in keys
                            else question.distractor_review.get(key))
                out.append(f"\t{mark}{escape(text)}"
                           + (f"#{escape(feedback)}" if feedback else ""))
            out.append(f"\t####{escape(question.full_explanation)}")
            out.append("}")
            out.append("")
    return "\n".join(out)
