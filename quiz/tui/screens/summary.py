"""The summary: score, pass mark, per-topic scores, and the questions to review."""

from __future__ import annotations

from weakref import ref

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual._context import active_app
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quiz.bank.terminal import terminal_safe
from quiz.study.session import Score, ShownQuestion, StudySession
from quiz.tui.content import assemble
from quiz.tui.messages import OpenQuestion, RetryQuestions
from quiz.tui.screens.kept import KeptScreen
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.title_bar import TitleBar

REVIEW_LIST_LIMIT = 100
"""The review list shows at most this many questions; a line after it counts the rest (``r``
retries them all)."""

STEM_PREVIEW = 90
"""Characters of a stem's first line shown in the review list."""


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' * (n != 1)}"


def score_line(score: Score, pass_mark: float | None) -> str:
    """``2 right of 3 answered (66.7%); all 3 answered`` — the percentage of a finished session
    is shown with the precision :meth:`Score.percents` picks against ``pass_mark``."""
    if score.answered == score.total and score.total:
        pct = score.percents(pass_mark if pass_mark is not None else 1.0)[0]
        return (f"{score.correct:,} right of {score.total:,} answered ({pct}); "
                f"all {score.total:,} answered")
    if not score.answered:
        return f"none of {_plural(score.total, 'question')} answered yet"
    pct = Score(score.correct, score.answered, score.answered).percents(1.0)[0]
    return (f"{score.correct:,} right of {score.answered:,} answered ({pct}); "
            f"{score.total - score.answered:,} of {score.total:,} not answered yet")


def pass_line(score: Score, pass_mark: float) -> str:
    """``Pass: 2 right needed of 3 (pass mark 67%)`` or ``Below the pass mark: ...``."""
    needed = score.needed(pass_mark)
    mark = score.percents(pass_mark)[1]
    verdict = "Pass" if score.passed(pass_mark) else "Below the pass mark"
    return f"{verdict}: {needed:,} right of {score.total:,} needed (pass mark {mark})"


class ReviewEntry(Visual):
    """One entry of the review list: a label (``  3. (wrong)``), a space, and a stem line that
    wraps under itself, not under the label — as a two-column Rich grid would lay it out, but
    wrapped once per width instead of measured as a table (a hundred tables made opening the
    summary several times slower)."""

    def __init__(self, label: str, text: str) -> None:
        self.label = label
        self.text = text
        self._by_width: dict[int, Content] = {}

    def _content(self, width: int) -> Content:
        content = self._by_width.get(width)
        if content is None:
            indent = cell_len(self.label) + 1
            # "ellipsis": what a table column does with a word longer than the column.
            lines = Text(self.text).wrap(_CONSOLE, max(1, width - indent), overflow="ellipsis")
            first, *rest = [line.plain.rstrip() for line in lines] or [""]
            content = Content("\n".join([f"{self.label} {first}",
                                          *(" " * indent + line for line in rest)]))
            self._by_width[width] = content
        return content

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        return self._content(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return cell_len(self.label) + 1 + cell_len(self.text)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self._content(width).plain.split("\n"))


_CONSOLE = Console(width=80, legacy_windows=False, force_terminal=False, color_system=None)
"""Only its text settings are used: :meth:`rich.text.Text.wrap` asks a console for them."""

class _Entries:
    """The review entries made for the last session summarised, by number and state: opening
    its summary again reuses them with the lines they have wrapped. (One session at a time,
    held weakly: a session is not hashable, and the summary is always of the current one.)"""

    session: ref[StudySession] | None = None
    entries: dict[tuple[int, str], ReviewEntry] = {}

    @classmethod
    def of(cls, session: StudySession) -> dict[tuple[int, str], ReviewEntry]:
        if cls.session is None or cls.session() is not session:
            cls.session, cls.entries = ref(session), {}
        return cls.entries


class TableVisual(Visual):
    """A Rich table, rendered once per width and then styled per base style. (In a ``Static``
    a Rich renderable is rendered again for every measure of its height and every repaint: the
    summary's per-topic table was rendered hundreds of times while the summary opened.)

    ``rows`` (the cells as text) says what the table shows: a summary whose rows did not change
    keeps the visual it has (:meth:`SummaryScreen.show`)."""

    def __init__(self, table: Table, rows: tuple[tuple[str, ...], ...] = ()) -> None:
        self.table = table
        self.rows = rows
        self._lines: dict[int, list[Strip]] = {}
        self._width: int | None = None

    def lines(self, width: int) -> list[Strip]:
        """The table rendered at ``width``, without a base style."""
        lines = self._lines.get(width)
        if lines is None:
            console = active_app.get().console
            options = console.options.update(highlight=False, width=width, height=None)
            segments = console.render(self.table, options)
            lines = self._lines[width] = [Strip(line) for line in Segment.split_and_crop_lines(
                segments, width, include_new_lines=False, pad=False)]
        return lines

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        base = style.rich_style
        return [line.apply_style(base) for line in self.lines(width)[:height]]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        if self._width is None:
            console = active_app.get().console
            self._width = Measurement.get(console, console.options, self.table).maximum
        return min(self._width, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))


