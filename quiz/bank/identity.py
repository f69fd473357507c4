"""Question identity: progress is keyed on question ids; the content hash notices a change.

A question keeps its history when its id stays the same. Its content hash covers what a student
answers — the stem, the options and the answer key — so a fixed typo in an explanation does not
reset a schedule, while a changed stem, option or key does
(:meth:`quiz.study.store.Store.reset_changed_cards`).
"""

from __future__ import annotations

import hashlib
import json

from quiz.bank.model import Question


def content_hash(question: Question) -> str:
    """SHA-256 (hex, first 16 characters) of the question's stem, options and answer key,
    serialised as canonical JSON (sorted keys, UTF-8)."""
    payload = {
        "stem": question.stem,
        "options": question.options,
        "answer": sorted(question.answer_keys),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
