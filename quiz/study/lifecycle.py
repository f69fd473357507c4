"""A session's life, from the start screen to its end: :class:`Lifecycle`.

One object owns what the study app does with sessions — draw one (ahead of time, too), start
it with its store record and its answer sink, resume an interrupted one, retry the missed
questions, finish, abandon, and what the resume and quit dialogs say — so that each of the
app's handlers is one call here (as each Anki GUI action wraps one pylib call), and every step
can be tested without a terminal. It never imports Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias

from quiz.bank.library import Library
from quiz.bank.load_results import StoredBankError
from quiz.study.launch import Launch
from quiz.study.mode import Mode
from quiz.study.recorder import Interrupted, QuestionIndex, Recorder, cram_ids, interrupted_sessions
from quiz.study.score import Score
from quiz.study.start_settings import (
    StartSettings,
    kept_settings,
    settings_for_form,
    settings_key,
)
from quiz.study.store import Store, damage_text, utc_now
from quiz.study.store_records import SessionRecord

# The sessions (and with them the bank's pydantic models, about 90 ms) are imported when a
# session is first drawn, not here: the app reads the remembered settings and the session to
# resume while the library is being shown.
if TYPE_CHECKING:
    from quiz.study.exam import ExamReport, ExamSession
    from quiz.study.session import SessionConfig, StudySession
    from quiz.study.shown import PreparedQuestions

Session: TypeAlias = "StudySession | ExamSession"
"""A session of any mode."""


class StartRefused(Exception):
    """A session could not start or resume; the message says why and what to do.
    ``severity`` is how the app shows it: ``"information"``, ``"warning"`` or ``"error"``."""

    def __init__(self, message: str, severity: str = "warning") -> None:
        super().__init__(message)
        self.severity = severity


@dataclass(frozen=True)
class ResumeOffer:
    """What the dialog offering an interrupted session says: its ``text``, the two buttons
    (``resume`` and ``fresh``) and whether resuming is the default (the focused button)."""

    waiting: Interrupted
    text: str
    resume: str
    fresh: str
    resume_is_default: bool


class Lifecycle:
    """The sessions of one study app, over ``library`` (replaced when the banks reload).

    ``store`` keeps answers and settings (``None``: nothing is kept); ``index`` gives the bank
    and content hash of every question (built when first asked); ``clock`` times answers and
    exams (monotonic seconds), ``now`` stamps records (UTC-aware). Which running quiz owns a
    session is its lock (:mod:`quiz.study.owners`), not its plan: plans no longer name a
    process (an old plan's ``"pid"`` is read and ignored).

    Attributes:
        session: the practice, review or cram session shown (``None``: none yet, or an exam).
        exam: the exam shown (``None``: none, or a study session).
        recorder: the sink of the current session's answers (``None`` without a store).
        last_config, last_mode: what the last session was started with (a retry uses them).
        first_attempt: the first attempt's score while the student retries what it missed.
    """

    def __init__(self, library: Library, *, store: Store | None = None,
                 index: Callable[[], QuestionIndex] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = utc_now) -> None:
        self.library = library
        self.store = store
        self._index = index
        self.clock = clock
        self.now = now
        self.session: StudySession | None = None
        self.exam: ExamSession | None = None
        self.recorder: Recorder | None = None
        self.last_config: SessionConfig | None = None
        self.last_mode: Mode = Mode.PRACTICE
        self.first_attempt: Score | None = None
        self._drawn: tuple[Library, SessionConfig, PreparedQuestions] | None = None
        self._plan_to_write: tuple[int, StudySession] | None = None

    @property
    def index(self) -> QuestionIndex:
        """Bank id and content hash of every question of the library."""
        if self._index is None:
            built = QuestionIndex.of(self.library)
            self._index = lambda: built
        return self._index()

    @property
    def current(self) -> Session | None:
        """The session shown, of any mode."""
        return self.exam if self.exam is not None else self.session

    # -- settings ---------------------------------------------------------------------------
    def _settings_key(self) -> str:
        return settings_key(self.library)

    def settings(self) -> StartSettings | None:
        """The start screen's choices last used with this library's banks
        (:func:`~quiz.study.start_settings.kept_settings`)."""
        return kept_settings(self.store, self.library)

    def remember(self, config: SessionConfig, *, strict: bool = False,
                 every_topic: bool = False, every_question: bool = False) -> None:
        """Keep the start screen's choices for the next session of this library's banks
        (``every_topic``: all were ticked, so a topic added later is ticked too;
        ``every_question``: the count was all that match, so it grows with the bank)."""
        if self.store is None:
            return
        self.store.set_setting(self._settings_key(), {
            "topics": None if every_topic or config.topics is None else sorted(config.topics),
            "count": None if every_question else config.count, "shuffle": config.shuffle,
            "strict": strict})

    # -- opening ----------------------------------------------------------------------------
    def opening_notices(self) -> list[tuple[str, str]]:
        """What to tell the student when the library is ready: ``(title, text)`` pairs (the
        progress file set aside; questions whose review schedule starts over because they
        changed). Resetting those schedules happens here."""
        if self.store is None:
            return []
        notices = []
        if self.store.notice:
            title = "Progress not saved" if self.store.problem else "Progress file set aside"
            notices.append((title, self.store.notice))
        changed = self.store.reset_changed_cards(self.index.hash_of)
        self.store.open_sessions()  # read (and checked) now, so that damage is said at once
        if self.store.damage:
            notices.append(("Damaged progress skipped", damage_text(self.store)))
        if changed:
            n = len(changed)
            notices.append(("", f"{n} question{'s' * (n != 1)} changed since you last saw "
                                f"{'them' if n != 1 else 'it'}: {'their' if n != 1 else 'its'} "
                                "review schedule starts over (the history is kept)."))
        return notices

    def resume_offer(self, asked: Mode | None = None) -> ResumeOffer | None:
        """The interrupted session to offer, newest first (older ones are closed as
        abandoned), with what the dialog says; ``None`` when there is none. ``asked`` is the
        mode the command line asked for: when it differs from the waiting session's, the
        dialog speaks of it and starting it is the default."""
        if self.store is None:
            return None
        waiting = interrupted_sessions(self.store, {b.header.id for b in self.library.banks})
        if not waiting:
            return None
        for older in waiting[1:]:
            self.store.end_session(older.record.id, "abandoned", now=self.now())
        newest = waiting[0]
        if asked is not None and asked != newest.record.mode:
            return ResumeOffer(
                newest, f"Before your {asked}: resume the unfinished {newest.record.mode} "
                f"session, or start the {asked}?\n\n{newest.describe()} Its answers are kept "
                "either way.", resume=f"Resume {newest.record.mode}",
                fresh=f"Start {asked}", resume_is_default=False)
        return ResumeOffer(newest, newest.describe() + "\n\nResume it? Its answers are kept "
                           "either way.", resume="Resume", fresh="Start afresh",
                           resume_is_default=True)

    def abandon(self, waiting: Interrupted) -> None:
        """Close an interrupted session the student chose not to resume (its answers stay)."""
        if self.store is not None:
            self.store.end_session(waiting.record.id, "abandoned", now=self.now())

    def launch_config(self, launch: Launch, *, shuffle: bool, seed: int | None
                      ) -> SessionConfig:
        """The configuration the command line's ``launch`` asks for."""
        from quiz.study.session import SessionConfig

        return SessionConfig(topics=launch.topics, tags=launch.tags,
                             difficulties=launch.difficulties, count=launch.count,
                             shuffle=shuffle, seed=seed)

    # -- drawing ----------------------------------------------------------------------------
    def _draw_config(self, config: SessionConfig,
                     topics_in_use: AbstractSet[str] | None) -> SessionConfig:
        """What ``config`` draws with: no topic filter when every topic in use is ticked (so
        drawing reads no question)."""
        if (config.topics is not None and topics_in_use is not None
                and config.topics >= topics_in_use):
            return replace(config, topics=None)
        return config

    def draw_ahead(self, config: SessionConfig,
                   topics_in_use: AbstractSet[str] | None = None) -> PreparedQuestions | None:
        """Draw the practice session ``config`` describes now, while the student reads the
        start screen: :meth:`start` then takes it instead of drawing (shuffling the library
        is O(n): ~36 ms at 100,000 questions, issue 13). Drawn with the same configuration,
        so with the same seed it is the session :meth:`start` would draw. Returns the
        questions drawn, or ``None`` when the form cannot be drawn (:meth:`start` will say
        why); a form that did not change keeps what was drawn for it."""
        from quiz.study.session import draw_questions
        from quiz.study.shown import SessionError

        draw = self._draw_config(config, topics_in_use)
        previous, self._drawn = self._drawn, None
        if previous is not None and previous[0] is self.library and previous[1] == draw:
            self._drawn = previous
            return previous[2]
        try:
            drawn = draw_questions(self.library.questions, draw)
        except (SessionError, StoredBankError):
            return None
        self._drawn = (self.library, draw, drawn)
        return drawn

    def forget_drawn(self) -> None:
        """Drop the session drawn ahead (the form left practice, or the library changed)."""
        self._drawn = None

    # -- starting ---------------------------------------------------------------------------
    def start(self, config: SessionConfig, mode: Mode | str = Mode.PRACTICE,
              minutes: float | None = None, *, first_attempt: Score | None = None,
              topics_in_use: AbstractSet[str] | None = None, strict: bool = False) -> Session:
        """Draw a session of ``mode`` from the library, record it in the store with its
        answer sink, and make it current, at its first question. Review draws the questions
        due now, then the most missed; cram the ones missed last time or flagged.
        ``first_attempt`` is the score of the session this one retries. An unfinished study
        session is closed as abandoned (a running exam stays open: it can be resumed).
        ``strict``: an exam whose clock runs in wall time, with no pause.

        Raises:
            StartRefused: nothing to review or cram, no store for them, no question matches,
                or a cached bank can no longer be read (the message says what to do).
        """
        from quiz.study.shown import SessionError

        mode = Mode(mode)
        try:
            return self._start(config, mode, minutes, first_attempt, topics_in_use, strict)
        except StoredBankError as exc:
            raise StartRefused(str(exc), "error") from exc
        except SessionError as exc:
            raise StartRefused(str(exc), "error") from exc

    def _start(self, config: SessionConfig, mode: Mode, minutes: float | None,
               first_attempt: Score | None, topics_in_use: AbstractSet[str] | None,
               strict: bool) -> Session:
        from quiz.study.exam import ExamSession
        from quiz.study.session import StudySession, draw_questions

        if mode in (Mode.REVIEW, Mode.CRAM):
            config = self._queue(config, mode)
        draw = self._draw_config(config, topics_in_use)
        drawn, self._drawn = self._drawn, None
        exam: ExamSession | None = None
        questions: PreparedQuestions | None = None
        if mode == Mode.EXAM:
            exam = ExamSession.draw(
                self.library.questions, draw, minutes=minutes,
                bank_minutes=self.library.time_limit, pass_mark=self.library.pass_mark,
                topic_names=self.library.topics, clock=self.clock, strict=strict,
                wall_clock=self._wall_clock)
        elif drawn is not None and drawn[0] is self.library and drawn[1] == draw:
            questions = drawn[2]  # drawn while the start screen waited, as this would
        else:
            questions = draw_questions(self.library.questions, draw)
        self.close_current()
        self.last_config = config
        self.last_mode = mode
        self.first_attempt = first_attempt
        self.recorder = None
        if self.store is not None:
            # A study session's plan (every question's id: 100+ ms at 100,000 questions,
            # reading each question object) is written once its first question is shown
            # (:meth:`plan_to_write`, issue 13); an exam's, with its time limit, at once.
            plan = exam.plan() if exam is not None else {}
            banks = tuple(b.header.id for b in self.library.banks)
            sid = self.store.start_session(mode, banks, config.seed, plan, now=self.now())
            self.recorder = Recorder(self.store, sid, mode, self.index, now=self.now)
        if exam is not None:
            exam.sink = self.recorder
            exam.save()
            self.exam, self.session = exam, None
            return exam
        assert questions is not None
        session = StudySession(shown=questions, topic_names=dict(self.library.topics),
                               mode=mode, sink=self.recorder, clock=self.clock)
        session.go(0)
        if self.recorder is not None:
            self._plan_to_write = (self.recorder.session_id, session)
        self.session, self.exam = session, None
        return session

    def _wall_clock(self) -> float:
        return self.now().timestamp()

    def _queue(self, config: SessionConfig, mode: Mode) -> SessionConfig:
        """A review or cram session's questions, in the order to ask them."""
        if self.store is None:
            raise StartRefused(f"{mode.title} needs the progress store.", "error")
        if mode == Mode.REVIEW:
            from quiz.study.scheduling import review_queue

            ids = review_queue(self.store.cards(), self.store.tallies(), self.index.hash_of,
                               self.now())
            empty = ("Nothing to review: no question is due and none was missed. "
                     "Practise or take an exam first.")
        else:
            ids = cram_ids(self.store, self.index)
            empty = "Nothing to cram: no question was missed last time or flagged."
        ids = [i for i in ids if config.matches(self.library.question(i))]
        if not ids:
            raise StartRefused(empty)
        return replace(config, question_ids=tuple(ids), ordered=True)

    def write_plan(self, session: StudySession) -> None:
        """Store what ``session`` drew (:meth:`StudySession.plan`) if it is the session just
        started and its plan is not written yet: called once its first question is shown,
        so that it can be resumed after a crash or a closed terminal."""
        pending, self._plan_to_write = self._plan_to_write, None
        if pending is None or pending[1] is not session or self.store is None:
            self._plan_to_write = pending
            return
        self.store.set_plan(pending[0], session.plan())

    def retry(self, question_ids: Sequence[str], *, shuffle: bool = True,
              seed: int | None = None, as_mode: Mode | str | None = None) -> Session:
        """Start a session of just ``question_ids`` (the ones missed), with the last
        session's settings: practice after an exam or a review (or ``as_mode``). The first
        attempt's score is kept beside it.

        Raises:
            StartRefused: as :meth:`start`.
        """
        from quiz.study.session import SessionConfig

        base = self.last_config or SessionConfig(shuffle=shuffle, seed=seed)
        mode = Mode(as_mode) if as_mode is not None else (
            Mode.PRACTICE if self.last_mode in (Mode.EXAM, Mode.REVIEW) else self.last_mode)
        first = self.first_attempt or (self.session.score if self.session else None)
        if self.exam is not None and self.exam.report is not None and first is None:
            first = self.exam.report.score
        config = replace(base, question_ids=tuple(question_ids), topics=None, count=None,
                         ordered=False)
        continued = self.recorder.session_id if self.recorder is not None else None
        started = self.start(config, mode, first_attempt=first)
        if continued is not None and self.store is not None:
            self._mark_continued(continued)
        return started

    def _mark_continued(self, session_id: int) -> None:
        """An unfinished session continued as a retry is said so in the history."""
        assert self.store is not None
        record = self.store.session(session_id)
        if record.status == "abandoned":
            self.store.end_session(session_id, "retried", now=self.now())

    # -- resuming ---------------------------------------------------------------------------
    def resume(self, waiting: Interrupted) -> Session:
        """Rebuild an interrupted session where it was left and make it current: an exam
        with its time left, a study session at its first unanswered question, every answer,
        rating and flag given before.

        Raises:
            StartRefused: none of its questions is in the library any more, or a cached bank
                can no longer be read.
        """
        from quiz.study.exam import ExamSession
        from quiz.study.session import StudySession
        from quiz.study.shown import SessionError

        rec = waiting.record
        store = self.store
        assert store is not None
        answers = store.answers(rec.id)
        mode = Mode(rec.mode)
        recorder = Recorder(store, rec.id, mode, self.index, now=self.now)
        try:
            questions = self.library.questions
            if mode == Mode.EXAM:
                exam = ExamSession.resume(
                    questions, rec.plan, rec.state,
                    [(a.question_id, a.chosen) for a in answers], store.flags(rec.id),
                    topic_names=self.library.topics, clock=self.clock, sink=recorder,
                    wall_clock=self._wall_clock)
            else:
                session = StudySession.from_plan(questions, rec.plan, self.library.topics,
                                                 mode=mode, clock=self.clock)
        except (SessionError, StoredBankError) as exc:
            raise StartRefused(f"Cannot resume: {exc}.") from exc
        self.recorder = recorder
        self.last_mode = mode
        if mode == Mode.EXAM:
            self.exam, self.session = exam, None
            return exam
        for a in answers:
            session.restore(a.question_id, a.chosen)
            if a.rating is not None:
                session.ratings[a.question_id] = a.rating
        session.flags = store.flags(rec.id) & {q.id for q in session.questions}
        session.sink = recorder  # once the answers are back: restoring records nothing again
        first_open = next((i for i, q in enumerate(session.questions)
                           if q.id not in session.outcomes), session.total - 1)
        session.go(first_open)
        self.session, self.exam = session, None
        return session

    # -- reports ------------------------------------------------------------------------------
    def submitted_exams(self) -> list[SessionRecord]:
        """The exams submitted from this library's banks, newest first (their reports can be
        read again: :meth:`exam_report`)."""
        if self.store is None:
            return []
        banks = {b.header.id for b in self.library.banks}
        return [rec for rec in self.store.sessions()
                if rec.mode == Mode.EXAM and rec.status == "finished"
                and set(rec.bank_ids) <= banks]

    def exam_report(self, record: SessionRecord) -> ExamReport:
        """The report of the submitted exam ``record``, as it was shown when submitted.

        Raises:
            StartRefused: its questions are no longer in the library.
        """
        from quiz.study.exam import ExamSession
        from quiz.study.shown import SessionError

        store = self.store
        assert store is not None
        answers = [(a.question_id, a.chosen) for a in store.answers(record.id)]
        try:
            return ExamSession.stored_report(self.library.questions, record.plan, record.state,
                                             answers, store.flags(record.id),
                                             topic_names=self.library.topics)
        except (SessionError, StoredBankError) as exc:
            raise StartRefused(f"Cannot show that exam's report: {exc}.") from exc

    # -- ending -----------------------------------------------------------------------------
    def finish(self) -> None:
        """Mark the current session finished in the store (every question answered, or the
        exam submitted): it is no longer offered for resumption."""
        if self.recorder is not None and self.store is not None:
            self.store.end_session(self.recorder.session_id, "finished", now=self.now())

    def close_current(self) -> None:
        """Leaving a session for a new one: an unfinished study session is closed as
        abandoned (its answers stay in the history); a running exam is not — it can be
        resumed later."""
        if self.recorder is None or self.store is None:
            return
        rec = self.store.session(self.recorder.session_id)
        if rec.status == "open" and rec.mode != Mode.EXAM:
            self.store.end_session(rec.id, "abandoned", now=self.now())

    def quit_text(self, *, under_way: bool) -> str:
        """What the quit dialog says; a running exam's clock is saved on the way (it stops:
        the exam resumes with its time left, or, strict, with the wall clock's).
        ``under_way``: a session's question screen is still open (one left with "New
        session" is over)."""
        text = "Quit quiz?"
        open_session = self.recorder is not None and self.store is not None and (
            self.store.session(self.recorder.session_id).status == "open")
        session = self.session
        if open_session and self.exam is not None and self.exam.report is None:
            self.exam.save()
            if self.exam.strict:
                text += ("\n\nYour exam answers are saved. This is a strict exam: its clock "
                         "keeps running while quiz is closed.")
            else:
                text += ("\n\nYour exam answers are saved and the clock stops: the exam is "
                         "offered to resume at the next start, with its time left.")
        elif open_session and under_way and session is not None and session.outcomes:
            text += ("\n\nYour answers are saved as you give them: this session is offered "
                     "to resume at the next start.")
        elif self.store is not None:
            text += "\n\nYour progress is saved."
        elif under_way and session is not None and session.outcomes:
            n = len(session.outcomes)
            text += f"\n\nThis session's {n} answer{'s' * (n != 1)} will not be kept."
        return text

    def settings_for_form(self) -> dict[str, Any]:
        """The remembered settings as the start screen reads them
        (:func:`~quiz.study.start_settings.settings_for_form`)."""
        return settings_for_form(self.store, self.library)
