"""Moodle XML: import and export (https://docs.moodle.org/en/Moodle_XML_format).

Import reads ``multichoice`` questions, single (``<single>true</single>``) and multiple
response (an answer with a positive ``fraction`` is right), and ``truefalse`` ones: ``name`` (or
``idnumber``) becomes the id, ``questiontext`` the stem, ``generalfeedback`` the full
explanation, each wrong answer's ``feedback`` its distractor review, ``tags`` the tags, and a
``category`` question the topic of those after it. Text in ``format="html"`` loses its tags (a
bank shows text literally). Other question types are skipped, each with a note at its line.

The XML is read by expat (the parser under :mod:`xml.etree`) into an
:class:`xml.etree.ElementTree.TreeBuilder`, recording each element's line; expat does not fetch
external entities, and its protection against entity expansion attacks is on by default.

Export writes one ``multichoice`` question per bank question, in ``plain_text`` format, after a
``category`` question per topic; multiple response gets ``fraction`` 100/n per right answer and
-100 per wrong one. What Moodle XML cannot carry goes in a ``<!-- quiz: {...} -->`` comment in
the question (Moodle ignores it; this importer reads it), so a bank survives the round trip.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any
from xml.parsers import expat

from quiz.bank.formats import Note, Parsed, letters, merge_header, question_data
from quiz.bank.formats.gift import html_to_text
from quiz.bank.library import LoadedBank
from quiz.bank.model import OPTION_KEYS
from quiz.bank.template import slug

META = "quiz:"
BANK_META = "quiz-bank:"


def _read(text: str) -> tuple[ET.Element, dict[int, int]]:
    """Parse ``text`` into an element tree with comments; returns the root and each element's
    line (by ``id``). Raises ``expat.ExpatError`` on malformed XML."""
    builder = ET.TreeBuilder(insert_comments=True)
    lines: dict[int, int] = {}
    parser = expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = builder.start(tag, attrs)
        lines[id(element)] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.CommentHandler = builder.comment
    parser.Parse(text, True)
    return builder.close(), lines


def _text(element: ET.Element | None) -> str:
    """The ``<text>`` of a Moodle text element, as plain text (HTML removed when
    ``format="html"``)."""
    if element is None:
        return ""
    inner = element.find("text")
    value = (inner.text if inner is not None else element.text) or ""
    if element.get("format", "html") == "html":
        return html_to_text(value)
    return value


def parse(text: str) -> Parsed:
    """Read a Moodle XML file into questions and notes (see the module docstring)."""
    result = Parsed()
    try:
        root, lines = _read(text)
    except expat.ExpatError as exc:
        result.notes.append(Note(exc.lineno, f"not well-formed XML: "
                                 f"{expat.ErrorString(exc.code)} (column {exc.offset + 1})",
                                 "error"))
        return result
    if root.tag != "quiz":
        result.notes.append(Note(lines.get(id(root), 1), f"the root element is <{root.tag}>; "
                                 "a Moodle XML file has <quiz>", "error"))
        return result
    for child in root:
        if not isinstance(child.tag, str) and (child.text or "").strip().startswith(BANK_META):
            header = _meta(child, BANK_META, result, lines.get(id(root), 1))
            if header is not None:
                result.bank = merge_header(result.bank, header)
    topic = None
    for question in root.iter("question"):
        line = lines.get(id(question), 0)
        kind = question.get("type", "")
        if kind == "category":
            path = _text(question.find("category"))
            topic = slug(path.rstrip("/").split("/")[-1]) if path else None
            continue
        if kind not in ("multichoice", "truefalse"):
            result.notes.append(Note(line, f"a {kind or 'typeless'} question: skipped, only "
                                     "multichoice and truefalse questions can be imported",
                                     "error"))
            continue
        data = _question(question, kind, line, result)
        if data is None:
            continue
        if topic:
            data["topic"] = topic
        for comment in question:
            if not isinstance(comment.tag, str) and (comment.text or "").strip().startswith(META):
                meta = _meta(comment, META, result, line)
                for key, value in (meta or {}).items():
                    if key not in ("question", "options", "answer", "distractor_review",
                                   "full_explanation"):
                        data[key] = value
        result.questions.append(data)
    return result


def _meta(comment: ET.Element, prefix: str, result: Parsed, line: int) -> dict[str, Any] | None:
    body = (comment.text or "").strip()[len(prefix):]
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        result.notes.append(Note(line, f"the '{prefix}' comment is not valid JSON ({exc.msg}); "
                                 "ignored"))
        return None
    return value if isinstance(value, dict) else None


def _question(element: ET.Element, kind: str, line: int, result: Parsed,
              ) -> dict[str, Any] | None:
    def skip(message: str) -> None:
        result.notes.append(Note(line, message + "; skipped", "error"))

    stem = _text(element.find("questiontext"))
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
    right: list[str] = []
    reviews: dict[str, str] = {}
    for key, answer in zip(keys, answers, strict=True):
        options[key] = _text(answer) if answer.find("text") is not None else ""
        try:
            fraction = float(answer.get("fraction", "0"))
        except ValueError:
            skip(f"answer {key} has fraction {answer.get('fraction')!r}, not a number")
            return None
        if fraction > 0:
            right.append(key)
        else:
            feedback = _text(answer.find("feedback"))
            if feedback.strip():
                reviews[key] = feedback
    empty = [k for k, v in options.items() if not v.strip()]
    if empty:
        skip(f"answer {', '.join(empty)} has no text")
        return None
    if not right:
        skip("no answer has a positive fraction")
        return None
    if len(right) == len(keys):
        skip("every answer is right: a bank question needs a distractor")
        return None
    single = (element.findtext("single") or "true").strip().lower() in ("true", "1")
    if single and len(right) > 1:
        result.notes.append(Note(line, "a single-answer question with several right answers: "
                                 "imported as multiple response"))
    data: dict[str, Any] = {"line": line}
    ident = (element.findtext("idnumber") or "").strip() or _text(element.find("name"))
    if ident.strip():
        data["id"] = slug(ident)
    tags = [slug(t.findtext("text") or "") for t in element.findall("tags/tag")]
    if tags:
        data["tags"] = [t for t in tags if t != "bank"]
    data["question"] = stem
    data["options"] = options
    data["answer"] = right[0] if len(right) == 1 else right
    if kind == "truefalse" or (element.findtext("shuffleanswers") or "").strip() in ("false",
                                                                                      "0"):
        data["shuffle"] = False
    general = _text(element.find("generalfeedback"))
    if general.strip():
        data["full_explanation"] = general
    if reviews:
        data["distractor_review"] = reviews
    return data


# --- Export -------------------------------------------------------------------------------------

def _comment(prefix: str, value: dict[str, Any]) -> Any:
    # "--" may not appear inside an XML comment; in JSON it can only be inside a string.
    body = json.dumps(value, ensure_ascii=False).replace("--", "-\\u002d")
    return ET.Comment(f" {prefix} {body} ")


def _text_element(parent: ET.Element, tag: str, value: str, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    ET.SubElement(element, "text").text = value
    return element


def _fraction(count: int) -> str:
    return f"{100 / count:.5f}".rstrip("0").rstrip(".")


def render(banks: list[LoadedBank]) -> str:
    """The questions of ``banks`` as a Moodle XML document (UTF-8 text)."""
    root = ET.Element("quiz")
    for bank in banks:
        header = bank.info.model_dump(mode="json", by_alias=True, exclude_unset=True)
        root.append(_comment(BANK_META, header))
        category = None
        for question in bank.questions:
            if question.topic != category:
                category = question.topic
                node = ET.SubElement(root, "question", {"type": "category"})
                _text_element(node, "category", f"$course$/top/{category}")
            data = question_data(question)
            node = ET.SubElement(root, "question", {"type": "multichoice"})
            node.append(_comment(META, {k: v for k, v in data.items() if k not in (
                "id", "question", "options", "answer", "distractor_review",
                "full_explanation")}))
            _text_element(node, "name", question.id)
            _text_element(node, "questiontext", question.stem, format="plain_text")
            _text_element(node, "generalfeedback", question.full_explanation,
                          format="plain_text")
            ET.SubElement(node, "defaultgrade").text = "1"
            ET.SubElement(node, "penalty").text = "0.3333333"
            ET.SubElement(node, "hidden").text = "0"
            ET.SubElement(node, "idnumber").text = question.id
            ET.SubElement(node, "single").text = str(not question.multiple_response).lower()
            ET.SubElement(node, "shuffleanswers").text = str(question.shuffle).lower()
            ET.SubElement(node, "answernumbering").text = "ABCD"
            keys = question.answer_keys
            for key, text in question.options.items():
                if question.multiple_response:
                    fraction = _fraction(len(keys)) if key in keys else "-100"
                else:
                    fraction = "100" if key in keys else "0"
                answer = _text_element(node, "answer", text, fraction=fraction,
                                       format="plain_text")
                review = question.distractor_review.get(key, "")
                _text_element(answer, "feedback", review, format="plain_text")
            if question.tags:
                tags = ET.SubElement(node, "tags")
                for tag in question.tags:
                    _text_element(tags, "tag", tag)
    ET.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(root, encoding="unicode") + "\n")

