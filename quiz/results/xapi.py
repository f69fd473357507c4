"""Answers as xAPI 1.0.3 statements, ready to POST to a learning record store.

One statement per answer (xAPI 1.0.3, Part Two, sec. 2.4): the learner as an Agent identified by
an ``account`` (pseudonymous: no e-mail), the ADL verb ``answered``, the question as an Activity
of type ``cmi.interaction`` with ``interactionType: choice`` (its choices and the
``correctResponsesPattern`` when the bank is given), and a result with ``success``, ``response``
(chosen option keys joined by ``[,]``, as the specification's choice interactions write them) and
``duration`` (ISO 8601). The statement id is a UUID derived from the answer (learner, session,
question, time), so exporting twice gives the same ids and an LRS stores each answer once.

Activity ids are IRIs built from ``iri_base`` (default :data:`DEFAULT_IRI_BASE`, an address that
never resolves: set your school's own with ``--iri-base``), the bank id and the question id.
Nothing is sent anywhere: the export writes a file.

Source: xAPI 1.0.3, Part Two "Experience API Data" (github.com/adlnet/xAPI-Spec,
xAPI-Data.md), sec. 2.4.2 Actor, 2.4.3 Verb, 2.4.4 Object (Interaction Activities), 2.4.5
Result, 2.4.6 Context, 4.6 ISO 8601 Durations.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from quiz.results.export import ExportedAnswer

if TYPE_CHECKING:
    from quiz.bank.library import Library

DEFAULT_IRI_BASE = "https://quiz.invalid/"
"""Where activity ids and the learner's account home page point by default (``.invalid`` is
reserved and never resolves, RFC 2606); ``--iri-base`` sets a real one."""
ANSWERED = "http://adlnet.gov/expapi/verbs/answered"
"""ADL's verb for answering a question."""
INTERACTION = "http://adlnet.gov/expapi/activities/cmi.interaction"
"""The activity type of a question (an interaction)."""
_NAMESPACE = uuid.UUID("5b6d3a52-52f4-4c8e-9a52-7a3c1f0e4d10")
"""Namespace of the UUIDv5 statement ids (fixed: the same answer always gets the same id)."""


def duration(seconds: float) -> str:
    """``seconds`` as an ISO 8601 duration with at most two decimals, as xAPI asks
    (``PT41.2S``, ``PT1M5S``, ``PT2H0M3.5S``)."""
    hundredths = max(0, round(seconds * 100))
    hours, rest = divmod(hundredths, 360_000)
    minutes, rest = divmod(rest, 6_000)
    secs = f"{rest // 100}" if rest % 100 == 0 else f"{rest / 100:.2f}".rstrip("0")
    if hours:
        return f"PT{hours}H{minutes}M{secs}S"
    if minutes:
        return f"PT{minutes}M{secs}S"
    return f"PT{secs}S"


def activity_id(iri_base: str, bank_id: str, question_id: str) -> str:
    """The question's stable activity IRI: ``{iri_base}banks/{bank}/questions/{question}``."""
    base = iri_base if iri_base.endswith("/") else iri_base + "/"
    return f"{base}banks/{quote(bank_id, safe='')}/questions/{quote(question_id, safe='')}"


def _definition(answer: ExportedAnswer, library: Library | None) -> dict[str, Any]:
    definition: dict[str, Any] = {"type": INTERACTION, "interactionType": "choice",
                                  "name": {"en-US": answer.question_id}}
    question = None
    if library is not None:
        try:
            question = library.question(answer.question_id)
        except KeyError:
            question = None
    if question is not None:
        definition["description"] = {"en-US": question.stem.strip()}
        definition["choices"] = [{"id": key, "description": {"en-US": text.strip()}}
                                 for key, text in question.options.items()]
    if answer.key:
        definition["correctResponsesPattern"] = ["[,]".join(answer.key)]
    return definition


def statement(answer: ExportedAnswer, *, iri_base: str = DEFAULT_IRI_BASE,
              library: Library | None = None) -> dict[str, Any]:
    """One answer as an xAPI statement (a JSON object; see the module docstring)."""
    base = iri_base if iri_base.endswith("/") else iri_base + "/"
    stable = f"{answer.learner}\n{answer.session_id}\n{answer.question_id}\n{answer.answered_at}"
    registration = uuid.uuid5(_NAMESPACE, f"{answer.learner}\n{answer.session_id}")
    extensions: dict[str, Any] = {f"{base}extensions/mode": answer.mode}
    if answer.variant:
        extensions[f"{base}extensions/variant"] = answer.variant
    return {
        "id": str(uuid.uuid5(_NAMESPACE, stable)),
        "actor": {"objectType": "Agent",
                  "account": {"homePage": f"{base}learners", "name": answer.learner}},
        "verb": {"id": ANSWERED, "display": {"en-US": "answered"}},
        "object": {"objectType": "Activity",
                   "id": activity_id(base, answer.bank_id, answer.question_id),
                   "definition": _definition(answer, library)},
        "result": {"success": answer.correct, "response": "[,]".join(answer.chosen),
                   "duration": duration(answer.seconds)},
        "context": {"registration": str(registration), "platform": "quiz",
                    "extensions": extensions},
        "timestamp": answer.answered_at,
    }


def to_xapi(answers: Iterable[ExportedAnswer], *, iri_base: str = DEFAULT_IRI_BASE,
            library: Library | None = None) -> str:
    """Every answer as a statement, in a JSON array (what an LRS's ``POST /statements`` takes)."""
    statements = [statement(a, iri_base=iri_base, library=library) for a in answers]
    return json.dumps(statements, indent=1, ensure_ascii=False) + "\n"
