"""The app's building blocks: an answer field that checks itself as you type, the spec panel, the
roofline chart, and tick boxes that read ticked or empty without colour. Each takes engine
objects in and posts messages out."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Checkbox, Input, OptionList, SelectionList, Static

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
    typed_figures,
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
        return show_number(parse_numeric(part, text), part.unit, digits=typed_figures(text))
    picked = parse_choices(part, text)
    return lettered(part, picked, empty="none of them")


class PartInput(Vertical):
    """One part: its prompt, its choices, an input and a live reading of what was typed."""

    class Checked(Message):
        def __init__(self, part: str, ok: bool) -> None:
            super().__init__()
            self.part = part
            self.ok = ok

    def __init__(
        self, index: int, part: ProblemPart, answer: str = "", was_right: bool | None = None
    ) -> None:
        """`answer` and `was_right` carry a first try into the second."""
        super().__init__(classes="part")
        self.index = index
        self.part = part
        self.answer = answer
        self.was_right = was_right

    def compose(self) -> ComposeResult:
        part = self.part
        unit = f" [dim]\\[{part.unit}][/]" if part.kind == "numeric" and part.unit not in ("", "1") else ""
        prompt = (
            Text.from_markup(f"[b]({letter(self.index)})[/] ") + Text(part.prompt) + Text.from_markup(unit)
        )
        if part.kind == "multi":
            prompt.append(" (select all that apply)", style="italic")
        if self.was_right is not None:
            verdict = (
                ("  ✓ right at the first try", "green")
                if self.was_right
                else ("  ✗ wrong at the first try", "red")
            )
            prompt.append(*verdict)
        for i, choice in enumerate(part.choices):
            prompt.append(f"\n    {letter(i)}. {choice}")
        yield Static(prompt, classes="part-prompt")
        yield AnswerField(
            self.answer, placeholder=expected_form(part), id=f"answer-{part.name}", classes="answer"
        )
        yield Static("", classes="reading")

    def on_mount(self) -> None:
        if self.answer:
            self.check()

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
        if event.input.has_focus:  # typing into a field scrolled away (PageDown) brings it back
            self.call_after_refresh(self.show_field)

    def show_field(self) -> None:
        """Scroll the field and the reading under it into view, the field first if both do not fit."""
        self.query_one(".reading", Static).scroll_visible(animate=False, immediate=True)
        self.query_one(Input).scroll_visible(animate=False, immediate=True)


class AnswerField(Input):
    """An answer field: `?` is never part of an answer, so it opens the help here too."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character != "?" and super().check_consume_key(key, character)


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


# Textual draws every box with the same "X" and tells ticked from empty by colour alone, which
# NO_COLOR erases; these draw a tick or nothing.
TICK = "✓"


class TickList(SelectionList[str]):
    """A SelectionList whose boxes read ticked or empty without colour, and whose long names wrap
    onto a second line rather than end in an ellipsis (60 columns): the box stands on an option's
    first line only. (SelectionList itself takes every line for a new option.)"""

    def render_line(self, y: int) -> Strip:
        # The prompt alone, wrapped, and OptionList's own map of lines to options (private names of
        # Textual 8, kept to these two lines); the box is drawn here.
        line = OptionList.render_line(self, y)
        try:
            index, offset = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return line
        ticked = self.get_option_at_index(index).value in self.selected
        component = "selection-list--button" + ("-selected" if ticked else "")
        component += "-highlighted" if self.highlighted == index else ""
        under = next(iter(line)).style or self.rich_style
        click = Style(meta={"option": index})  # a click on either line toggles this option
        if offset:
            return Strip([Segment(" " * self._get_left_gutter_width(), under + click), *line])
        button = self.get_component_rich_style(component) + click
        side = Style.from_color(button.bgcolor, under.bgcolor) + click
        box = [
            Segment(Checkbox.BUTTON_LEFT, side),
            Segment(TICK if ticked else " ", button),
            Segment(Checkbox.BUTTON_RIGHT, side),
            Segment(" ", under),
        ]
        return Strip([*box, *line])


class TickBox(Checkbox):
    def on_mount(self) -> None:
        self.BUTTON_INNER = TICK if self.value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = TICK if self.value else " "
        super().watch_value()
