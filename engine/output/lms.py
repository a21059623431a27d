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

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.model.units import parse_quantity
from perfdrill.engine.output.markdown import explanation_markdown
from perfdrill.engine.problems.answers import letter
from perfdrill.engine.problems.generation import Problem, ProblemPart, variant_seed
from perfdrill.engine.problems.grading import slip_feedback, within
from perfdrill.engine.problems.leave_out import LeaveOut
from perfdrill.engine.problems.templates import Template

NONE_OF_THESE = "none of these"
# Raw HTML in a template is shown as text, never passed to the LMS as markup. Links keep only
# their text and images are dropped, as in the printed HTML and PDF: a template cannot make an
# LMS page fetch a remote image or send a student elsewhere.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
_MARKDOWN.add_render_rule("link_open", lambda *args: "")
_MARKDOWN.add_render_rule("link_close", lambda *args: "")
_MARKDOWN.add_render_rule("image", lambda *args: "")
# Prefixes tried on a part's unit for the units an answer may be typed in: small ones for times.
_TIME_PREFIXES = ("", "m", "µ", "n")
_PREFIXES = ("", "k", "M", "G", "T", "P")
_BINARY_PREFIXES = ("Ki", "Mi", "Gi", "Ti")  # bytes only
_UNPREFIXED = ("USD", "day", "days", "h", "hour", "hours")  # nobody writes kUSD or Mdays


@dataclass(frozen=True)
class Pool:
    """`count` variants of each template, for an LMS to draw from. A template of the user's own
    that cannot make one of them is left out whole, and `left_out.warn` is told; `answers` "none"
    leaves every worked solution and mistake explanation out of the feedback."""

    templates: Sequence[Template]
    specs: SpecBook
    count: int
    seed: int
    left_out: LeaveOut = field(default_factory=lambda: LeaveOut(frozenset()))
    answers: str = "key"

    @property
    def feedback(self) -> bool:
        return self.answers != "none"

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
        f"<li>({letter(i)}) {escape(part.keyed_answer)}</li>" for i, part in enumerate(problem.parts)
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


def accepted_range(part: ProblemPart, value: float | None = None) -> tuple[float, float]:
    """The interval of answers the engine's grading accepts around `value` (the part's answer by
    default, or a mistake's value, which grading matches with the same tolerance)."""
    centre = part.value if value is None else value
    assert centre is not None
    kind, amount = part.tolerance
    if kind == "absolute":
        margin = amount
    elif kind == "sig_figs":
        margin = 0.0 if centre == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(centre))) - int(amount) + 1)
    else:
        margin = amount * abs(centre)
    return centre - margin, centre + margin


def named_mistakes(part: ProblemPart) -> list[tuple[float, str]]:
    """(value, feedback) for each wrong value a catalogued mistake gives, with the grader's own
    wording; slips landing on one value share it, and none overlaps the right answer's range."""
    if part.value is None:
        return []  # a choice part: its wrong options are the mistakes
    slips: dict[float, list[str]] = {}
    for mistake, value in part.mistakes:
        if not within(value, part.value, part.tolerance):
            slips.setdefault(value, []).append(mistake)
    return [(value, slip_feedback(tuple(ids))) for value, ids in slips.items()]


def accepted_units(part: ProblemPart) -> list[tuple[str, float]]:
    """(unit, multiplier) for the units an answer to `part` may be typed in, its own unit first
    with multiplier 1: Moodle's convention, where the answer in a unit is the base answer times
    its multiplier (1 ms is 1000 µs, so µs has multiplier 1000 when the answer is in ms)."""
    if part.unit in ("", "1", "%"):
        return []
    stems = {part.unit}
    for prefix in sorted(_PREFIXES + _BINARY_PREFIXES + _TIME_PREFIXES, key=len, reverse=True):
        if prefix and part.unit.startswith(prefix) and len(part.unit) > len(prefix):
            stems.add(part.unit[len(prefix) :])
            break
    units = [(part.unit, 1.0)]
    for stem in sorted(stems - {u for u in stems if u.split("/")[0] in _UNPREFIXED}):
        prefixes = _TIME_PREFIXES if stem == "s" else _PREFIXES
        for prefix in prefixes + (_BINARY_PREFIXES if stem.startswith("B") else ()):
            name = prefix + stem
            if any(name == seen for seen, _ in units):
                continue
            try:
                size = parse_quantity(f"1 {name}", part.unit)
            except PerfdrillError:
                continue
            if size > 0:
                units.append((name, float(f"{1 / size:.12g}")))  # 1000, not 999.9999999999999
    return units


def plain_number(value: float) -> str:
    """A number as LMS importers read it: the float exactly (shortest round-trip digits), decimal
    digits only, no exponent, no thousands separators."""
    return format(Decimal(repr(float(value))).normalize(), "f")
