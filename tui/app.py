"""The practice app. It owns the session: screens post messages, the app calls the engine and
shows the next screen. Generation and loading run in worker threads so typing never waits."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from perfdrill.engine import PerfdrillError
from perfdrill.engine.model import SpecBook, load_specs, registry
from perfdrill.engine.practice import Attempt, Plan, Practice, ProgressStore, SessionState
from perfdrill.engine.problems import Bank, Problem, load_bank
from perfdrill.tui import messages
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.help import HelpScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.start import StartScreen, history_line
from perfdrill.tui.screens.summary import SummaryScreen


class PerfdrillApp(App[None]):
    CSS_PATH = "perfdrill.tcss"
    TITLE = "perfdrill"
    SUB_TITLE = "GPU & LLM performance practice"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("question_mark", "help", "Help", key_display="?", priority=True),
        Binding("f1", "help", "Help", show=False, priority=True),  # "?" types into answer fields
    ]

    def __init__(
        self,
        store: ProgressStore,
        *,
        plan: Plan | None = None,
        start: bool = False,
        resume: bool = False,
        questions: Iterable[Path] = (),
        spec_dirs: Iterable[Path] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.store = store
        self.defaults = plan or Plan()
        self.start_at_once = start
        self.resume_at_once = resume
        self.question_dirs = tuple(questions)
        self.spec_dirs = tuple(spec_dirs)
        self.clock = clock
        self.bank: Bank | None = None
        self.specs: SpecBook | None = None
        self.state: SessionState | None = None
        self.show_specs = False

    def on_mount(self) -> None:
        if not (self.start_at_once or self.resume_at_once):
            self.push_screen(self._start_screen())  # else it is made on the way back from the summary
        self.load_bank()

    def _start_screen(self) -> StartScreen:
        ids = (sorted(self.specs.chips), sorted(self.specs.models)) if self.specs is not None else None
        unfinished, history = self.store.unfinished(), history_line(self.store.family_stats())
        return StartScreen(self.defaults, unfinished, history, ids, _family_titles(self.bank))

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
        if self.resume_at_once and self.store.unfinished() is not None:
            self.post_message(messages.ResumeSession())
        elif self.start_at_once:
            self.post_message(messages.StartSession(self.defaults))
        elif self.resume_at_once:
            self.push_screen(self._start_screen())
            self.notify("There is no interrupted session to continue.")
        for screen in self.screen_stack:
            if isinstance(screen, StartScreen):
                screen.bank_ready(sorted(specs.chips), sorted(specs.models), _family_titles(bank))

    # Session flow -------------------------------------------------------------------------

    @on(messages.StartSession)
    def start_session(self, message: messages.StartSession) -> None:
        assert self.bank is not None and self.specs is not None
        try:
            practice = Practice(message.plan, self.bank, self.specs)
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Cannot start", severity="error")
            return
        session_id = self.store.start_session(message.plan)
        self.state = SessionState(practice, self.store, session_id, self.clock)
        self.generate(self.state.next_problem)

    @on(messages.ResumeSession)
    def resume_session(self) -> None:
        stored = self.store.unfinished()
        assert self.bank is not None and self.specs is not None and stored is not None
        try:
            practice = Practice(stored.plan, self.bank, self.specs)
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Cannot continue", severity="error")
            return
        self.state = SessionState.resume(stored, practice, self.store, self.clock)
        if self.state.finished:
            self.end_session()
        else:
            self.generate(self.state.next_problem)

    @work(thread=True, exclusive=True, group="generate", exit_on_error=False)
    def generate(self, make: Callable[[], Problem]) -> None:
        try:
            problem = make()
        except PerfdrillError as exc:
            self.call_from_thread(self.notify, exc.one_line(), title="Cannot generate", severity="error")
            return
        self.call_from_thread(self._show_question, problem)

    def _show_question(self, problem: Problem) -> None:
        assert self.state is not None
        screen = QuestionScreen(
            problem, self.state.progress_label(), self.clock(), show_specs=self.show_specs
        )
        self._show(screen)
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
        result, attempt = state.grade(message.problem, message.answers, message.hints, message.started)
        self._show(FeedbackScreen(message.problem, result, message.answers, state.progress_label()))
        self.call_after_refresh(self._save, state, attempt)  # the feedback first, then the disk

    def _save(self, state: SessionState, attempt: Attempt) -> None:
        try:
            state.save(attempt)
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Progress not saved", severity="error")

    @on(messages.NextQuestion)
    def next_question(self) -> None:
        assert self.state is not None
        self.state.advance()
        if self.state.finished:
            self.end_session()
        else:
            self.generate(self.state.next_problem)

    @on(messages.FreshVariant)
    def fresh_variant(self, message: messages.FreshVariant) -> None:
        state = self.state
        assert state is not None
        self.generate(lambda: state.fresh_variant(message.problem))

    @on(messages.EndSession)
    def end_session(self) -> None:
        assert self.state is not None
        summary = self.state.finish()
        self._show(SummaryScreen(summary, self.state.practice.plan.seed + 1))
        self.state = None

    @on(messages.SpecsToggled)
    def remember_specs(self, message: messages.SpecsToggled) -> None:
        self.show_specs = message.visible

    @on(messages.BackToStart)
    def back_to_start(self) -> None:
        self.pop_screen()
        if isinstance(self.screen, StartScreen):
            self.screen.show_history(self.store.unfinished(), history_line(self.store.family_stats()))
        else:  # the session was started from the command line, past the start screen
            self.push_screen(self._start_screen())

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
        else:
            self.push_screen(HelpScreen())


def _family_titles(bank: Bank | None) -> dict[str, str] | None:
    return {family.id: family.title for family in bank.families.values()} if bank is not None else None
