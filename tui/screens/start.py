"""The start screen: what to practise, how much of it, and "continue where I left off"."""

from __future__ import annotations

import re
import secrets

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, SelectionList, Static

from perfdrill.engine import PerfdrillError
from perfdrill.engine.practice import FamilyStats, Plan, StoredSession
from perfdrill.engine.problems import DIFFICULTIES, FAMILIES
from perfdrill.tui.messages import ResumeSession, StartSession
from perfdrill.tui.widgets import TitleBar

_ANY = "any"


def _ids(text: str) -> tuple[str, ...]:
    return tuple(token for token in re.split(r"[\s,]+", text.strip().lower()) if token)


def history_line(stats: list[FamilyStats]) -> Text:
    attempts = sum(s.attempts for s in stats)
    if not attempts:
        return Text("No history yet: your answers are saved as you go.", style="dim")
    right = sum(s.correct for s in stats)
    line = f"History: {attempts} attempts, {right} fully right"
    weakest = min(stats, key=lambda s: s.mean_score)
    if len(stats) > 1 and weakest.mean_score < 1:
        line += f" · weakest: {FAMILIES.get(weakest.family, weakest.family)} ({weakest.mean_score:.0%})"
    return Text(line, style="dim")


class StartScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", priority=True),
        Binding("ctrl+r", "resume", "Continue", priority=True),
        Binding("escape", "app.quit", "Quit", show=False),
    ]

    def __init__(
        self,
        defaults: Plan,
        unfinished: StoredSession | None,
        history: Text,
        spec_ids: tuple[list[str], list[str]] | None = None,
        families: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.defaults = defaults
        self.unfinished = unfinished
        self.history = history
        self.spec_ids = spec_ids  # chip and model ids, once the bank has loaded
        self.families = families  # the bank's families (id -> title), once it has loaded
        self.ready = False

    def compose(self) -> ComposeResult:
        plan = self.defaults
        yield TitleBar()
        with Horizontal(id="start"):
            families = SelectionList[str](
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
                    yield Checkbox("endless", plan.count is None, compact=True, id="endless")
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
                    yield Button("Loading questions…", variant="primary", id="start-button", disabled=True)
                    yield Button("Continue", id="resume-button")
                yield Static(id="history")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#families", SelectionList).focus()
        self.show_history(self.unfinished, self.history)
        if self.spec_ids is not None:
            self.bank_ready(*self.spec_ids, self.families)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.unfinished is not None if action == "resume" else True

    def show_history(self, unfinished: StoredSession | None, history: Text) -> None:
        """Offer to continue `unfinished`, if any, and show the practice history line."""
        self.unfinished = unfinished
        self.refresh_bindings()
        button = self.query_one("#resume-button", Button)
        button.display = unfinished is not None
        if unfinished is not None:
            done = len({a.position for a in unfinished.attempts})
            button.label = f"Continue {done}/{unfinished.plan.total or '∞'}"
        self.query_one("#history", Static).update(history)

    def bank_ready(self, chips: list[str], models: list[str], families: dict[str, str] | None = None) -> None:
        """The bank and specs are loaded: offer their ids (and the families your templates
        declare) and allow starting."""
        self.ready = True
        picker = self.query_one("#families", SelectionList)
        offered = {picker.get_option_at_index(i).value for i in range(picker.option_count)}
        for family, title in (families or {}).items():
            if family not in offered:
                picker.add_option((title, family, family in self.defaults.families))
        self.query_one("#chips", Input).suggester = SuggestFromList(chips, case_sensitive=False)
        self.query_one("#models", Input).suggester = SuggestFromList(models, case_sensitive=False)
        button = self.query_one("#start-button", Button)
        button.label = "Start"
        button.disabled = False

    def plan(self) -> Plan:
        """The plan the fields describe; PerfdrillError for a count that makes no sense."""
        endless = self.query_one("#endless", Checkbox).value
        count_text = self.query_one("#count", Input).value.strip()
        count = int(count_text) if count_text.lstrip("-").isdigit() else 0
        if not endless and not 1 <= count <= 1000:
            raise PerfdrillError("the number of questions must be between 1 and 1000", field="Questions")
        seed_text = self.query_one("#seed", Input).value.strip()
        difficulty = self.query_one("#difficulty", Select).value
        return Plan(
            families=tuple(self.query_one("#families", SelectionList).selected),
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

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start-button":
            self.action_start()
        else:
            self.action_resume()
