"""A question: the prompt as Markdown, one checked input per part, staged hints and the spec panel.

It opens at its top with the prompt in view; the first field has the focus without scrolling the
prompt away. A second try opens with the first try's answers, each marked right or wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.markdown import Markdown
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from perfdrill.engine.practice import SessionState
from perfdrill.engine.practice.interview import clock_text, target_seconds
from perfdrill.engine.problems import Problem, letter
from perfdrill.tui.messages import SpecsToggled, Submitted
from perfdrill.tui.screens.confirm import ask_to_end
from perfdrill.tui.widgets import PartInput, SpecPanel, TitleBar


@dataclass(frozen=True)
class Timing:
    """An interview question's clock: its target, the time the interview took before it, and
    the clock both are read on."""

    target: float
    before: float
    clock: Callable[[], float]


def interview_timing(state: SessionState, problem: Problem, clock: Callable[[], float]) -> Timing | None:
    """In an interview, the clock: this question's target, and the interview so far; else None."""
    plan = state.practice.plan
    if not plan.interview:
        return None
    target = target_seconds(problem.template.difficulty, plan.follow_ups[state.position])
    return Timing(target, sum(a.seconds for a in state.attempts), clock)


def session_question(
    state: SessionState, problem: Problem, clock: Callable[[], float], *, show_specs: bool, **options: Any
) -> QuestionScreen:
    """The session's question screen: its place in the session and its spec reference."""
    return QuestionScreen(
        problem, state.progress_label(), state.reference(problem), clock(), show_specs=show_specs, **options
    )


class QuestionScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", priority=True),
        Binding("ctrl+t", "hint", "Hint", priority=True),
        Binding("ctrl+b", "toggle_specs", "Specs", priority=True),
        Binding("escape", "back", "Back"),
    ]
    AUTO_FOCUS = ""  # focused in on_mount, without the scroll-to-centre that auto focus does

    def __init__(
        self,
        problem: Problem,
        progress: str,
        reference: str,
        started: float,
        *,
        show_specs: bool,
        first_try: Mapping[str, tuple[str, bool]] | None = None,
        hints_shown: int = 0,
        timing: Timing | None = None,
    ) -> None:
        """`first_try` (part -> (answer, right)) makes this the second try at the same numbers;
        `timing` makes it an interview question: a clock, no hints, a reasoning note."""
        super().__init__(classes="session")
        self.timing = timing
        self.problem = problem
        self.progress = progress
        self.reference = reference
        self.started = started
        self.show_specs = show_specs
        self.first_try = dict(first_try or {})
        self.hints_shown = 0
        self._hints_at_start = hints_shown

    def compose(self) -> ComposeResult:
        template = self.problem.template
        yield TitleBar()
        with Horizontal(id="question-body"):
            with VerticalScroll(id="question"):
                yield Static(
                    Text.assemble(
                        (template.title, "bold"),
                        (
                            f"  {template.family_title} · {template.difficulty} · {self.progress}"
                            f" · {self.reference}",
                            "dim",
                        ),
                    ),
                    id="question-title",
                )
                if self.first_try:
                    yield Static(
                        Text(
                            "Second try, same numbers: your first answers are below, each marked. "
                            "This try does not change the score.",
                            style="bold yellow",
                        ),
                        id="second-try",
                    )
                yield Static(Markdown(self.problem.prompt), id="prompt")
                for index, part in enumerate(self.problem.parts):
                    answer, right = self.first_try.get(part.name, ("", None))
                    yield PartInput(index, part, answer, right)
                if self.timing is not None:
                    yield Static(
                        Text("Your reasoning (optional, saved with the answer):", style="bold"),
                        classes="part-prompt",
                    )
                    yield Input(placeholder="e.g. decode reads every weight once per step", id="reasoning")
                yield Static("", id="hints")
            panel = SpecPanel(self.problem)
            panel.display = self.show_specs
            yield panel
        if self.timing is not None:
            yield Static("", id="clock")
        yield Static("", id="not-submitted")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "hint" and self.timing is not None)  # an interview gives no hints

    def on_mount(self) -> None:
        if self.timing is not None:
            self.tick()
            self.set_interval(1.0, self.tick)
        for _ in range(self._hints_at_start):
            self._show_next_hint()
        fields = [w for w in self.query(PartInput) if w.was_right is not True] or list(self.query(PartInput))
        fields[0].query_one(Input).focus(scroll_visible=False)
        if self.first_try:  # the prompt was read at the first try: the field to fix comes into view
            self.call_after_refresh(fields[0].show_field)

    def tick(self) -> None:
        """The interview clock: this question against its target, and the interview so far."""
        timing = self.timing
        assert timing is not None
        spent = max(0.0, timing.clock() - self.started)
        over = spent > timing.target
        text = Text.assemble(
            ("⏱ ", "bold"),
            (clock_text(spent), "bold red" if over else "bold"),
            f" of {clock_text(timing.target)} for this question",
            (" · over the target" if over else "", "red"),
            f" · interview {clock_text(timing.before + spent)} · no hints",
        )
        self.query_one("#clock", Static).update(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        position = inputs.index(event.input)
        if position + 1 < len(inputs):
            inputs[position + 1].focus()
        else:
            self.action_submit()

    def on_part_input_checked(self) -> None:
        notice = self.query_one("#not-submitted", Static)
        notice.update("")
        notice.display = False  # no empty line taken from the question

    def action_submit(self) -> None:
        problems = []
        for widget in self.query(PartInput):
            trouble = widget.check()
            if trouble is not None:
                problems.append((widget, trouble))
        if problems:
            widget, trouble = problems[0]
            widget.query_one(Input).focus()
            notice = self.query_one("#not-submitted", Static)
            notice.display = True
            notice.update(
                Text.assemble(
                    ("Not submitted: ", "bold yellow"),
                    f"({letter(widget.index)}) {trouble}. No try used.",
                )
            )
            return
        answers = {widget.part.name: widget.text for widget in self.query(PartInput)}
        note = self.query_one("#reasoning", Input).value if self.timing is not None else ""
        self.post_message(Submitted(self.problem, answers, self.hints_shown, self.started, note))

    def _show_next_hint(self) -> Static:
        hints = self.problem.hints
        self.hints_shown += 1
        shown = "\n".join(f"{i + 1}. {hint}" for i, hint in enumerate(hints[: self.hints_shown]))
        hints_view = self.query_one("#hints", Static)
        hints_view.update(Markdown(f"**Hints** ({self.hints_shown}/{len(hints)})\n\n{shown}"))
        return hints_view

    def action_hint(self) -> None:
        hints = self.problem.hints
        if self.hints_shown >= len(hints):
            self.notify("No more hints for this question." if hints else "This question has no hints.")
            return
        hints_view = self._show_next_hint()
        self.call_after_refresh(self._keep_in_view, hints_view)  # once the hint is laid out

    def _keep_in_view(self, hints: Widget) -> None:
        """Scroll the new hint into view without losing the field being typed in: when both do not
        fit, the field (above the hints) wins."""
        scroller = self.query_one("#question", VerticalScroll)
        focused = self.focused
        wanted = [hints.region] + ([focused.region] if focused is not None and focused.region else [])
        in_scroller = Region.from_union(wanted).translate(
            scroller.scroll_offset - scroller.content_region.offset
        )
        scroller.scroll_to_region(in_scroller, animate=False, immediate=True)

    def action_toggle_specs(self) -> None:
        panel = self.query_one(SpecPanel)
        panel.display = not panel.display
        self.post_message(SpecsToggled(panel.display))

    def action_back(self) -> None:
        """Esc closes the spec panel when it is open; otherwise it asks before ending the session."""
        panel = self.query_one(SpecPanel)
        if panel.display:
            self.action_toggle_specs()
        else:
            ask_to_end(self)
