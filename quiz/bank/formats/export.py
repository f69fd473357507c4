"""``quiz export``: banks → a file in another format.

Export (:func:`export_banks`) loads banks (they must load without errors), refuses text that is
not finished (lint rule Q102's placeholders) unless told otherwise, renders them in the chosen
format (:func:`render_export`: the one function from questions to bytes) and writes the file the
same all-or-nothing way as an import (:mod:`quiz.bank.formats.transfer`); it never replaces an
existing file unless ``force`` is given, and never replaces, even then, a link, a device or pipe,
a read-only file or one of the banks it reads.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from quiz.bank.files import replace_problem, write_atomic
from quiz.bank.formats.transfer import (
    FORMATS,
    Format,
    TransferError,
    _check_folder,
    pick_format,
)
from quiz.bank.library import LoadedBank


@dataclass
class ExportReport:
    """What an export did: the ``format`` used and its ``warnings`` (text it had to change)."""

    format: Format
    warnings: list[str] = field(default_factory=list)


def unfinished(banks: Sequence[LoadedBank]) -> list[str]:
    """Each question of ``banks`` that still holds placeholder text (lint rule Q102), as
    ``"id (where)"``."""
    from quiz.bank.lint import placeholder_fields

    found = []
    for bank in banks:
        for question in bank.questions:
            fields = placeholder_fields(question)
            if fields:
                found.append(f"{question.id} ({', '.join(fields)})")
    return found


def render_export(banks: list[LoadedBank], form: Format, *, bom: bool = True,
                  ) -> tuple[bytes, list[str]]:
    """``banks`` in the format ``form``, as bytes, and the warnings rendering gave. The one
    path from questions to an export: a caller with questions of its own (rendered variants)
    passes them as :class:`LoadedBank` objects. ``bom``: start a CSV with a UTF-8 byte-order
    mark (so Excel reads it as UTF-8)."""
    assert form.render is not None
    warnings: list[str] = []
    content = form.render(banks, warnings)
    if isinstance(content, bytes):
        return content, warnings
    data = content.encode("utf-8")
    return (b"\xef\xbb\xbf" + data if bom and form.name == "csv" else data), warnings


def export_banks(banks: list[LoadedBank], to: Path | None, *, fmt: str | None = None,
                 force: bool = False, allow_unfinished: bool = False, bom: bool = True,
                 inputs: Sequence[Path] = ()) -> ExportReport:
    """Render ``banks`` in the format of ``to`` (or ``fmt``) and write it; ``to`` None writes
    to standard output (``--to -``: ``fmt`` is then required).

    Raises :class:`TransferError` when ``to`` exists and ``force`` is not given; when ``to``
    is a link, a device or pipe, a read-only file or one of the ``inputs`` (even with
    ``force``); when the extension of ``to`` is another format's; when a question holds
    placeholder text and ``allow_unfinished`` is not given; for an unknown format. ``OSError``
    when the file cannot be written (the old file is then unchanged)."""
    if to is None:
        if fmt is None:
            raise TransferError("--to - (standard output) needs --format")
        form = pick_format(Path("-"), fmt, exporting=True)
        if form.name == "apkg" and sys.stdout.isatty():
            raise TransferError("an Anki deck is a binary file: redirect standard output to a "
                                "file (> deck.apkg), or give --to deck.apkg")
    else:
        form = pick_format(to, fmt, exporting=True)
        owner = [f for f in FORMATS.values() if to.suffix.lower() in f.extensions]
        if fmt is not None and owner and form not in owner:
            raise TransferError(f"{to.name} has the extension of {owner[0].title} files but "
                                f"--format is {form.name}; name the file "
                                f"{to.stem}{form.extensions[0] if form.extensions else ''}")
        _check_folder(to)
        problem = replace_problem(to, inputs)
        if problem is not None:
            raise TransferError(problem)
        if to.exists() and not force:
            raise TransferError(f"{to} already exists; give --force to replace it")
    if not allow_unfinished:
        left = unfinished(banks)
        if left:
            shown = "; ".join(left[:10]) + (f"; and {len(left) - 10} more" if len(left) > 10
                                            else "")
            raise TransferError(f"{len(left)} question{'s' * (len(left) > 1)} still hold "
                                f"placeholder text (Q102), which must not reach a student: "
                                f"{shown}. Write them (quiz validate lists each), or give "
                                "--allow-unfinished")
    data, warnings = render_export(banks, form, bom=bom)
    if to is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(to, data)
    return ExportReport(form, warnings)
