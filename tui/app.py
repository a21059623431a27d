"""The practice app. It owns the session: screens post messages, the app calls the engine and
shows the next screen. Generation and loading run in worker threads so typing never waits.

Every write to the progress store is guarded: a full disk or a damaged file is one notice
("Progress not saved") and the session goes on; reading a damaged store is one line on the start
screen, and the file is left as it is.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from perfdrill.engine import PerfdrillError
from perfdrill.engine.model import SpecBook, load_specs, registry
from perfdrill.engine.practice import (
    Outcome,
    Plan,
    Practice,
    ProgressStore,
    ReviewQueue,
    SessionState,
)
from perfdrill.engine.practice.interview import interview_plan, scorecard
from perfdrill.engine.problems import Bank, Problem, load_bank
from perfdrill.tui import messages
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.help import HelpScreen
from perfdrill.tui.screens.progress import ProgressScreen, read_report
from perfdrill.tui.screens.question import interview_timing, session_question
from perfdrill.tui.screens.scorecard import ScorecardScreen
from perfdrill.tui.screens.start import StartScreen, read_history, ready_lists, todays_queue
from perfdrill.tui.screens.summary import SummaryScreen


class PerfdrillApp(App[None]):
    CSS_PATH = "perfdrill.tcss"
    TITLE = "perfdrill"
    SUB_TITLE = "GPU & LLM performance practice"
    ENABLE_COMMAND_PALETTE = False  # Ctrl+P is Progress
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("question_mark", "help", "Help", key_display="?", priority=True),
        Binding("f1", "help", "Help", show=False, priority=True),
    ]

    def __init__(
        self,
        store: ProgressStore,
        *,
        plan: Plan | None = None,
        start: bool = False,
        resume: bool = False,
        review: bool = False,
        interview: bool = False,
        interview_seed: int | None = None,
        questions: Iterable[Path] = (),
        spec_dirs: Iterable[Path] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.store = store
        self.defaults = plan or Plan()
        self.start_at_once = start
        self.resume_at_once = resume
        self.review_at_once = review
        self.interview_at_once = interview
        self.interview_seed = interview_seed
        self.question_dirs = tuple(questions)
        self.spec_dirs = tuple(spec_dirs)
        self.clock = clock
        self.bank: Bank | None = None
        self.specs: SpecBook | None = None
        self.state: SessionState | None = None
        self._unsaved: tuple[SessionState, Outcome] | None = None  # the last graded attempt, until saved
        self.show_specs = False

    def on_mount(self) -> None:
        if not (self.start_at_once or self.resume_at_once or self.review_at_once or self.interview_at_once):
            self.push_screen(self._start_screen())  # else it is made on the way back from the summary
        self.load_bank()

    # The store ------------------------------------------------------------------------------

    def _saved(self, write: Callable[[], object]) -> bool:
        """Run one store write; a failure is one notice, and the session goes on in memory."""
        try:
            write()
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Progress not saved", severity="error")
            return False
        return True

    def _queue(self) -> ReviewQueue | None:
        """Today's review queue, once the bank is loaded (None if the store cannot be read)."""
        return None if self.bank is None else todays_queue(self.store, self.bank)

    # Loading --------------------------------------------------------------------------------

    def _start_screen(self) -> StartScreen:
        ready = None if self.specs is None else ready_lists(self.specs, self._queue(), self.bank)
        return StartScreen(self.defaults, *read_history(self.store), ready)

    @work(thread=True, exit_on_error=False)
    def load_bank(self) -> None:
        try:
            bank, specs = load_bank(self.question_dirs), load_specs(self.spec_dirs)
        except PerfdrillError as exc:
            self.call_from_thread(self.exit, None, 2, f"perfdrill: error: {exc.one_line()}")
            return
        self.call_from_thread(self._bank_loaded, bank, specs)

    def _bank_loaded(self, bank: Bank, specs: SpecBook) -> None:
        self.bank, self.specs = bank, specs
        for problem in bank.skipped:  # a broken template of the user's own: said, then left out
            self.notify(problem.one_line(), title="Left out of the bank", severity="warning", timeout=10)
        if self.resume_at_once and read_history(self.store)[0] is not None:
            self.post_message(messages.ResumeSession())
        elif self.review_at_once:
            self.post_message(messages.StartReview())
        elif self.interview_at_once:
            self.post_message(messages.StartInterview(self.interview_seed))
        elif self.start_at_once:
            self.post_message(messages.StartSession(self.defaults))
        elif self.resume_at_once:
            self.push_screen(self._start_screen())
            self.notify("There is no interrupted session to continue.")
        for screen in self.screen_stack:
            if isinstance(screen, StartScreen):
                screen.bank_ready(*ready_lists(specs, self._queue(), bank))

    # Session flow -------------------------------------------------------------------------

    @on(messages.StartSession)
    def start_session(self, message: messages.StartSession) -> None:
        assert self.bank is not None and self.specs is not None
        try:
            practice = Practice(message.plan, self.bank, self.specs, self._left_out)
            session_id = self.store.start_session(message.plan)
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Cannot start", severity="error")
            return
        self.state = SessionState(practice, self.store, session_id, self.clock)
        self.generate(self.state.next_problem)

    @on(messages.StartReview)
    def start_review(self) -> None:
        queue = self._queue()
        if queue is not None and queue.size:
            self.post_message(messages.StartSession(queue.plan(secrets.randbelow(1_000_000))))
            return
        if not any(isinstance(screen, StartScreen) for screen in self.screen_stack):
            self.push_screen(self._start_screen())
        later = ""
        if queue is not None and queue.next_due is not None:
            later = f" The next falls due on {datetime.fromtimestamp(queue.next_due):%a %d %b}."
        self.notify("Nothing is due today, and today's new templates are done." + later, title="Review")

    @on(messages.StartInterview)
    def start_interview(self, message: messages.StartInterview) -> None:
        self.build_interview(secrets.randbelow(1_000_000) if message.seed is None else message.seed)

    @work(thread=True, exclusive=True, group="generate", exit_on_error=False)
    def build_interview(self, seed: int) -> None:
        """Build the interview off the UI thread (it tries its chain's questions), then start it."""
        assert self.bank is not None and self.specs is not None
        try:
            plan = interview_plan(self.bank, self.specs, seed)
        except PerfdrillError as exc:
            self.call_from_thread(self.notify, exc.one_line(), title="Cannot start", severity="error")
            return
        self.call_from_thread(self.post_message, messages.StartSession(plan))

    @on(messages.ResumeSession)
    def resume_session(self) -> None:
        stored = read_history(self.store)[0]
        assert self.bank is not None and self.specs is not None
        if stored is None:
            self.notify("There is no interrupted session to continue.")
            return
        try:
            practice = Practice(stored.plan, self.bank, self.specs, self._left_out)
            self.store.locks.claim(stored.id)  # never two processes writing into one session
        except PerfdrillError as exc:
            self._cannot("Cannot continue", exc)
            return
        state = self.state = SessionState.resume(stored, practice, self.store, self.clock)
        pending = state.first_try
        if pending is not None:  # left on a wrong first try: the second try, not a new first one
            self.generate(
                lambda: practice.variant(pending.question, pending.seed),
                lambda problem: self._show_second_try(problem, pending.answers, pending.hints),
            )
        elif state.finished:
            self.end_session(finished=True)
        else:
            self.generate(state.next_problem)

    def _left_out(self, problem: PerfdrillError) -> None:
        """A template of the user's own that failed to make a variant (said from the worker thread)."""
        self.call_from_thread(
            self.notify, problem.one_line(), title="Left out of the session", severity="warning", timeout=10
        )

    @work(thread=True, exclusive=True, group="generate", exit_on_error=False)
    def generate(self, make: Callable[[], Problem], show: Callable[[Problem], None] | None = None) -> None:
        try:
            problem = make()
        except PerfdrillError as exc:
            self.call_from_thread(self._cannot, "Cannot generate", exc)
            return
        self.call_from_thread(show or self._show_question, problem)

    def _ask(self, problem: Problem, **options: Any) -> None:
        assert self.state is not None
        self._show(session_question(self.state, problem, self.clock, show_specs=self.show_specs, **options))

    def _cannot(self, title: str, exc: PerfdrillError) -> None:
        self.notify(exc.one_line(), title=title, severity="error")
        if len(self.screen_stack) == 1:  # started past the start screen: never leave a blank one
            self.push_screen(self._start_screen())

    def _show_question(self, problem: Problem) -> None:
        assert self.state is not None
        self._ask(problem, timing=interview_timing(self.state, problem, self.clock))
        self.call_after_refresh(self.load_units)

    @work(thread=True, exclusive=True, group="units")
    def load_units(self) -> None:
        """Answers are read with pint: import it while the first question is being read."""
        registry()

    def _show(self, screen: Screen[None]) -> None:
        """Replace the session screen on top, or put the first one above the start screen."""
        if isinstance(self.screen, StartScreen) or len(self.screen_stack) == 1:
            self.push_screen(screen)
        else:
            self.switch_screen(screen)

    @on(messages.Submitted)
    def grade_answers(self, message: messages.Submitted) -> None:
        state = self.state
        assert state is not None
        first = state.first_try
        outcome = state.grade(message.problem, message.answers, message.hints, message.started, message.note)
        scored = (
            first.score if first is not None and outcome.attempt.try_number > 1 else outcome.attempt.score
        )
        state.accept(outcome)
        self._show(
            FeedbackScreen(
                message.problem,
                outcome,
                state.progress_label(),
                scored=scored,
                hints=message.hints,
                interview=state.practice.plan.interview,
            )
        )
        self._unsaved = (state, outcome)  # saved once the feedback is painted, or on quit, if sooner
        self.call_after_refresh(self._save_pending)  # the feedback first, then the disk

    def _save_pending(self) -> None:
        if self._unsaved is not None:
            state, outcome = self._unsaved
            self._unsaved = None
            self._saved(lambda: state.save(outcome))

    @on(messages.TryAgain)
    def try_again(self, message: messages.TryAgain) -> None:
        self._show_second_try(message.problem, message.answers, message.hints)

    def _show_second_try(self, problem: Problem, answers: dict[str, str], hints: int) -> None:
        state = self.state
        assert state is not None and state.first_try is not None
        first = state.first_try
        marks = {name: (text, first.parts[name]["status"] == "correct") for name, text in answers.items()}
        self._ask(problem, first_try=marks, hints_shown=hints)

    @on(messages.Revealed)
    def answer_shown(self) -> None:
        if self.state is not None:
            self._saved(self.state.answers_shown)

    @on(messages.NextQuestion)
    def next_question(self) -> None:
        state = self.state
        assert state is not None
        self._saved(state.close_question)
        self._saved(state.advance)
        if state.finished:
            self.end_session(finished=True)
        else:
            self.generate(state.next_problem)

    @on(messages.FreshVariant)
    def fresh_variant(self, message: messages.FreshVariant) -> None:
        state = self.state
        assert state is not None
        self._saved(state.close_question)
        self.generate(lambda: state.fresh_variant(message.problem))

    @on(messages.EndSession)
    def end_early(self) -> None:
        self.end_session(finished=False)

    def end_session(self, *, finished: bool) -> None:
        """The summary; a session left before its end stays open, to be continued later."""
        state = self.state
        assert state is not None
        self._saved(state.close_question)
        if finished:
            self._saved(state.finish)
        plan = state.practice.plan
        if plan.interview:
            self._show(ScorecardScreen(scorecard(plan, state.attempts)))
        else:
            self._show(SummaryScreen(state.summary(finished=finished), plan.seed + 1))
        self.store.locks.release(state.session_id)
        self.state = None

    @on(messages.SpecsToggled)
    def remember_specs(self, message: messages.SpecsToggled) -> None:
        self.show_specs = message.visible

    @on(messages.ShowProgress)
    def show_progress(self) -> None:
        assert self.bank is not None
        try:
            report = read_report(self.store, self.bank)
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Cannot read progress", severity="error")
            return
        self.push_screen(ProgressScreen(report))

    @on(messages.BackToStart)
    def back_to_start(self) -> None:
        self.pop_screen()
        if isinstance(self.screen, StartScreen):
            self.screen.show_history(*read_history(self.store))
            self.screen.show_queue(self._queue())
        else:  # the session was started from the command line, past the start screen
            self.push_screen(self._start_screen())

    async def action_quit(self) -> None:
        """Quit anywhere; a question left after a wrong first try counts as not recalled."""
        self._end()

    def _end(self, return_code: int = 0) -> None:
        self._save_pending()  # a quit right after a submit must not lose the attempt
        if self.state is not None:
            self._saved(self.state.close_question)
        self.exit(None, return_code)

    def end_on_signal(self, signum: int, frame: object = None) -> None:
        """A handler for SIGINT, SIGTERM and SIGHUP (`signal.signal`), installed before `run()`:
        the session ends as Ctrl+Q ends it (saved, and continuable), so Textual restores the
        terminal on the way out (the alternate screen left, mouse tracking off, the cursor shown),
        and the exit code is 128 + the signal's number, as a shell reports one (130 for SIGINT).
        Before the app starts it never takes the terminal at all."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not running yet
            self.exit(None, 128 + signum)
            return
        loop.call_soon_threadsafe(self.call_later, self._end, 128 + signum)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
        else:
            self.push_screen(HelpScreen())
