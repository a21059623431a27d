"""The end of a mock interview: the scorecard an interviewer would write (accuracy, pace against
the targets, the named mistakes, the templates to review) and the notes taken on the way."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from perfdrill.engine.practice.interview import Scorecard
from perfdrill.tui.messages import BackToStart
from perfdrill.tui.widgets import TitleBar


class ScorecardScreen(Screen[None]):
    BINDINGS = [Binding("enter", "back", "Done"), Binding("escape", "back", "Back")]
    AUTO_FOCUS = "#scorecard"

    def __init__(self, card: Scorecard) -> None:
        super().__init__()
        self.card = card

    def compose(self) -> ComposeResult:
        card = self.card
        yield TitleBar(f"interview #{card.seed} · {card.chip} · {card.model}")
        with VerticalScroll(id="scorecard"):
            verdict, *rest = card.lines()
            text = Text("Scorecard\n", style="bold")
            text.append(verdict + "\n", style="bold")
            text.append("\n".join(rest))
            notes = [(q.position, q.note) for q in card.questions if q.note]
            if notes:
                text.append("\n\nYour reasoning notes", style="bold")
                for position, note in notes:
                    text.append(f"\n  {position + 1}. {note}")
            text.append(f"\n\nThe same interview again: perfdrill interview --seed {card.seed}", style="dim")
            yield Static(text, id="scorecard-text")
        yield Footer()

    def action_back(self) -> None:
        self.post_message(BackToStart())
