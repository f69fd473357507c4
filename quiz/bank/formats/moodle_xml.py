"""Moodle XML: import and export (https://docs.moodle.org/en/Moodle_XML_format).

Import reads ``multichoice`` questions, single (``<single>true</single>``) and multiple
response (an answer with a positive ``fraction`` is right), and ``truefalse`` ones: ``name`` (or
``idnumber``) becomes the id, ``questiontext`` the stem, ``tags`` the tags. Feedback is kept:
``generalfeedback`` becomes the full explanation, a right answer's ``feedback`` and
``correctfeedback`` the short explanation, a wrong answer's ``feedback`` its distractor review
(``incorrectfeedback`` the review of each wrong answer without feedback of its own). In a
single-answer question an answer with a fraction between 0 and 100 earned partial credit: it
becomes a distractor whose review keeps its feedback and says so. What a bank cannot carry
(partially-correct feedback, hints, images, audio and other files) is named in a warning per
question. A ``category`` question sets the topic of those after it (its last name; its
``idnumber`` is the key when it is a slug) and, with a name before that, the bank. Text in
``format="html"`` loses its tags (a bank shows text literally). Other question types are
skipped, each with a note at its line.

The XML is read by expat (the parser under :mod:`xml.etree`) into an
:class:`xml.etree.ElementTree.TreeBuilder`, recording each element's line; expat does not fetch
external entities (a reference to one is noted as a warning where its text is missing), and
its protection against entity expansion attacks is on by default.

Export writes one ``multichoice`` question per bank question, in ``plain_text`` format, after a
``category`` question per bank (named by its title, ``<info>`` its description) and per topic
(``$course$/top/TITLE/TOPIC NAME``, ``<idnumber>`` the key); multiple response gets
``fraction`` 100/n per right answer and -100 per wrong one; the right answer's feedback is the
short explanation. A character XML 1.0 cannot hold (a control character) is written as its
visible control picture (U+0007 → ␇), with a warning. What Moodle XML cannot carry goes in a
``<!-- quiz: {...} -->`` comment in the question (Moodle ignores it; this importer reads it), so
a bank survives the round trip.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any
from xml.parsers import expat

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
from quiz.bank.formats.gift import category_name, html_to_text, media_in, partial_review
from quiz.bank.library import LoadedBank
from quiz.bank.model import OPTION_KEYS, SLUG_PATTERN
from quiz.bank.template import slug

META = "quiz:"
BANK_META = "quiz-bank:"


def _read(text: str, notes: list[Note]) -> tuple[ET.Element, dict[int, int]]:
    """Parse ``text`` into an element tree with comments; returns the root and each element's
    line (by ``id``). A reference to an external entity is not fetched: a warning in ``notes``
    says where its text is missing. Raises ``expat.ExpatError`` on malformed XML."""
    builder = ET.TreeBuilder(insert_comments=True)
    lines: dict[int, int] = {}
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    external: dict[str, str] = {}

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = builder.start(tag, attrs)
        lines[id(element)] = parser.CurrentLineNumber

    def declared(name: str, _param: int, _value: str | None, _base: str | None,
                 system: str | None, public: str | None, _notation: str | None) -> None:
        if system or public:
            external[name] = system or public or ""

    def refused(context: str | None, _base: str | None, system: str | None,
                public: str | None) -> int:
        name = (context or "").split("\f")[-1] or "?"
        notes.append(Note(parser.CurrentLineNumber, f"the external entity &{name}; "
                          f"({system or public}) is not read (quiz never fetches files or "
                          "addresses named in XML): its text is missing here"))
        return 1

    def skipped(name: str, is_parameter: int) -> None:
        notes.append(Note(parser.CurrentLineNumber, f"the entity &{name}; is declared outside "
                          "this file and is not read: its text is missing here"))

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.CommentHandler = builder.comment
    parser.EntityDeclHandler = declared
    parser.ExternalEntityRefHandler = refused
    parser.SkippedEntityHandler = skipped
    parser.Parse(text, True)
    return builder.close(), lines


def _text(element: ET.Element | None, media: list[str] | None = None) -> str:
    """The ``<text>`` of a Moodle text element, as plain text (HTML removed when
    ``format="html"``); the media it shows (images, audio, its ``<file>`` attachments) are
    added to ``media``."""
    if element is None:
        return ""
    inner = element.find("text")
    value = (inner.text if inner is not None else element.text) or ""
    if media is not None:
        media.extend(media_in(value))
        media.extend(f"a file ({f.get('name', '?')})" for f in element.findall("file")
                     if not any(f"({f.get('name')})" in m for m in media))
    if element.get("format", "html") in ("html", "moodle_auto_format", "markdown") and (
            element.get("format", "html") == "html" or re.search(r"</?[a-zA-Z][^>]*>", value)):
        return html_to_text(value)
    return value


_DEFAULTS = {"your answer is correct.", "your answer is partially correct.",
             "your answer is incorrect."}
"""The combined feedback Moodle fills in by itself: not the author's words, not imported."""


