"""A question: the prompt as Markdown, one checked input per part, staged hints and the spec panel."""

from __future__ import annotations

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from perfdrill.engine.problems import Problem, letter
from perfdrill.tui.messages import EndSession, SpecsToggled, Submitted
from perfdrill.tui.widgets import PartInput, SpecPanel, TitleBar


class QuestionScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", priority=True),
        Binding("ctrl+t", "hint", "Hint", priority=True),
        Binding("ctrl+b", "toggle_specs", "Specs", priority=True),
        Binding("escape", "end", "End session"),
    ]
    AUTO_FOCUS = ".answer"  # the first answer field, focused before the first paint

    def __init__(self, problem: Problem, progress: str, started: float, *, show_specs: bool) -> None:
        super().__init__(classes="session")
        self.problem = problem
        self.progress = progress
        self.started = started
        self.show_specs = show_specs
        self.hints_shown = 0

    def compose(self) -> ComposeResult:
        template = self.problem.template
        yield TitleBar()
        with Horizontal():
            with VerticalScroll(id="question"):
                yield Static(
                    f"[b]{template.title}[/]  [dim]{template.family_title} · {template.difficulty}"
                    f" · question {self.progress} · {self.problem.id} #{self.problem.seed}[/]",
                    id="question-title",
                )
                yield Static(Markdown(self.problem.prompt), id="prompt")
                for index, part in enumerate(self.problem.parts):
                    yield PartInput(index, part)
                yield Static("", id="hints")
            panel = SpecPanel(self.problem)
            panel.display = self.show_specs
            yield panel
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        position = inputs.index(event.input)
        if position + 1 < len(inputs):
            inputs[position + 1].focus()
        else:
            self.action_submit()

    def action_submit(self) -> None:
        problems = []
        for widget in self.query(PartInput):
            trouble = widget.check()
            if trouble is not None:
                problems.append((widget, trouble))
        if problems:
            widget, trouble = problems[0]
            widget.query_one(Input).focus()
            self.notify(
                f"({letter(widget.index)}): {trouble}. Nothing was graded, so no attempt was used.",
                title="Not submitted",
                severity="warning",
            )
            return
        answers = {widget.part.name: widget.text for widget in self.query(PartInput)}
        self.post_message(Submitted(self.problem, answers, self.hints_shown, self.started))

    def action_hint(self) -> None:
        hints = self.problem.hints
        if self.hints_shown >= len(hints):
            self.notify("No more hints for this question." if hints else "This question has no hints.")
            return
        self.hints_shown += 1
        shown = "\n".join(f"{i + 1}. {hint}" for i, hint in enumerate(hints[: self.hints_shown]))
        hints_view = self.query_one("#hints", Static)
        hints_view.update(Markdown(f"**Hints** ({self.hints_shown}/{len(hints)})\n\n{shown}"))
        scroller = self.query_one("#question", VerticalScroll)
        self.call_after_refresh(scroller.scroll_to_widget, hints_view, animate=False)  # once laid out

    def action_toggle_specs(self) -> None:
        panel = self.query_one(SpecPanel)
        panel.display = not panel.display
        self.post_message(SpecsToggled(panel.display))

    def action_end(self) -> None:
        self.post_message(EndSession())
