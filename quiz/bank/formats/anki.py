"""Anki deck export (``.apkg``) with ``genanki``.

One deck per bank (named by the bank's title, its id derived from the bank id), one note per
question. The front shows the stem and the lettered options; the back shows the verdict (the
right letter or letters with their text), the short explanation, a text or table infographic,
the full explanation, the distractor review under each wrong option's letter, and the references.
Options keep bank order, so every letter on the card is the letter the reviews use. A bank's hard
line breaks inside a paragraph are taken out (:func:`unwrap`), so the card reflows.

Each note's GUID is derived from the question id (``genanki.guid_for("quiz", id)``), and the note
type and deck ids are fixed or derived from the bank id, so importing a newer export into Anki
updates the notes already there instead of adding copies.

An ``.apkg`` is a zip holding ``collection.anki2`` (Anki's SQLite collection) and ``media``.
"""

from __future__ import annotations

import hashlib
import html
import io
import itertools
import re
import sqlite3
import tempfile
import time
import zipfile
from pathlib import Path

import genanki

from quiz.bank.library import LoadedBank
from quiz.bank.model import Question

MODEL_ID = 1_730_412_011
"""The note type's id: fixed, so every export uses the same note type."""

_CSS = """\
.card { font-family: sans-serif; font-size: 18px; text-align: left; }
.stem, .text { white-space: pre-wrap; }
.option { margin: .3em 0; }
.verdict { font-weight: bold; margin-bottom: .8em; }
.review { margin: .3em 0; }
pre { font-size: 14px; }
"""

MODEL = genanki.Model(
    MODEL_ID, "quiz question",
    fields=[{"name": "Front"}, {"name": "Back"}, {"name": "QuestionId"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}",
                "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}],
    css=_CSS)


def guid(question_id: str) -> str:
    """The stable GUID of the note for ``question_id``."""
    return str(genanki.guid_for("quiz", question_id))


def deck_id(bank_id: str) -> int:
    """A stable deck id for ``bank_id``: 31 bits of its SHA-256, at least 2^30."""
    return int.from_bytes(hashlib.sha256(bank_id.encode()).digest()[:4], "big") | (1 << 30)


_KEEP_BREAK = re.compile(r"^(\s|[-*•+|>]\s|\d+[.)]\s|[A-H][.)]\s)")


def unwrap(text: str) -> str:
    """``text`` with the hard line breaks inside its paragraphs taken out (a bank's ``|``
    blocks break lines every ~70 characters; a card reflows to its width): a line break
    becomes a space, except before a list item, an indented line or a table row, and blank
    lines (paragraph breaks) stay."""
    paragraphs = re.split(r"\n[ \t]*\n", text)
    out = []
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        joined = lines[0]
        for line in lines[1:]:
            joined += ("\n" if _KEEP_BREAK.match(line) else " ") + line
        out.append(joined)
    return "\n\n".join(out)


def _html(text: str) -> str:
    return html.escape(unwrap(text)).replace("\n", "<br>")


def front(question: Question) -> str:
    """The front of a card: the stem and the lettered options (HTML)."""
    options = "".join(f'<div class="option"><b>{key}.</b> {_html(text)}</div>'
                      for key, text in question.options.items())
    return f'<div class="stem">{_html(question.stem)}</div><br>{options}'


def back(question: Question) -> str:
    """The back of a card: verdict, short explanation, infographic (text or table), full
    explanation, distractor review and references (HTML)."""
    keys = sorted(question.answer_keys)
    verdict = ("Answers: " if len(keys) > 1 else "Answer: ") + "; ".join(
        f"{k}. {_html(question.options[k])}" for k in keys)
    parts = [f'<div class="verdict">{verdict}</div>',
             f'<div class="text">{_html(question.short_explanation)}</div>']
    info = question.infographic
    if info is not None and info.text is not None:
        parts.append(f"<pre>{html.escape(info.text)}</pre>")
    elif info is not None and info.table is not None:
        head = "".join(f"<th>{_html(c)}</th>" for c in info.table.columns)
        rows = "".join("<tr>" + "".join(f"<td>{_html(c)}</td>" for c in row) + "</tr>"
                       for row in info.table.rows)
        parts.append(f"<table><tr>{head}</tr>{rows}</table>")
    if info is not None and info.caption:
        parts.append(f"<div><i>{_html(info.caption)}</i></div>")
    parts.append(f'<h4>Full explanation</h4><div class="text">'
                 f"{_html(question.full_explanation)}</div>")
    reviews = "".join(f'<div class="review"><b>{k}.</b> {_html(text)}</div>'
                      for k, text in question.distractor_review.items())
    parts.append(f"<h4>Why the other options are wrong</h4>{reviews}")
    if question.references:
        items = "".join(f"<li>{_html(r)}</li>" for r in question.references)
        parts.append(f"<h4>References</h4><ul>{items}</ul>")
    return "".join(parts)


def package(banks: list[LoadedBank]) -> genanki.Package:
    """The genanki package of ``banks``: a deck per bank, a note per question."""
    decks = []
    for bank in banks:
        deck = genanki.Deck(deck_id(bank.info.id), bank.info.title,
                            description=bank.info.description or "")
        for question in bank.questions:
            tags = [question.topic, *([question.difficulty] if question.difficulty else []),
                    *question.tags]
            deck.add_note(genanki.Note(model=MODEL, guid=guid(question.id), tags=tags,
                                       fields=[front(question), back(question), question.id]))
        decks.append(deck)
    return genanki.Package(decks)


def render(banks: list[LoadedBank], warnings: list[str] | None = None,
           timestamp: float | None = None) -> bytes:
    """The ``.apkg`` bytes of ``banks`` (``warnings``: not used). ``timestamp`` (seconds since
    the epoch, default now) sets the notes' modification time. The SQLite collection is built
    in a temporary folder that is removed afterwards (genanki's own ``write_to_file`` leaves
    its file behind)."""
    stamp = time.time() if timestamp is None else timestamp
    with tempfile.TemporaryDirectory(prefix="quiz-apkg-") as folder:
        db = Path(folder) / "collection.anki2"
        connection = sqlite3.connect(db)
        try:
            package(banks).write_to_db(connection.cursor(), stamp,
                                       itertools.count(int(stamp * 1000)))
            connection.commit()
        finally:
            connection.close()
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(db, "collection.anki2")
            archive.writestr("media", "{}")
    return out.getvalue()
