"""BLAKE2b and a constant-time comparison, without loading OpenSSL.

What a study start hashes before its first frame is BLAKE2b only (the validated-bank cache's
entry names, keyed checks and code fingerprint; the kept and shipped CSS's key lines).
``hashlib.blake2b`` is this very type (CPython's own BLAKE2, never OpenSSL's), but importing
it from :mod:`hashlib` first loads OpenSSL's bindings, ``_hashlib``: 0.9 ms of the study app's
first frame, which only SHA-1 (the bank content hash, computed when a bank is loaded in full)
needs. :func:`compare_digest` is :func:`hmac.compare_digest`'s own fallback, the same
constant-time comparison (CPython's ``_operator``).

Attributes:
    blake2b: :class:`hashlib.blake2b` (``digest_size``, ``key``, ``update``, ``digest``,
        ``hexdigest``, ``copy``; RFC 7693).
    compare_digest: ``compare_digest(a, b) -> bool`` for bytes, in time that depends on the
        length only (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without its own BLAKE2
    from hashlib import blake2b
try:
    from _operator import _compare_digest as compare_digest
except ImportError:  # pragma: no cover - another Python implementation
    from hmac import compare_digest  # type: ignore[no-redef]

__all__ = ["blake2b", "compare_digest"]
