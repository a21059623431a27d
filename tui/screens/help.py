"""`?`: the keys, and how answers may be typed."""

from __future__ import annotations

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP = """\
# perfdrill: keys

| key | where | does |
| --- | --- | --- |
| `Enter` | answer field | next field; on the last one, submit |
| `Ctrl+S` | question | submit every part |
| `Ctrl+T` | question | show the next hint |
| `Ctrl+B` | question | show or hide the chip and model specs, with sources |
| `T` / `Enter` | feedback, a try left | try the same numbers again (the first try is the one scored) |
| `S` | feedback, a try left | show the answers |
| `N` | feedback | next question |
| `R` | feedback, answers shown | retry with a fresh variant of the same question |
| `X` | feedback, answers shown | expand the worked explanation |
| `R` | summary | practise the missed questions again |
| `Ctrl+E` | start, progress | review what is due today, then new templates |
| `Ctrl+P` | start | progress: mastery, what is due, streaks |
| `Ctrl+O` | start | a mock interview: one scenario, timed, no hints, a scorecard |
| `Esc` | anywhere | close what is open (specs, explanation, help), else back one step |
| | start screen | quitting asks first |
| | question, feedback | ending the session asks first; it can be continued later |
| `Ctrl+Q` | anywhere | quit; the session can be continued from the start screen |
| `?` / `F1` | anywhere, answer fields included (`?` is never part of an answer) | this help |

## Typing answers

- Numbers take units: `1.62 ms`, `3.35 TB/s`, `512 KiB`, `46.7B` (parameters), `2e12 FLOP`.
  A plain number is read in the unit shown next to the part.
- The line under each field shows how your answer is read, or what is wrong with it.
  A malformed answer or a unit of the wrong kind is never graded and costs no attempt.
- Choices take a letter, a number or the text; "select all" parts take a comma list or `none`.

Progress is saved after every graded answer (`perfdrill stats` summarises it). The title of a
question names its variant as the command line regenerates it: `perfdrill preview ID --seed N`,
with the same `--chip` and `--model` restriction.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]  # ? and F1 toggle it from the app

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(Markdown(HELP))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
