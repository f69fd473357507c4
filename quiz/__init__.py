"""quiz: terminal exam prep for AI infrastructure.

Training vs inference: memory, precision and storage.

This package's top level imports nothing heavy: the core (``quiz.bank``, ``quiz.study``,
``quiz.footprint``) never imports Textual, and the TUI (``quiz.tui``) is imported only when run.
"""

__version__ = "0.1.0"
