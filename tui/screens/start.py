"""The start screen: what to practise, how much of it, "continue where I left off", today's
review queue and the way to the Progress screen."""

from __future__ import annotations

import re
import secrets

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Footer, Input, Label, Select, Static

from perfdrill.engine import PerfdrillError
from perfdrill.engine.model import SpecBook
from perfdrill.engine.model.spoken import counted
from perfdrill.engine.practice import (
    FamilyStats,
    Plan,
    ProgressStore,
    ReviewQueue,
    StoredSession,
    resume_point,
    review_queue,
)
from perfdrill.engine.problems import DIFFICULTIES, FAMILIES, Bank
from perfdrill.tui.messages import ResumeSession, ShowProgress, StartInterview, StartReview, StartSession
from perfdrill.tui.screens.confirm import ConfirmScreen
from perfdrill.tui.widgets import TickBox, TickList, TitleBar

_ANY = "any"


def _ids(text: str) -> tuple[str, ...]:
    return tuple(token for token in re.split(r"[\s,]+", text.strip().lower()) if token)


def history_line(stats: list[FamilyStats]) -> Text:
    attempts = sum(s.attempts for s in stats)
    if not attempts:
        return Text("No history yet: your answers are saved as you go.", style="dim")
    right = sum(s.correct for s in stats)
    line = f"History: {counted(attempts, 'attempt')}, {right} fully right"
    weakest = min(stats, key=lambda s: s.mean_score)
    if len(stats) > 1 and weakest.mean_score < 1:
        line += f" · weakest: {FAMILIES.get(weakest.family, weakest.family)} ({weakest.mean_score:.0%})"
    return Text(line, style="dim")


def read_history(store: ProgressStore) -> tuple[StoredSession | None, Text]:
    """The interrupted session, if any, and the history line."""
    try:
        return store.unfinished(), history_line(store.family_stats())
    except PerfdrillError as exc:  # a damaged store: say so in one line and leave the file alone
        return None, Text(exc.one_line(), style="bold red")


def todays_queue(store: ProgressStore, bank: Bank) -> ReviewQueue | None:
    """Today's review queue (None if the store cannot be read)."""
    try:
        return review_queue(
            store.cards(),
            list(bank.templates.values()),
            now=store.now(),
            new_per_day=store.setting("new_per_day"),
        )
    except PerfdrillError:
        return None


Ready = tuple[list[str], list[str], ReviewQueue | None, dict[str, str] | None]


def ready_lists(specs: SpecBook, queue: ReviewQueue | None, bank: Bank | None) -> Ready:
    """What the start screen offers once the bank is loaded: chips, models, the queue, family titles."""
    titles = {family.id: family.title for family in bank.families.values()} if bank is not None else None
    return sorted(specs.chips), sorted(specs.models), queue, titles


def resume_line(unfinished: StoredSession) -> Text:
    """What Continue will open: the next question, or the second try still owed."""
    position, pending = resume_point(unfinished)
    total = unfinished.plan.total
    kind = "review" if unfinished.plan.review else "question"
    where = f"{kind} {position + 1}/{total}" if total is not None else f"{kind} {position + 1}"
    if pending is not None:
        return Text(f"Continue (Ctrl+R): {where}, the second try at {pending.reference}")
    if total is not None and position >= total:
        return Text("Continue (Ctrl+R): every question is answered; the session's summary")
    return Text(f"Continue (Ctrl+R): {where}, not yet shown")


# chip ids, model ids, today's queue, and the families (id -> title) the bank declares
Loaded = tuple[list[str], list[str], ReviewQueue | None, dict[str, str] | None]


class StartScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", priority=True),
        Binding("ctrl+r", "resume", "Continue", priority=True),
        Binding("ctrl+e", "review", "Review", priority=True),
        Binding("ctrl+p", "progress", "Progress", priority=True),
        Binding("ctrl+o", "interview", "Interview", priority=True),
        Binding("escape", "ask_quit", "Quit", show=False),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]

    def __init__(
        self,
        defaults: Plan,
        unfinished: StoredSession | None,
        history: Text,
        ready: Loaded | None = None,
    ) -> None:
        super().__init__()
        self.defaults = defaults
        self.unfinished = unfinished
        self.history = history
        self.loaded = ready  # chip ids, model ids, today's queue and the bank's families, once loaded
        self.ready = False
        self.queue: ReviewQueue | None = None

    def compose(self) -> ComposeResult:
        plan = self.defaults
        yield TitleBar()
        with Horizontal(id="start"):
            families = TickList(
                *((label, family, family in plan.families) for family, label in FAMILIES.items()),
                id="families",
            )
            families.border_title = "Families (none ticked: all)"
            yield families
            with Vertical(id="options") as options:
                options.border_title = "Session"
                with Horizontal(classes="row"):
                    yield Label("Difficulty", classes="field")
                    yield Select(
                        [(d, d) for d in (_ANY, *DIFFICULTIES)],
                        value=plan.difficulty or _ANY,
                        allow_blank=False,
                        compact=True,
                        id="difficulty",
                    )
                with Horizontal(classes="row"):
                    yield Label("Questions", classes="field")
                    yield Input(str(plan.count or 10), type="integer", compact=True, id="count")
                    yield TickBox("endless", plan.count is None, compact=True, id="endless")
                with Horizontal(classes="row"):
                    yield Label("Seed", classes="field")
                    yield Input(
                        str(plan.seed) if plan.seed else "",
                        placeholder="random",
                        type="integer",
                        compact=True,
                        id="seed",
                    )
                with Horizontal(classes="row"):
                    yield Label("Chips", classes="field")
                    yield Input(
                        ", ".join(plan.chips), placeholder="any, e.g. h100-sxm, l4", compact=True, id="chips"
                    )
                with Horizontal(classes="row"):
                    yield Label("Models", classes="field")
                    yield Input(
                        ", ".join(plan.models),
                        placeholder="any, e.g. llama-3.1-8b",
                        compact=True,
                        id="models",
                    )
        with Horizontal(id="buttons"):
            # The label never changes: a button keeps the width of its first label.
            yield Button("Start", variant="primary", id="start-button", disabled=True)
            yield Button("Continue", id="resume-button")
            yield Button("Review", id="review-button", disabled=True)
            yield Button("Progress", id="progress-button")
            yield Button("Interview", id="interview-button")
        yield Static(id="history")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#families", TickList).focus()
        self.show_history(self.unfinished, self.history)
        if self.loaded is None:
            self.query_one("#history", Static).update(Text("Loading the question bank…", style="dim"))
        else:
            self._show_loaded()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.unfinished is not None if action == "resume" else True

    def show_history(self, unfinished: StoredSession | None, history: Text) -> None:
        """Offer to continue `unfinished`, if any, and show the practice history line."""
        self.unfinished = unfinished
        self.history = history
        self.refresh_bindings()
        button = self.query_one("#resume-button", Button)
        button.display = unfinished is not None
        if unfinished is not None:
            button.label = f"Continue {resume_point(unfinished)[0]}/{unfinished.plan.total or '∞'}"
            button.refresh(layout=True)  # a new label does not resize a button by itself
            history = Text.assemble(resume_line(unfinished), "\n", history)
            self.history = history
        self.query_one("#history", Static).update(history)

    def show_queue(self, queue: ReviewQueue | None) -> None:
        """Label the Review button with today's queue ("Review · 3 due + 2 new")."""
        self.queue = queue
        button = self.query_one("#review-button", Button)
        button.label = queue.label() if queue is not None else "Review"
        button.disabled = queue is None or queue.size == 0
        button.refresh(layout=True)

    def bank_ready(
        self,
        chips: list[str],
        models: list[str],
        queue: ReviewQueue | None,
        families: dict[str, str] | None = None,
    ) -> None:
        """The bank and specs are loaded: offer their ids, the families your templates declare and
        today's queue, and allow starting. The bank may load before this screen is mounted: then it
        is shown once it is."""
        self.loaded = (chips, models, queue, families)
        if self.is_mounted:
            self._show_loaded()

    def _show_loaded(self) -> None:
        assert self.loaded is not None
        chips, models, queue, families = self.loaded
        self.ready = True
        picker = self.query_one("#families", TickList)
        offered = {picker.get_option_at_index(i).value for i in range(picker.option_count)}
        for family, title in (families or {}).items():
            if family not in offered:
                picker.add_option((title, family, family in self.defaults.families))
        self.query_one("#chips", Input).suggester = SuggestFromList(chips, case_sensitive=False)
        self.query_one("#models", Input).suggester = SuggestFromList(models, case_sensitive=False)
        self.query_one("#start-button", Button).disabled = False
        self.query_one("#history", Static).update(self.history)
        self.show_queue(queue)

    def plan(self) -> Plan:
        """The plan the fields describe; PerfdrillError for a count that makes no sense."""
        endless = self.query_one("#endless", TickBox).value
        count_text = self.query_one("#count", Input).value.strip()
        count = int(count_text) if count_text.lstrip("-").isdigit() else 0
        if not endless and not 1 <= count <= 1000:
            raise PerfdrillError("the number of questions must be between 1 and 1000", field="Questions")
        seed_text = self.query_one("#seed", Input).value.strip()
        difficulty = self.query_one("#difficulty", Select).value
        return Plan(
            families=tuple(self.query_one("#families", TickList).selected),
            difficulty=None if difficulty == _ANY else str(difficulty),
            count=None if endless else count,
            chips=_ids(self.query_one("#chips", Input).value),
            models=_ids(self.query_one("#models", Input).value),
            seed=int(seed_text) if seed_text.lstrip("-").isdigit() else secrets.randbelow(1_000_000),
        )

    def action_start(self) -> None:
        if not self.ready:
            self.notify("Still loading the question bank…")
            return
        try:
            plan = self.plan()
        except PerfdrillError as exc:
            self.notify(exc.one_line(), title="Cannot start", severity="error")
            return
        self.post_message(StartSession(plan))

    def action_resume(self) -> None:
        if self.unfinished is None:
            self.notify("There is no interrupted session to continue.")
        elif self.ready:
            self.post_message(ResumeSession())

    def action_review(self) -> None:
        if not self.ready:
            self.notify("Still loading the question bank…")
        elif self.queue is None or self.queue.size == 0:
            self.notify("Nothing is due today, and today's new templates are done.")
        else:
            self.post_message(StartReview())

    def action_interview(self) -> None:
        if self.ready:
            self.post_message(StartInterview())
        else:
            self.notify("Still loading the question bank…")

    def action_ask_quit(self) -> None:
        """Esc asks before leaving the app: one stray Esc too many must not end it."""

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.app.push_screen(
            ConfirmScreen("Quit perfdrill?", "Every answer is saved.", yes="Quit", no="Stay"), answered
        )

    def action_progress(self) -> None:
        if self.ready:
            self.post_message(ShowProgress())
        else:
            self.notify("Still loading the question bank…")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "start-button": self.action_start,
            "resume-button": self.action_resume,
            "review-button": self.action_review,
            "progress-button": self.action_progress,
            "interview-button": self.action_interview,
        }
        actions[event.button.id or ""]()
