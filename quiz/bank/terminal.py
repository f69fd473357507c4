"""Bank text is data: helpers that keep it from ever acting on a terminal.

Bank text is shown literally (never parsed as markup); these helpers deal with the other danger,
characters that a terminal would act on.
"""

from __future__ import annotations

import re
import unicodedata

CONTROL_CHARS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""Characters that must never reach a terminal from bank text: C0 and C1 controls except tab and
newline (ESC starts CSI and OSC sequences, CR rewrites a line), DEL, the Unicode line and
paragraph separators (which terminals drop or treat as breaks), and the bidi marks, embeddings,
overrides and isolates (the "Trojan Source" characters, CVE-2021-42574)."""


def control_characters(text: str) -> list[str]:
    """Return the distinct control characters in ``text`` as readable names, in order of first
    appearance, e.g. ``["U+001B ESCAPE", "U+202E RIGHT-TO-LEFT OVERRIDE"]``; empty when clean."""
    names: dict[str, None] = {}
    for match in CONTROL_CHARS.finditer(text):
        ch = match.group()
        name = unicodedata.name(ch, "") or _C0_NAMES.get(ch, "CONTROL")
        names.setdefault(f"U+{ord(ch):04X} {name}", None)
    return list(names)


def terminal_safe(text: str) -> str:
    """Return ``text`` with every control character replaced by a visible symbol: C0 controls by
    their Unicode "control picture" (ESC → ␛, NUL → ␀), others by ``�``. Tabs are expanded to
    stops every four columns, so layout does not depend on the terminal's tab stops."""
    return CONTROL_CHARS.sub(_picture, text).expandtabs(4)


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


_C0_NAMES = {
    "\x00": "NULL", "\x07": "BELL", "\x08": "BACKSPACE", "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED", "\x0d": "CARRIAGE RETURN", "\x1b": "ESCAPE", "\x7f": "DELETE",
}
