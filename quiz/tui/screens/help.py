"""The key help."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from quiz.tui.widgets.help_text import HelpText

HELP_TEXT = """\
Start screen
  Ctrl+S         start (or Enter on the Start button); choose the
                 mode first: practice, exam, review or cram
  Ctrl+T         statistics: topics, due, mastered, leeches, history
  r              reload the banks from disk (after editing them);
                 problems are listed, the questions loaded stay

Question screen
  A–H or 1–8     choose that option (multiple response: tick it)
  ↑ ↓  Enter     move the highlight (none at first); choose it,
                 or submit the ticked options
  Space          tick the highlighted option (multiple response)
  click          choose (or tick) an option
  n  →  Enter    next question, once answered
  p  ←           previous question
  ↑ ↓ PgUp PgDn  scroll the explanations, once answered
  s              summary: score so far, per topic
  1 2 3 4        after the answer (practice, review): rate it Again,
                 Hard, Good or Easy instead of the rating given
                 (the line under the verdict says the rating)
  r              flag for review (again: unflag); cram goes over
                 the flagged questions
  u              undo the last answer (and its schedule change)
  Esc            back to the summary, on a question opened from
                 it (elsewhere: quit, after asking)

Exam
  A–H or 1–8     choose; change it any time (no feedback yet);
                 multiple response: tick, answered once complete
  ↑ ↓  Enter     move the highlight, then choose (or tick) it;
                 Space ticks too, and a click chooses
  n p  → ←       next, previous question
  r              flag for review (again: unflag)
  l              question map: answered, unanswered, flagged;
                 ←→↑↓ then Enter (or a click) jumps there
  s              review the unanswered and flagged, then submit
  t              pause: the question is hidden and the clock
                 stops (not in a strict exam); the report says so
  The exam ends when you submit or the clock reaches 0:00. A
  warning comes at 10, 5 and 1 minutes left.

Exam report
  ↑ ↓  Enter     the answer sheet: open a question's explanations
                 (n p next, previous; Esc back to the sheet)
  a w f u        list all, wrong, flagged or unanswered questions
  p  e           retake the missed ones as practice or as an exam
  e              (statistics) an exam's report again: the list of
                 exams submitted, newest first; Enter opens one

Summary
  r              retry what you missed
  ↑ ↓  Enter     open a question from the review list
  Ctrl+N         new session (back to the start screen)
  Esc            back to the questions

Calculator (m)
  Tab            next field; every change recomputes
  Esc            back to where you were
  From an answered question it starts from that question's
  worked example; otherwise from Llama-2-7B.

Everywhere
  ?  F1          this help (F1 where you are typing)
  Ctrl+P         command palette
  Ctrl+Q         quit, after asking (q and Esc too on the
                 start and question screens)
  Ctrl+Z         suspend to the shell; fg resumes
  Letter keys work in either case (Caps Lock on or off)."""

HELP_TITLE = "Keys · Esc or ? closes · ↑↓ PgUp PgDn scroll"
"""Above the scrolling list, so how to close it is always in view, even at 80×24."""


class HelpScreen(ModalScreen[None]):
    """The list of keys. Escape, ``?`` or ``q`` closes it."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
        Binding("f1", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(HELP_TITLE, id="help-title", markup=False)
            with VerticalScroll(id="help-scroll"):
                yield HelpText(HELP_TEXT, id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
