"""Question identity for progress: :func:`content_hash` lives in :mod:`quiz.bank.identity` (the
loader computes it once per question, and the validated-bank cache keeps it)."""

from __future__ import annotations

from quiz.bank.identity import content_hash

__all__ = ["content_hash"]
