"""After a submit: each part's result, the named mistake, the roofline and the worked explanation."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from perfdrill.engine.output import explanation_lines
from perfdrill.engine.problems import CATALOGUE, Grade, Problem, letter
from perfdrill.tui.messages import EndSession, FreshVariant, NextQuestion
from perfdrill.tui.widgets import RooflineChart, TitleBar, read_answer
from perfdrill.tui.wrapped import explanation_text

_STATUS = {"correct": ("✓ correct", "bold green"), "incorrect": ("✗ wrong", "bold red")}


def results_table(problem: Problem, grade: Grade, answers: dict[str, str]) -> Table:
    table = Table(expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("part", ratio=3)
    table.add_column("you", ratio=2)
    table.add_column("expected", ratio=2)
    table.add_column("result", ratio=3)
    for index, part in enumerate(problem.parts):
        result = grade.parts[part.name]
        status, style = _STATUS.get(result.status, ("– skipped", "yellow"))
        verdict = Text(status, style=style)
        if result.mistake:
            verdict.append(f"\n{CATALOGUE[result.mistake].title}", style="italic")
        elif result.status == "incorrect":
            verdict.append(f"\n{result.feedback}", style="dim")
        prompt = part.prompt if len(part.prompt) <= 60 else part.prompt[:57] + "…"
        table.add_row(
            f"({letter(index)}) {prompt}", read_answer(part, answers[part.name]), part.shown_answer, verdict
        )
    return table


class FeedbackScreen(Screen[None]):
    BINDINGS = [
        Binding("n", "next", "Next"),
        Binding("enter", "next", "Next", show=False),
        Binding("r", "retry", "Fresh variant"),
        Binding("x", "explanation", "Explanation"),
        Binding("escape", "end", "End session"),
    ]
    AUTO_FOCUS = "#feedback"

    def __init__(self, problem: Problem, grade: Grade, answers: dict[str, str], progress: str) -> None:
        super().__init__(classes="session")
        self.problem = problem
        self.grade = grade
        self.answers = answers
        self.progress = progress

    def compose(self) -> ComposeResult:
        grade = self.grade
        right = sum(g.status == "correct" for g in grade.parts.values())
        style = "green" if grade.score >= 1 else "red" if grade.score == 0 else "yellow"
        yield TitleBar()
        with VerticalScroll(id="feedback"):
            yield Static(
                Text.assemble(
                    (f"{right}/{len(grade.parts)} parts right · score {grade.score:.0%}", f"bold {style}"),
                    (f"   {self.problem.template.title} · question {self.progress}", "dim"),
                ),
                id="score",
            )
            yield Static(results_table(self.problem, grade, self.answers), id="results")
            for name, result in grade.parts.items():
                if result.mistake:
                    mistake = CATALOGUE[result.mistake]
                    yield Static(
                        Text.assemble(
                            ("Likely mistake: ", "bold"),
                            (f"{mistake.title}. ", "italic"),
                            mistake.explanation,
                        ),
                        classes="mistake",
                        name=name,
                    )
            if self.problem.roofline is not None:
                yield RooflineChart(self.problem.roofline)
            yield Static(Text("▶ Worked explanation: press x", style="bold"), id="explanation-title")
            explanation = Static(explanation_text(explanation_lines(self.problem)), id="explanation")
            explanation.display = False
            yield explanation
        yield Footer()

    def action_next(self) -> None:
        self.post_message(NextQuestion())

    def action_retry(self) -> None:
        self.post_message(FreshVariant(self.problem))

    def action_explanation(self) -> None:
        explanation = self.query_one("#explanation", Static)
        explanation.display = not explanation.display
        arrow = "▼" if explanation.display else "▶"
        self.query_one("#explanation-title", Static).update(
            Text(f"{arrow} Worked explanation: press x", style="bold")
        )
        if explanation.display:
            title = self.query_one("#explanation-title", Static)
            self.query_one("#feedback", VerticalScroll).scroll_to_widget(title, top=True, animate=False)

    def action_end(self) -> None:
        self.post_message(EndSession())
