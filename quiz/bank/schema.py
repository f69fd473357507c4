"""The JSON Schema of a bank file, for editors: generated from the pydantic models.

``quiz schema`` prints it; a copy ships as ``question_bank/quiz-bank.schema.json`` (a test keeps it
equal to :func:`render`), and every bundled bank names it on its first line::

    # yaml-language-server: $schema=./quiz-bank.schema.json

so editors with the YAML language server (VS Code's YAML extension, Neovim, Helix, Zed) complete
keys and flag unknown ones as one types.

The schema describes the file as an editor's YAML 1.2 parser reads it, which is not how the
loader reads it: the loader keeps every scalar as the text typed, so an option written ``8`` or
``true`` is the text "8" or "true", and counts such as ``params: 7B`` are text it parses. So
where the models want text, the schema also accepts a number or a boolean, and where they want a
number, it also accepts text; an editor then never flags what the loader accepts. The loader
(``quiz validate``) stays the judge: it checks what a schema cannot (the answer names an option,
one review per wrong option, footprint values).
"""

from __future__ import annotations

import json
from typing import Any

from quiz.bank.model import BankFile

SCHEMA_FILE = "quiz-bank.schema.json"
"""The shipped copy's file name, next to the bundled banks."""

MODELINE = f"# yaml-language-server: $schema=./{SCHEMA_FILE}"
"""The first line of every bundled bank."""

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one bank file, as a ``dict``."""
    generated = BankFile.model_json_schema(by_alias=True, mode="validation")
    _computed_questions(generated["$defs"]["Question"])
    body = _as_editors_read(generated)
    return {
        "$schema": _DIALECT,
        "title": "quiz question bank (format v1)",
        "description": "One bank file: a 'bank:' header and its 'questions:'. Documented in "
                       "FORMAT.md; check a file with 'quiz validate PATH'.",
        **{k: v for k, v in body.items() if k not in ("title", "description")},
    }


_GENERATED = ("options", "answer", "distractor_review")
"""The keys a computed question generates from ``answer_figure`` (and must not write)."""


def _computed_questions(question: dict[str, Any]) -> None:
    """A question writes ``options``, ``answer`` and ``distractor_review``, or generates them
    with ``answer_figure`` and ``misconceptions`` (:mod:`quiz.bank.computed`): the schema says
    so with ``if``/``then``/``else``, and lists the catalog's misconception names."""
    from quiz.bank.computed.misconceptions import CATALOG

    question["required"] = [k for k in question["required"] if k not in _GENERATED]
    question["if"] = {"required": ["answer_figure"]}
    question["then"] = {"required": ["misconceptions"],
                        "not": {"anyOf": [{"required": [k]} for k in _GENERATED]}}
    question["else"] = {"required": list(_GENERATED)}
    names = question["properties"]["misconceptions"]["items"]
    names["enum"] = [m.name for m in CATALOG]


def render() -> str:
    """:func:`schema` as the text of the shipped file: indented JSON ending in a newline."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def _as_editors_read(node: Any) -> Any:
    """Rewrite a generated schema for an editor's YAML parser (see the module docstring):
    text also admits numbers and booleans, numbers also admit text, an optional value is never
    ``null`` (the loader has no null), and a mapping keyed by a pattern admits no other key."""
    if isinstance(node, list):
        return [_as_editors_read(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {k: _as_editors_read(v) for k, v in node.items()}
    branches = node.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1:
            del node["anyOf"]
            node = {**node, **kept[0]}
            if node.get("default") is None:
                node.pop("default", None)
        elif len(kept) != len(branches):
            node["anyOf"] = kept
    kind = node.get("type")
    if kind == "string" and "enum" not in node and "const" not in node:
        node["type"] = ["string", "number", "boolean"]
    elif kind in ("integer", "number"):
        node["type"] = [kind, "string"]
    if "patternProperties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    return node
