"""After a submit: each part right or wrong and the named mistake. While a second try is left the
expected values stay hidden (`t` tries the same numbers again, `s` shows the answers); once shown,
the expected values, the roofline and the worked explanation follow."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from perfdrill.engine.output import explanation_lines
from perfdrill.engine.practice import Outcome
from perfdrill.engine.problems import CATALOGUE, Grade, PartGrade, Problem, letter
from perfdrill.tui.messages import FreshVariant, NextQuestion, Revealed, TryAgain
from perfdrill.tui.screens.confirm import ask_to_end
from perfdrill.tui.widgets import RooflineChart, TitleBar, read_answer
from perfdrill.tui.wrapped import explanation_text

_STATUS = {"correct": ("✓ correct", "bold green"), "incorrect": ("✗ wrong", "bold red")}


def results_table(problem: Problem, grade: Grade, answers: dict[str, str], *, revealed: bool) -> Table:
    table = Table(expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("part", ratio=3)
    table.add_column("you", ratio=2)
    if revealed:
        table.add_column("expected", ratio=2)
    table.add_column("result", ratio=3)
    for index, part in enumerate(problem.parts):
        result = grade.parts[part.name]
        status, style = _STATUS.get(result.status, ("– skipped", "yellow"))
        verdict = Text(status, style=style)
        named = _named(result)
        if named:  # several slips giving this value are all named: naming one would mislead
            verdict.append("\n" + "\nor ".join(CATALOGUE[m].title for m in named), style="italic")
        elif result.status == "incorrect":
            verdict.append(f"\n{result.feedback}", style="dim")
        prompt = part.prompt if len(part.prompt) <= 60 else part.prompt[:57] + "…"
        expected = (part.shown_answer,) if revealed else ()
        table.add_row(
            f"({letter(index)}) {prompt}", read_answer(part, answers[part.name]), *expected, verdict
        )
    return table


def _named(result: PartGrade) -> tuple[str, ...]:
    return (result.mistake,) if result.mistake else result.mistakes


def mistake_paragraphs(problem: Problem, grade: Grade) -> list[Text]:
    """One paragraph per named mistake, with the parts it explains: a slip made in two parts
    is explained once."""
    parts: dict[str, list[str]] = {}
    for index, part in enumerate(problem.parts):
        for mistake in _named(grade.parts[part.name]):
            parts.setdefault(mistake, []).append(f"({letter(index)})")
    return [
        Text.assemble(
            (f"Likely mistake {', '.join(where)}: ", "bold"),
            (f"{CATALOGUE[mistake].title}. ", "italic"),
            CATALOGUE[mistake].explanation,
        )
        for mistake, where in parts.items()
    ]


class FeedbackScreen(Screen[None]):
    BINDINGS = [
        Binding("t", "try_again", "Try again"),
        Binding("s", "show_answer", "Show answers"),
        Binding("n", "next", "Next"),
        Binding("enter", "enter", "Next", show=False),
        Binding("r", "retry", "Fresh variant"),
        Binding("x", "explanation", "Explanation"),
        Binding("escape", "back", "Back"),
    ]
    AUTO_FOCUS = "#feedback"

    def __init__(
        self,
        problem: Problem,
        outcome: Outcome,
        progress: str,
        *,
        scored: float,
        hints: int,
        interview: bool = False,
    ) -> None:
        """`scored` is the first try's score, the one that counts, even on a second try. An
        `interview` question is asked once and never swapped for a fresh variant."""
        super().__init__(classes="session")
        self.interview = interview
        self.problem = problem
        self.outcome = outcome
        self.grade = outcome.grade
        self.answers = outcome.attempt.answers
        self.progress = progress
        self.scored = scored
        self.hints = hints
        self.revealed = not outcome.can_try_again

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("try_again", "show_answer"):
            return not self.revealed
        if action == "retry":
            return self.revealed and not self.interview
        if action == "explanation":
            return self.revealed
        return True

    def _headline(self) -> Text:
        grade = self.grade
        right = sum(g.status == "correct" for g in grade.parts.values())
        style = "green" if grade.score >= 1 else "red" if grade.score == 0 else "yellow"
        which = "second try" if self.outcome.attempt.try_number > 1 else "first try"
        text = Text(f"{right}/{len(grade.parts)} parts right at the {which}", style=f"bold {style}")
        text.append(f" · scored {self.scored:.0%}", style="bold")
        text.append(f"   {self.problem.template.title} · {self.progress}", style="dim")
        if not self.revealed:
            text.append("\nt: try again with the same numbers · s: show the answers · n: next", style="bold")
        return text

    def compose(self) -> ComposeResult:
        grade = self.grade
        yield TitleBar()
        with VerticalScroll(id="feedback"):
            yield Static(self._headline(), id="score")
            yield Static(
                results_table(self.problem, grade, self.answers, revealed=self.revealed), id="results"
            )
            for paragraph in mistake_paragraphs(self.problem, grade):
                yield Static(paragraph, classes="mistake")
            if self.revealed:
                if self.problem.roofline is not None:
                    yield RooflineChart(self.problem.roofline)
                yield Static(Text("▶ Worked explanation: press x", style="bold"), id="explanation-title")
                explanation = Static(explanation_text(explanation_lines(self.problem)), id="explanation")
                explanation.display = False
                yield explanation
        yield Footer()

    def action_enter(self) -> None:
        """Enter tries again while a try is left, else goes on."""
        if self.revealed:
            self.action_next()
        else:
            self.action_try_again()

    def action_next(self) -> None:
        self.post_message(NextQuestion())

    def action_try_again(self) -> None:
        if not self.revealed:
            self.post_message(TryAgain(self.problem, self.answers, self.hints))

    async def action_show_answer(self) -> None:
        if self.revealed:
            return
        self.revealed = True
        self.post_message(Revealed())
        await self.recompose()
        self.query_one("#feedback", VerticalScroll).focus()
        self.refresh_bindings()

    def action_retry(self) -> None:
        self.post_message(FreshVariant(self.problem))

    def _explanation_shown(self) -> bool:
        return self.revealed and self.query_one("#explanation", Static).display

    def action_explanation(self) -> None:
        if not self.revealed:
            return
        explanation = self.query_one("#explanation", Static)
        explanation.display = not explanation.display
        arrow = "▼" if explanation.display else "▶"
        title = self.query_one("#explanation-title", Static)
        title.update(Text(f"{arrow} Worked explanation: press x", style="bold"))
        if explanation.display:  # once it is laid out, so there is room to scroll it into view
            scroller = self.query_one("#feedback", VerticalScroll)
            self.call_after_refresh(scroller.scroll_to_widget, title, top=True, animate=False)

    def action_back(self) -> None:
        """Esc folds the explanation away when it is open; otherwise it asks before ending."""
        if self._explanation_shown():
            self.action_explanation()
        else:
            ask_to_end(self)