def _said(element: ET.Element | None, media: list[str]) -> str:
    """A combined feedback's text, or "" when it is empty or Moodle's own default."""
    text = _text(element, media).strip()
    return "" if text.casefold() in _DEFAULTS else text


def _article(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def parse(text: str) -> Parsed:
    """Read a Moodle XML file into questions and notes (see the module docstring)."""
    result = Parsed()
    try:
        root, lines = _read(text, result.notes)
    except expat.ExpatError as exc:
        result.notes.append(Note(exc.lineno, f"not well-formed XML: "
                                 f"{expat.ErrorString(exc.code)} (column {exc.offset + 1})",
                                 "error", "file"))
        return result
    if root.tag != "quiz":
        result.notes.append(Note(lines.get(id(root), 1), f"the root element is <{root.tag}>; "
                                 "a Moodle XML file has <quiz>", "error", "file"))
        return result
    topic = None
    bank: int | None = None
    by_title: dict[str, int] = {}
    seen: dict[str, tuple[str, str]] = {}
    for child in root:
        line = lines.get(id(child), lines.get(id(root), 1))
        if not isinstance(child.tag, str):
            if (child.text or "").strip().startswith(BANK_META):
                header = _meta(child, BANK_META, result, line, header=True)
                if header.get("id") and header.get("title"):
                    bank = result.add_bank(header)
                    by_title[str(header["title"])] = bank
            continue
        if child.tag != "question":
            continue
        kind = child.get("type", "")
        if kind == "category":
            topic, bank = _category(child, result, by_title, bank, seen)
            continue
        if kind not in ("multichoice", "truefalse"):
            result.notes.append(Note(line, f"{_article(kind or 'typeless')} question: skipped, "
                                     "only multichoice and truefalse questions can be imported",
                                     "error"))
            continue
        data = _question(child, kind, line, result)
        if data is None:
            continue
        if topic:
            data["topic"] = topic
        if bank is not None:
            data["bank"] = bank
        for comment in child:
            if not isinstance(comment.tag, str) and (comment.text or "").strip().startswith(META):
                data.update(_meta(comment, META, result, line))
        result.questions.append(data)
    return result


def _category(element: ET.Element, result: Parsed, by_title: dict[str, int],
              bank: int | None, seen: dict[str, tuple[str, str]],
              ) -> tuple[str | None, int | None]:
    """The topic and bank a ``category`` question switches to: the path's last name is the
    topic (its ``idnumber`` the key when it is a slug), the name before it the bank; the
    ``<info>`` and ``idnumber`` of the category named like the bank give its description and
    id (``seen``: each category's info and idnumber, by name)."""
    path = _text(element.find("category"))
    parts = [p.replace("//", "/").strip() for p in re.split(r"(?<!/)/(?!/)", path.strip("/"))]
    parts = [p for p in parts if p]
    while parts and (parts[0].startswith("$") or parts[0] == "top"):
        parts = parts[1:]
    info = _text(element.find("info")).strip()
    ident = (element.findtext("idnumber") or "").strip()
    if not parts:
        return None, bank
    seen.setdefault(parts[-1], (info, ident))
    if len(parts) == 1 and parts[0] in by_title:  # the bank's own category
        header = result.banks[by_title[parts[0]]]
        if info and "description" not in header:
            header["description"] = info
        return None, by_title[parts[0]]
    key = ident if re.match(SLUG_PATTERN, ident) else slug(parts[-1])
    result.topics.setdefault(key, parts[-1])
    if len(parts) >= 2:
        parent = parts[-2]
        if parent not in by_title:
            about, named = seen.get(parent, ("", ""))
            header = {"id": named if re.match(SLUG_PATTERN, named) else slug(parent),
                      "title": parent}
            if about:
                header["description"] = about
            by_title[parent] = result.add_bank(header)
        bank = by_title[parent]
    return key, bank


def _meta(comment: ET.Element, prefix: str, result: Parsed, line: int, *,
          header: bool = False) -> dict[str, Any]:
    body = (comment.text or "").strip()[len(prefix):]
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        result.notes.append(Note(line, f"the '{prefix}' comment is not valid JSON ({exc.msg}); "
                                 "ignored"))
        return {}
    return checked_meta(value, line, result.notes, header=header, label=prefix.rstrip(":"))


def _question(element: ET.Element, kind: str, line: int, result: Parsed,
              ) -> dict[str, Any] | None:
    def skip(message: str) -> None:
        result.notes.append(Note(line, message + "; skipped", "error"))

    media: list[str] = []
    stem = _text(element.find("questiontext"), media)
    if not stem.strip():
        skip("this question has no question text")
        return None
    answers = element.findall("answer")
    if len(answers) > len(OPTION_KEYS):
        skip(f"{len(answers)} answers: a bank question has at most {len(OPTION_KEYS)} options")
        return None
    if len(answers) < 2:
        skip(f"{len(answers)} answer{'s' * (len(answers) != 1)}: a question needs at least 2")
        return None
    keys = letters(len(answers))
    options: dict[str, str] = {}
    fractions: dict[str, float] = {}
    feedback: dict[str, str] = {}
    for key, answer in zip(keys, answers, strict=True):
        options[key] = _text(answer, media) if answer.find("text") is not None else ""
        try:
            fractions[key] = float(answer.get("fraction", "0"))
        except ValueError:
            skip(f"answer {key} has fraction {answer.get('fraction')!r}, not a number")
            return None
        said = _text(answer.find("feedback"), media).strip()
        if said:
            feedback[key] = said
    single = (element.findtext("single") or "true").strip().lower() in ("true", "1")
    if kind == "truefalse":
        single = True
    top = max(fractions.values())
    if single:
        right = [k for k, f in fractions.items() if f >= 100 or (top < 100 and f == top > 0)]
    else:
        right = [k for k, f in fractions.items() if f > 0]
    empty = [k for k, v in options.items() if not v.strip()]
    if empty:
        skip(f"answer {', '.join(empty)} has no text")
        return None
    if not right:
        skip("no answer has a positive fraction")
        return None
    if single and len(right) > 1:
        skip(f"{len(right)} answers are fully right in a single-answer question (either one "
             "scores): a bank question has one key, or asks for all of them")
        return None
    if len(right) == len(keys):
        skip("every answer is right: a bank question needs a distractor")
        return None
    if single and top < 100:
        result.notes.append(Note(line, f"no answer earns 100%: the best one ({top:g}%), "
                                 f"{right[0]}, is the key"))
    reviews = {k: v for k, v in feedback.items() if k not in right}
    incorrect = _said(element.find("incorrectfeedback"), media)
    for key, fraction in fractions.items():
        if key in right:
            continue
        if single and 0 < fraction < 100:
            reviews[key] = partial_review(reviews.get(key), fraction)
            result.notes.append(Note(line, f"option {key} earned {fraction:g}% partial credit "
                                     "in the source: it is a distractor here, and its review "
                                     "says so"))
        elif key not in reviews and incorrect:
            reviews[key] = incorrect
    data: dict[str, Any] = {"line": line}
    ident = (element.findtext("idnumber") or "").strip() or _text(element.find("name"))
    if ident.strip():
        data["id"] = id_from(ident)
    tags = [slug(t.findtext("text") or "") for t in element.findall("tags/tag")]
    if tags:
        data["tags"] = [t for t in tags if t != "bank"]
    data["question"] = stem
    data["options"] = options
    data["answer"] = right[0] if len(right) == 1 else right
    if kind == "truefalse" or (element.findtext("shuffleanswers") or "").strip() in ("false",
                                                                                      "0"):
        data["shuffle"] = False
    praise = [feedback[k] for k in right if k in feedback]
    correct = _said(element.find("correctfeedback"), media)
    if correct:
        praise.append(correct)
    if praise:
        data["short_explanation"] = "\n\n".join(dict.fromkeys(praise))
    general = _text(element.find("generalfeedback"), media)
    if general.strip():
        data["full_explanation"] = general
    if reviews:
        data["distractor_review"] = reviews
    lost = []
    if _said(element.find("partiallycorrectfeedback"), media):
        lost.append("partially-correct feedback")
    hints = [h for h in element.findall("hint") if _text(h).strip()]
    if hints:
        lost.append(f"{len(hints)} hint{'s' * (len(hints) > 1)}")
    old_image = (element.findtext("image") or "").strip()  # Moodle 1.9's image field
    if old_image:
        media.append(f"an image ({old_image})")
    lost += list(dict.fromkeys(media))
    if lost:
        result.notes.append(Note(line, "this question has " + ", ".join(lost) + ", which a "
                                 "bank cannot carry: not imported"))
    return data


# --- Export -------------------------------------------------------------------------------------

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_safe(text: str, where: str, warnings: list[str]) -> str:
    """``text`` with each character XML 1.0 cannot hold (control characters other than tab
    and line breaks) written as its visible Unicode control picture (U+0007 → ␇), with a
    warning naming ``where``."""
    if _NOT_XML.search(text) is None:
        return text
    shown = sorted({f"U+{ord(c):04X}" for c in _NOT_XML.findall(text)})
    warnings.append(f"{where}: {', '.join(shown)} cannot be written in XML; written as "
                    "visible control pictures")
    return _NOT_XML.sub(lambda m: chr(0x2400 + ord(m.group(0))) if ord(m.group(0)) < 32
                        else "\ufffd", text)


def _comment(prefix: str, value: dict[str, Any]) -> Any:
    # "--" may not appear inside an XML comment; in JSON it can only be inside a string. JSON
    # writes control characters as \u escapes, so a comment holds none.
    body = json.dumps(value, ensure_ascii=False).replace("--", "-\\u002d")
    body = _NOT_XML.sub(lambda m: "\\u%04x" % ord(m.group(0)), body)
    return ET.Comment(f" {prefix} {body} ")


def _text_element(parent: ET.Element, tag: str, value: str, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    ET.SubElement(element, "text").text = value
    return element


def _fraction(count: int) -> str:
    return f"{100 / count:.5f}".rstrip("0").rstrip(".")


def render(banks: list[LoadedBank], warnings: list[str] | None = None) -> str:
    """The questions of ``banks`` as a Moodle XML document (UTF-8 text). Each bank gets a
    category named by its title (its ``<info>`` the description, its ``<idnumber>`` the bank
    id), each topic a category below it named by the topic's name (``<idnumber>``: the key).
    Characters XML cannot hold are written as control pictures, with a line in ``warnings``."""
    said = warnings if warnings is not None else []
    root = ET.Element("quiz")
    for bank in banks:
        header = bank.info.model_dump(mode="json", by_alias=True, exclude_unset=True)
        root.append(_comment(BANK_META, header))
        title = category_name(bank.info.title)
        node = ET.SubElement(root, "question", {"type": "category"})
        _text_element(node, "category", _xml_safe(f"$course$/top/{title}", bank.info.id, said))
        _text_element(node, "info", _xml_safe(bank.info.description or "", bank.info.id, said),
                      format="plain_text")
        ET.SubElement(node, "idnumber").text = bank.info.id
        written = written_questions(bank.path)
        category = None
        for question in bank.questions:
            qid = question.id
            if question.topic != category:
                category = question.topic
                name = category_name(bank.info.topics.get(category, category))
                node = ET.SubElement(root, "question", {"type": "category"})
                _text_element(node, "category", _xml_safe(f"$course$/top/{title}/{name}", qid,
                                                          said))
                ET.SubElement(node, "idnumber").text = category
            data = question_data(question, written.get(qid))
            node = ET.SubElement(root, "question", {"type": "multichoice"})
            node.append(_comment(META, {k: v for k, v in data.items() if k not in (
                "id", "question", "options", "answer", "distractor_review",
                "full_explanation", *COMPUTED_KEYS)}))
            _text_element(node, "name", qid)
            _text_element(node, "questiontext", _xml_safe(question.stem, qid, said),
                          format="plain_text")
            _text_element(node, "generalfeedback",
                          _xml_safe(question.full_explanation, qid, said), format="plain_text")
            ET.SubElement(node, "defaultgrade").text = "1"
            ET.SubElement(node, "penalty").text = "0.3333333"
            ET.SubElement(node, "hidden").text = "0"
            ET.SubElement(node, "idnumber").text = qid
            ET.SubElement(node, "single").text = str(not question.multiple_response).lower()
            ET.SubElement(node, "shuffleanswers").text = str(question.shuffle).lower()
            ET.SubElement(node, "answernumbering").text = "ABCD"
            keys = question.answer_keys
            for key, text in question.options.items():
                if question.multiple_response:
                    fraction = _fraction(len(keys)) if key in keys else "-100"
                else:
                    fraction = "100" if key in keys else "0"
                answer = _text_element(node, "answer", _xml_safe(text, qid, said),
                                       fraction=fraction, format="plain_text")
                review = (question.short_explanation if key in keys
                          else question.distractor_review.get(key, ""))
                _text_element(answer, "feedback", _xml_safe(review, qid, said),
                              format="plain_text")
            if question.tags:
                tags = ET.SubElement(node, "tags")
                for tag in question.tags:
                    _text_element(tags, "tag", tag)
    ET.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(root, encoding="unicode") + "\n")
