"""A worked explanation as plain data for printed sets: sentences, and maths as display nodes.

The Typst template and the HTML writer typeset the nodes (Typst maths, MathML) from this one
structure; nothing in it is markup, so a label or a template's value can never inject any.
"""

from __future__ import annotations

from typing import Any

from perfdrill.engine.model.display_nodes import quantity, word
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.generation import Problem


def _step(step: Step, letters: str) -> dict[str, Any]:
    result = word(step.result) if step.formula is None else quantity(step.result)
    return {
        "kind": "step",
        "part": letters,
        "label": step.label,
        "formula": step.shown_formula,
        "substituted": step.substituted,
        "result": result,
        "reasons": list(step.reasons),
        "phrase": step.phrase,
        "categorical": step.formula is None,
    }


def explanation_data(problem: Problem) -> dict[str, Any]:
    """The explanation of `problem`: lead sentences, then sections of givens and steps."""
    explanation = problem.explanation
    sections = []
    for section in explanation.sections:
        items = [
            {"kind": "change", "text": item}
            if isinstance(item, str)
            else _step(item, section.parts.get(item.name, ""))
            for item in section.items
        ]
        givens = [{"label": g.label, "value": quantity(g.value)} for g in section.givens]
        sections.append({"heading": section.heading, "givens": givens, "items": items})
    return {
        "lead": list(explanation.lead),
        "sections": sections,
    }
