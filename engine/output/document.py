"""A printable problem set as plain data: student entries, key entries, sections and plots.

The PDF (Typst) and HTML writers both render this one model, so the two formats cannot drift
apart, and every number in it comes from the engine's Problem objects. Student entries carry an
opaque code and never the template id or a seed; only key entries map codes to (id, seed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfdrill.engine.model.spoken import counted
from perfdrill.engine.output.blocks import blocks
from perfdrill.engine.output.markdown import answer_text, letter, meta_line
from perfdrill.engine.output.plots import roofline_plot
from perfdrill.engine.output.spec_facts import spec_tables
from perfdrill.engine.output.versions import Slot
from perfdrill.engine.output.worked import explanation_data
from perfdrill.engine.problems.generation import Problem, ProblemPart
from perfdrill.engine.problems.roofline_view import RooflineView

RUNNING_TITLE = 60  # characters of the title a page header repeats; the first page has it all


@dataclass(frozen=True)
class PrintOptions:
    title: str
    date: str  # as printed in the header, e.g. 2026-11-22
    seed: int
    answers: str  # key | inline | none
    answer_space: int = 0  # blank lines left under each numeric part
    one_per_page: bool = False
    plots: bool = True


def running_title(title: str) -> str:
    """The title as a page header repeats it: one line, cut with an ellipsis when long."""
    flat = " ".join(title.split())
    return flat if len(flat) <= RUNNING_TITLE else flat[: RUNNING_TITLE - 1].rstrip() + "…"


def reproduce_command(problem: Problem) -> str:
    """What an instructor types to see this variant again, with its key."""
    return f"perfdrill preview {problem.id} --seed {problem.seed}"


def _part(index: int, part: ProblemPart, inline: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "label": letter(index),
        "prompt": part.prompt,
        "kind": part.kind,
        "unit": part.unit if part.kind == "numeric" and part.unit not in ("", "1") else "",
        "choices": [f"{letter(i)}. {choice}" for i, choice in enumerate(part.choices)],
        "select_all": part.kind == "multi",
    }
    if inline:
        entry["answer"] = answer_text(part)
    return entry


def problem_entry(slot: Slot, *, inline: bool) -> dict[str, Any]:
    """What a student sees of one problem; with `inline`, its answers and derivation too."""
    problem, template = slot.problem, slot.problem.template
    entry: dict[str, Any] = {
        "number": slot.number,
        "code": slot.code,
        "title": template.title,
        "meta": meta_line(slot),
        "specs": [
            {
                "title": table.title,
                "rows": [[row.fact, row.value] for row in table.rows],
                "sources": sorted({row.source for row in table.rows if row.source} | {table.source} - {""}),
            }
            for table in spec_tables(problem.chips, problem.models)
        ],
        "prompt": blocks(problem.prompt),
        "parts": [_part(i, part, inline) for i, part in enumerate(problem.parts)],
    }
    return entry


def key_entry(slot: Slot, options: PrintOptions) -> dict[str, Any]:
    """The key to one problem: its code's (template id, seed), answers, derivation and plot."""
    problem = slot.problem
    view = problem.roofline if options.plots else None
    return {
        "number": slot.number,
        "code": slot.code,
        "title": problem.template.title,
        "ref": f"{problem.id} · seed {problem.seed}",
        "command": reproduce_command(problem),
        "answers": key_answers(problem),
        "explanation": explanation_data(problem),
        "plot": None if view is None else roofline_plot(view, plot_title(view)),
    }


def plot_title(view: RooflineView) -> str:
    """The roof the plot draws, as its line is labelled: "Roofline of 2 × H100 SXM, bf16 at 55% MFU"."""
    return f"Roofline of {view.roofs[0].label}"


def key_answers(problem: Problem) -> list[list[str]]:
    """Each part's letter and answer as a key prints it."""
    return [[letter(i), answer_text(part)] for i, part in enumerate(problem.parts)]


def answer_grid_line(slot: Slot) -> list[str]:
    """One problem of a key on the compact answer grid: number, code, and every part's answer."""
    answers = "   ".join(f"({label}) {answer}" for label, answer in key_answers(slot.problem))
    return [str(slot.number), slot.code, answers]


def document_head(options: PrintOptions, versions: int, points: int | None = None) -> dict[str, Any]:
    """What every page of the set shares: titles, date, how answers and space are laid out, and
    (for a roster's copies) the total points, one a part."""
    return {
        "points": "" if points is None else f"{counted(points, 'point')}, one a part",
        "title": options.title,
        "running_title": running_title(options.title),
        "date": options.date,
        "seed": options.seed,
        "versions": versions,
        "answers": options.answers,
        "answer_space": options.answer_space,
        "one_per_page": options.one_per_page,
    }