class SummaryScreen(KeptScreen):
    """Score and per-topic breakdown of a session, the first attempt's score beside a retry's,
    and the questions missed: each entry opens its question; ``r`` retries them all."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "retry_missed", "Retry missed"),
        Binding("ctrl+n", "app.new_session", "New session"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
    ]

    def __init__(self, session: StudySession | None = None, *,
                 pass_mark: float | None = None, first_attempt: Score | None = None) -> None:
        """``first_attempt``: the score of the session this one retries (its first attempt),
        shown beside this one; the pass verdict then belongs to the first attempt. Without a
        ``session`` the screen is made ahead of time and shows nothing until :meth:`show`."""
        super().__init__()
        self.session = session
        self.pass_mark = pass_mark
        self.first_attempt = first_attempt

    def compose(self) -> ComposeResult:
        # Every part is there from the start and filled by show(): opening the summary again
        # (the app keeps this screen) composes nothing.
        yield TitleBar()
        with VerticalScroll(id="summary-body"):
            yield Static(id="summary-score", markup=False)
            yield Static(id="summary-first-attempt", markup=False)
            yield Static(id="summary-pass", markup=False)
            yield Static(id="summary-topics")
            yield Static(id="summary-review-title", classes="section-title", markup=False)
            yield OptionList(id="summary-missed")
            yield Static(id="summary-more", markup=False, classes="hint")
        yield KeyBar()

    def show(self, session: StudySession, *, pass_mark: float | None = None,
             first_attempt: Score | None = None) -> None:
        """Fill the screen with the summary of ``session`` as it stands now (see
        :meth:`__init__`), scrolled to the top."""
        self.session, self.pass_mark, self.first_attempt = session, pass_mark, first_attempt
        s = session
        score = s.score
        label = "This retry " if first_attempt is not None else "Score "
        self.query_one("#summary-score", Static).update(
            assemble((label, "bold"), score_line(score, pass_mark)))
        first_line = self.query_one("#summary-first-attempt", Static)
        first_line.display = first_attempt is not None
        if first_attempt is not None:
            text = score_line(first_attempt, pass_mark)
            if pass_mark is not None and first_attempt.answered == first_attempt.total:
                text += ". " + pass_line(first_attempt, pass_mark)
            first_line.update(assemble(("First attempt ", "bold"), text))
        verdict = self.query_one("#summary-pass", Static)
        verdict.display = first_attempt is None and pass_mark is not None and s.finished
        if verdict.display:
            assert pass_mark is not None
            passed = score.passed(pass_mark)
            verdict.update(pass_line(score, pass_mark))
            verdict.set_class(passed, "-pass")
            verdict.set_class(not passed, "-fail")
        rows = tuple((terminal_safe(s.topic_names.get(topic, topic)), str(t.correct),
                      str(t.answered), str(t.total)) for topic, t in s.score_by_topic().items())
        topics = self.query_one("#summary-topics", Static)
        if not (isinstance(topics.visual, TableVisual) and topics.visual.rows == rows):
            table = Table(title=None, header_style="bold", expand=False)
            table.add_column("Topic")
            table.add_column("Right", justify="right")
            table.add_column("Answered", justify="right")
            table.add_column("Questions", justify="right")
            for name, *figures in rows:
                table.add_row(Text(name), *figures)
            topics.update(TableVisual(table, rows))
        missed = s.missed()
        title = self.query_one("#summary-review-title", Static)
        title.display = bool(missed)
        title.update(f"To review ({len(missed):,}): Enter opens a question")
        entries = self.query_one("#summary-missed", OptionList)
        entries.display = bool(missed)
        entries.set_options(self._entry(shown) for shown in missed[:REVIEW_LIST_LIMIT])
        more = len(missed) - REVIEW_LIST_LIMIT
        shown_more = f"… and {_plural(more, 'more question')}. " if more > 0 else ""
        self.query_one("#summary-more", Static).update(
            f"{shown_more}r retries {'all ' * (more > 0)}these; Ctrl+N starts a new session."
            if missed else "Nothing missed. Ctrl+N starts a new session.")
        self.query_one("#summary-body", VerticalScroll).scroll_home(animate=False)
        if missed:
            entries.highlighted = 0
            # Focused for Enter and the arrows, but the score stays in view at the top.
            entries.focus(scroll_visible=False)

    def _entry(self, shown: ShownQuestion) -> Option:
        session = self.session
        assert session is not None
        state = "wrong" if session.outcome(shown) else "not answered"
        entries = _Entries.of(session)
        entry = entries.get((shown.number, state))
        if entry is None:
            first = shown.question.stem.strip().split("\n")[0]
            if len(first) > STEM_PREVIEW:
                first = first[: STEM_PREVIEW - 1].rstrip() + "…"
            entry = ReviewEntry(f"{shown.number:>3}. ({state})", terminal_safe(first))
            entries[shown.number, state] = entry
        return Option(entry, id=f"missed-{shown.number - 1}")

    def on_mount(self) -> None:
        self.title = "Summary"
        if self.session is not None:
            self.show(self.session, pass_mark=self.pass_mark, first_attempt=self.first_attempt)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Open the chosen question, with its reveal if it was answered."""
        option_id = event.option.id or ""
        if option_id.startswith("missed-"):
            self.post_message(OpenQuestion(int(option_id.removeprefix("missed-"))))

    def action_back(self) -> None:
        """Return to the questions."""
        self.dismiss(None)

    def action_retry_missed(self) -> None:
        """Start a session with only the questions answered wrongly or left unanswered."""
        missed = self.session.missed_ids() if self.session is not None else ()
        if not missed:
            self.notify("Nothing to retry: every question was answered right.", markup=False)
            return
        self.post_message(RetryQuestions(missed))
