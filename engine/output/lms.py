"""What the Moodle and QTI exports share: which variants, accepted ranges, and text as HTML.

An LMS draws a random variant per student from a pool, so an export holds `count` variants of
each selected template, grouped by template; every value comes from the engine's Problem.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from html import escape

from markdown_it import MarkdownIt

from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.output.markdown import explanation_markdown
from perfdrill.engine.problems.answers import letter
from perfdrill.engine.problems.generation import Problem, ProblemPart, variant_seed
from perfdrill.engine.problems.leave_out import LeaveOut
from perfdrill.engine.problems.templates import Template

NONE_OF_THESE = "none of these"
# Raw HTML in a template is shown as text, never passed to the LMS as markup.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


@dataclass(frozen=True)
class Pool:
    """`count` variants of each template, for an LMS to draw from. A template of the user's own
    that cannot make one of them is left out whole, and `left_out.warn` is told."""

    templates: Sequence[Template]
    specs: SpecBook
    count: int
    seed: int
    left_out: LeaveOut = field(default_factory=lambda: LeaveOut(frozenset()))

    def groups(
        self, checkpoint: Callable[[], None] = lambda: None
    ) -> Iterator[tuple[Template, list[Problem]]]:
        """Each template with its variants, all made before any is written."""
        for template in self.templates:
            variants = []
            for index in range(self.count):
                checkpoint()
                problem = self.left_out.generate(template, variant_seed(self.seed, index), self.specs)
                if problem is None:
                    break
                variants.append(problem)
            else:
                yield template, variants


def markdown_html(markdown: str) -> str:
    return _MARKDOWN.render(markdown).strip()


def feedback_html(problem: Problem) -> str:
    """The worked answer: each part's value and the engine's derivation."""
    answers = "".join(
        f"<li>({letter(i)}) {escape(part.shown_answer)}</li>" for i, part in enumerate(problem.parts)
    )
    return f"<ul>{answers}</ul>{markdown_html(explanation_markdown(problem))}"


def part_html(index: int, part: ProblemPart, answer: str = "") -> str:
    """A part's prompt as a paragraph; `answer` (a Cloze blank) replaces the "[unit]" note."""
    unit = f" [{escape(part.unit)}]" if part.kind == "numeric" and part.unit not in ("", "1") else ""
    tail = f" {answer}" if answer else unit
    return f"<p><strong>({letter(index)})</strong> {escape(part.prompt)}{tail}</p>"


def choices(part: ProblemPart) -> list[tuple[str, bool]]:
    """(choice, correct) pairs. A select-all part gains "none of these", so it always has a right
    answer to tick and an LMS can grade it."""
    pairs = [(choice, choice in part.correct) for choice in part.choices]
    if part.kind == "multi":
        pairs.append((NONE_OF_THESE, not part.correct))
    return pairs


def accepted_range(part: ProblemPart) -> tuple[float, float]:
    """The interval of answers the engine's grading accepts for a numeric part (its tolerance)."""
    assert part.value is not None
    kind, amount = part.tolerance
    if kind == "absolute":
        margin = amount
    elif kind == "sig_figs":
        margin = (
            0.0
            if part.value == 0
            else 0.5 * 10 ** (math.floor(math.log10(abs(part.value))) - int(amount) + 1)
        )
    else:
        margin = amount * abs(part.value)
    return part.value - margin, part.value + margin


def plain_number(value: float) -> str:
    """A number as LMS importers read it: the float exactly (shortest round-trip digits), decimal
    digits only, no exponent, no thousands separators."""
    return format(Decimal(repr(float(value))).normalize(), "f")
