"""A yes/no dialog, and the one question it asks today: end this session here?"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from perfdrill.tui.messages import EndSession


class ConfirmScreen(ModalScreen[bool]):
    """Returns True for `yes`; Esc, `n` and the `no` button return False. `no` has the focus, so
    an Esc followed by a stray Enter keeps the user where they were."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "No"),
        Binding("y", "answer(True)", "Yes"),
    ]
    AUTO_FOCUS = "#no"

    def __init__(self, question: str, detail: str, yes: str, no: str) -> None:
        super().__init__()
        self.question, self.detail, self.yes, self.no = question, detail, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question, style="bold"))
            yield Static(Text(self.detail), classes="detail")
            with Horizontal(classes="choices"):
                yield Button(f"{self.yes} (y)", variant="warning", id="yes")
                yield Button(f"{self.no} (Esc)", variant="primary", id="no")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


def ask_to_end(screen: Screen[None]) -> None:
    """Ask before ending the session; post EndSession from `screen` only when confirmed."""

    def answered(yes: bool | None) -> None:
        if yes:
            screen.post_message(EndSession())

    screen.app.push_screen(
        ConfirmScreen(
            "End this session here?",
            "Every graded answer is saved. Continue on the start screen picks up at this question.",
            yes="End session",
            no="Keep practising",
        ),
        answered,
    )
