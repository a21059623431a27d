"""A printable problem set as plain data: versions, problems, spec tables, parts, keys and plots.

The PDF (Typst) and HTML writers both render this one model, so the two formats cannot drift
apart, and every number in it comes from the engine's Problem objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.output.blocks import blocks
from perfdrill.engine.output.markdown import explanation_markdown, letter, lettered
from perfdrill.engine.output.plots import roofline_svg
from perfdrill.engine.output.spec_facts import spec_tables
from perfdrill.engine.problems.generation import Problem, ProblemPart
from perfdrill.engine.problems.templates import FAMILIES


@dataclass(frozen=True)
class PrintOptions:
    title: str
    date: str  # as printed in the header, e.g. 2026-11-22
    seed: int
    answers: str  # key | inline | none
    answer_space: int = 0  # blank lines left under each part
    one_per_page: bool = False
    plots: bool = True


def version_label(index: int, count: int) -> str:
    return f"Version {chr(ord('A') + index)}" if count > 1 else ""


def _part(index: int, part: ProblemPart) -> dict[str, Any]:
    unit = part.unit if part.kind == "numeric" and part.unit not in ("", "1") else ""
    return {
        "label": letter(index),
        "prompt": part.prompt,
        "unit": unit,
        "choices": [f"{letter(i)}. {choice}" for i, choice in enumerate(part.choices)],
        "select_all": part.kind == "multi",
        "answer": part.shown_answer if part.kind == "numeric" else lettered(part, part.correct),
    }


def _problem(number: int, problem: Problem, plots: bool) -> dict[str, Any]:
    template = problem.template
    tables = spec_tables(problem.chips, problem.models)
    view = problem.roofline if plots else None
    return {
        "number": number,
        "title": template.title,
        "meta": f"{FAMILIES[template.family]} · {template.difficulty} · {problem.id} · seed {problem.seed}",
        "specs": [
            {
                "title": table.title,
                "rows": [[row.fact, row.value] for row in table.rows],
                "sources": sorted({row.source for row in table.rows if row.source} | {table.source} - {""}),
            }
            for table in tables
        ],
        "prompt": blocks(problem.prompt),
        "parts": [_part(i, part) for i, part in enumerate(problem.parts)],
        "explanation": blocks(explanation_markdown(problem)),
        "plot": roofline_svg(view) if view is not None else None,
    }


def set_document(versions: Sequence[Sequence[Problem]], options: PrintOptions) -> dict[str, Any]:
    return {
        "title": options.title,
        "date": options.date,
        "seed": options.seed,
        "answers": options.answers,
        "answer_space": options.answer_space,
        "one_per_page": options.one_per_page,
        "versions": [
            {
                "label": version_label(index, len(versions)),
                "problems": [_problem(n + 1, p, options.plots) for n, p in enumerate(problems)],
            }
            for index, problems in enumerate(versions)
        ],
    }
