"""The exam's body: the question view without a reveal; choices can change until submitted."""

from __future__ import annotations

from collections.abc import Iterable

from quiz.tui.widgets.question_view import QuestionView


class ExamView(QuestionView):
    """The exam's body: the question screen's :class:`QuestionView` — the same stem, hint line,
    options, keys and clicks — without a reveal. A choice is drawn as chosen and can be changed
    until the exam is submitted; ``Enter`` on a multiple-response question ticks the highlighted
    option as ``Space`` does (an exam question has no answer to submit on its own: it counts as
    answered while as many options are ticked as it asks for)."""

    DRAWS_REVEAL_AHEAD = False

    def action_select(self) -> None:
        """Enter: choose the highlighted option (multiple response: tick or untick it)."""
        if self.shown is not None and self.shown.question.multiple_response:
            self.action_tick()
        else:
            super().action_select()

    def show_choice(self, letters: Iterable[str]) -> None:
        """Draw ``letters`` as the chosen (ticked) options — what the exam has recorded for the
        question shown — keeping the highlighted option in view."""
        self.ticked = set(letters)
        self.redraw_options()
        if self.highlighted is not None:
            self._scroll_to_option(self.highlighted)
