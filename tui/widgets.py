"""The question screen's building blocks: an answer field that checks itself as you type, the spec
panel, and the roofline chart. Each takes engine objects in and posts messages out."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from perfdrill.engine import AnswerFormatError
from perfdrill.engine.output import spec_tables
from perfdrill.engine.problems import (
    Problem,
    ProblemPart,
    RooflineView,
    expected_form,
    letter,
    lettered,
    parse_choices,
    parse_numeric,
    show_number,
)
from perfdrill.tui.chart import roofline_text


class TitleBar(Static):
    """One line across the top: the app, then where you are."""

    def __init__(self, where: str = "") -> None:
        text = Text.assemble(("perfdrill", "bold"), "  GPU & LLM performance practice")
        if where:
            text.append(f"  ·  {where}", style="dim")
        super().__init__(text, id="title-bar")


def read_answer(part: ProblemPart, text: str) -> str:
    """How the answer will be read, e.g. "1.62 ms" or "b. memory"; AnswerFormatError if it cannot be."""
    if part.kind == "numeric":
        return show_number(parse_numeric(part, text), part.unit)
    picked = parse_choices(part, text)
    return lettered(part, picked, empty="none of them")


class PartInput(Vertical):
    """One part: its prompt, its choices, an input and a live reading of what was typed."""

    class Checked(Message):
        def __init__(self, part: str, ok: bool) -> None:
            super().__init__()
            self.part = part
            self.ok = ok

    def __init__(self, index: int, part: ProblemPart) -> None:
        super().__init__(classes="part")
        self.index = index
        self.part = part

    def compose(self) -> ComposeResult:
        part = self.part
        unit = f" [dim]\\[{part.unit}][/]" if part.kind == "numeric" and part.unit not in ("", "1") else ""
        prompt = (
            Text.from_markup(f"[b]({letter(self.index)})[/] ") + Text(part.prompt) + Text.from_markup(unit)
        )
        if part.kind == "multi":
            prompt.append(" (select all that apply)", style="italic")
        for i, choice in enumerate(part.choices):
            prompt.append(f"\n    {letter(i)}. {choice}")
        yield Static(prompt, classes="part-prompt")
        yield Input(placeholder=expected_form(part), id=f"answer-{part.name}", classes="answer")
        yield Static("", classes="reading")

    @property
    def text(self) -> str:
        return self.query_one(Input).value

    def check(self) -> str | None:
        """Show how the current text reads; return the problem with it, or None when it is fine."""
        reading = self.query_one(".reading", Static)
        text = self.text
        if not text.strip():
            reading.update("")
            return "no answer yet"
        try:
            reading.update(Text(f"✓ read as {read_answer(self.part, text)}", style="green"))
        except AnswerFormatError as exc:
            reading.update(Text(f"✗ {exc.message}", style="red"))
            return exc.message
        return None

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Checked(self.part.name, self.check() is None))


class SpecPanel(VerticalScroll):
    """The chips and models the variant drew, as the spec files state them, with sources."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(id="specs")
        self.problem = problem
        self.border_title = "Specs"

    def compose(self) -> ComposeResult:
        tables = spec_tables(self.problem.chips, self.problem.models)
        if not tables:
            yield Static(Text("This question gives every number it needs.", style="dim"))
        for table in tables:
            text = Text(table.title, style="bold")
            for row in table.rows:
                text.append(f"\n{row.fact}: ")
                text.append(row.value, style="bold")
                if row.source:
                    text.append(f"\n  {row.source}", style="dim italic")
            if table.source:
                text.append(f"\nsource: {table.source}", style="dim italic")
            if table.note:
                text.append(f"\nnote: {table.note}", style="italic")
            yield Static(text, classes="spec-table")


class RooflineChart(Static):
    """The variant's roofline, drawn off the UI thread to fit the width it gets."""

    PLOT_ROWS = 10

    def __init__(self, view: RooflineView) -> None:
        super().__init__(Text("drawing the roofline…", style="dim"), id="chart")
        self.view = view
        self.border_title = "Roofline"

    def on_resize(self) -> None:
        # After the screen is painted: the feedback above the chart must not wait for it.
        self.call_after_refresh(self.draw, self.content_size.width)

    @work(thread=True, exclusive=True, group="chart")
    def draw(self, width: int) -> None:
        text = roofline_text(self.view, width, self.PLOT_ROWS)
        self.app.call_from_thread(self.update, text)
