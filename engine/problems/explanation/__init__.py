"""A problem's worked explanation, as a teacher writes one: the answers first, in the question's
own words; then the givens as the prompt shows them; then each part in the order asked, with its
own working, ending in its answer. A part set in a what-if works in a section named against the
setting just above it, and says how each value moved from the one the reader just read.

Modules: `model` (what an explanation is), `opener`, `parts` (the working, part by part),
`steps` (a template's own expressions), `whatifs` (naming a change) and `values` (how a value reads).
"""

from __future__ import annotations

from perfdrill.engine.problems.explanation.model import Explanation, Given, Section, letter, letter_index
from perfdrill.engine.problems.explanation.opener import opener
from perfdrill.engine.problems.explanation.parts import Working
from perfdrill.engine.problems.explanation.whatifs import scenario_change
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant

__all__ = ["Explanation", "Given", "Section", "explain", "letter", "letter_index", "scenario_change"]


def explain(
    template: Template,
    variant: Variant,
    lead: tuple[str, ...],
    questions: tuple[str, ...],
    answers: tuple[str, ...],
    prompt: str = "",
) -> Explanation:
    """The explanation of `variant`: the opener from the rendered part `questions` and the key's
    `answers` (as printed, so a step that answers a part ends in exactly that answer), then the
    `lead` sentences, then the working of each part in order; givens read as the `prompt` writes them."""
    working = Working(template, variant, answers, prompt)
    for index, part in enumerate(template.parts):
        working.part(index, part)
        working.flush()
    return Explanation((opener(template, questions, answers), *lead), working.sections())
