"""Question identity: progress is keyed on question ids; the content hash notices a change.

A question keeps its history when its id stays the same. Its content hash covers what a student
answers — the stem, the options and the answer key — so a fixed typo in an explanation does not
reset a schedule, while a changed stem, option or key does
(:meth:`quiz.study.store.Store.reset_changed_cards`).
"""

from __future__ import annotations

import hashlib
from json.encoder import encode_basestring

from quiz.bank.model import Question


def content_hash(question: Question) -> str:
    """SHA-256 (hex, first 16 characters) of the question's stem, options and answer key,
    serialised as canonical JSON (sorted keys, UTF-8): the text of
    ``json.dumps({"stem": ..., "options": ..., "answer": sorted keys}, sort_keys=True,
    ensure_ascii=False, separators=(",", ":"))``, written here directly (a load hashes every
    question: the general encoder took twice as long)."""
    options = question.options
    stem = question.stem
    keys = sorted(question.answer_keys)
    plain = "".join([stem, *options.values(), *options, *keys])
    if plain.isprintable() and '"' not in plain and "\\" not in plain:  # nothing to escape
        text = "".join([
            '{"answer":[', '"' + '","'.join(keys) + '"' if keys else "", '],"options":{',
            ",".join([f'"{key}":"{options[key]}"' for key in sorted(options)]),
            '},"stem":"', stem, '"}'])
    else:
        text = "".join([
            '{"answer":[', ",".join(map(_string, keys)), '],"options":{',
            ",".join([f"{_string(key)}:{_string(options[key])}" for key in sorted(options)]),
            '},"stem":', _string(stem), "}"])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _string(text: str) -> str:
    """``text`` as a JSON string, as ``json.dumps(text, ensure_ascii=False)`` writes it: in
    quotes, with ``"``, ``\\`` and the characters below U+0020 escaped (none to escape in
    most text: then it is not scanned character by character)."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return encode_basestring(text)
