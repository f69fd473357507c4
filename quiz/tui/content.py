"""Bank text is data: turn it into Textual ``Content`` that is never parsed as markup and never
carries terminal control characters."""

from __future__ import annotations

from textual.content import Content

from quiz.bank.terminal import terminal_safe


def literal(text: str, style: str = "") -> Content:
    """Return ``text`` as literal Content: square brackets, backslashes and emoji shown as
    written, control characters replaced by visible symbols (see :func:`terminal_safe`), and
    a trailing newline (from a YAML block scalar) dropped."""
    content = Content(terminal_safe(text.rstrip("\n")))
    return content.stylize(style) if style else content


def assemble(*parts: str | tuple[str, str]) -> Content:
    """Join literal pieces of text, each optionally styled: ``assemble(("A", "bold"), " text")``.
    Every piece is made terminal-safe; none is parsed as markup."""
    safe: list[str | tuple[str, str]] = [
        (terminal_safe(p[0]), p[1]) if isinstance(p, tuple) else terminal_safe(p) for p in parts
    ]
    return Content.assemble(*safe)


LONG_WORD = 24
"""A word longer than this (a file name with its time stamp) goes on a line of its own in a
notice."""


def path_lines(text: str) -> str:
    """``text`` with each file path (a word with a ``/`` in it) and each very long word on a
    line of its own, the home folder written ``~``: a narrow notification then wraps at words,
    never inside a path (as it did for the "progress file set aside" notice)."""
    from pathlib import Path

    home = str(Path.home())
    out: list[str] = []
    words: list[str] = []
    for word in text.split(" "):
        if "/" in word or len(word) > LONG_WORD:
            if words:
                out.append(" ".join(words))
                words = []
            out.append("~" + word[len(home):] if home != "/" and word.startswith(home + "/")
                       else word)
        else:
            words.append(word)
    if words:
        out.append(" ".join(words))
    return "\n".join(out)
