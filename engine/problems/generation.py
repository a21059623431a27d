"""Turn (template, seed) into a Problem: rendered prompt, answers, mistake values, explanation."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from perfdrill.engine.errors import PerfdrillError, TemplateError, UsageError
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.numbers import (
    as_shown,
    format_in_unit,
    format_quantity,
    nearest_whole,
    tie_units,
    unit_shown,
)
from perfdrill.engine.model.quantity_text import is_whole, label_of
from perfdrill.engine.model.specs import Chip, Model, SpecBook
from perfdrill.engine.problems.answer_units import answer_factor, check_input_units, derived_scales
from perfdrill.engine.problems.counts import EDGE_NOTE, ON_THE_EDGE, ExactCount, exact_count
from perfdrill.engine.problems.explanation import Explanation, explain
from perfdrill.engine.problems.explanation.values import asked_units
from perfdrill.engine.problems.expressions import describe
from perfdrill.engine.problems.follow_ups import FollowUp
from perfdrill.engine.problems.insight import insights
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.parameter_draws import MAX_DRAWS, draw, parameter_scales, rng_for
from perfdrill.engine.problems.prompts import context, render
from perfdrill.engine.problems.roofline_view import RooflineView, roofline_view
from perfdrill.engine.problems.scenario_inputs import scenario_inputs
from perfdrill.engine.problems.templates import Part, Template
from perfdrill.engine.problems.variants import Variant, mistake_value


@dataclass(frozen=True)
class ProblemPart:
    name: str
    kind: str
    prompt: str
    unit: str  # numeric: the unit answers are read and shown in
    choices: tuple[str, ...]
    value: float | None  # numeric answer in `unit`
    correct: tuple[str, ...]  # choice or multi-select answer labels
    tolerance: tuple[str, float]
    mistakes: tuple[tuple[str, float], ...]  # (mistake id, its value in `unit`)
    exact: ExactCount | None = field(default=None, compare=False, repr=False)  # a whole count
    whole: bool = False  # a count (a batch) the explanation shows whole: shown so where tolerance allows

    @property
    def shown_answer(self) -> str:
        if self.value is not None:
            digits = answer_digits(self.tolerance)
            if self.whole and _rounds_within(self.value, self.tolerance):
                return show_number(nearest_whole(self.value), self.unit, exact=True)  # 62, never 61.7 batches
            return show_number(self.value, self.unit, exact=self.exact is not None, digits=digits)
        return ", ".join(self.correct) if self.correct else "none of them"

    @property
    def keyed_answer(self) -> str:
        """The answer as a key prints it: with how it is graded where that is not the usual way."""
        on_the_edge = self.exact is not None and self.tolerance == ON_THE_EDGE
        return f"{self.shown_answer} {EDGE_NOTE}" if on_the_edge else self.shown_answer


@dataclass(frozen=True)
class Problem:
    template: Template
    seed: int
    prompt: str
    parts: tuple[ProblemPart, ...]
    hints: tuple[str, ...]
    insights: tuple[str, ...]
    chips: tuple[Chip, ...]  # the specs the variant drew, for spec panels and printed tables
    models: tuple[Model, ...]
    variant: Variant = field(repr=False, compare=False)

    @cached_property
    def roofline(self) -> RooflineView | None:
        """The variant on the roofline, worked out only for screens and prints that draw it."""
        return roofline_view(self.variant)

    @cached_property
    def explanation(self) -> Explanation:
        """The worked explanation, worked out only for screens and prints that show it."""
        questions = tuple(part.prompt for part in self.parts)
        answers = tuple(part.shown_answer for part in self.parts)
        return explain(self.template, self.variant, self.insights, questions, answers, self.prompt)

    @property
    def id(self) -> str:
        return self.template.id

    def part(self, name: str) -> ProblemPart:
        for part in self.parts:
            if part.name == name:
                return part
        raise UsageError(
            f"question {self.id!r} has no part {name!r}; parts: {', '.join(p.name for p in self.parts)}"
        )


def answer_digits(tolerance: tuple[str, float]) -> int:
    """Significant figures an answer is shown with: 3 where that rounding is well inside the
    tolerance (5% or 3%), more for a tight one, so the shown answer always grades correct."""
    kind, amount = tolerance
    if kind == "sig_figs":
        return max(3, int(amount) + 1)
    if kind == "relative" and amount > 0:
        # rounding to d figures is off by at most 5 × 10^-d relative (a leading 1): keep that
        # within a quarter of the tolerance, so 3 figures at 2%, 4 at 0.5% (2.642 GB, not 2.64241)
        return max(3, math.ceil(1 - math.log10(amount / 2) - 1e-9))
    return 6


def _rounds_within(value: float, tolerance: tuple[str, float]) -> bool:
    """True when the nearest whole number is well inside the tolerance (a fifth of it)."""
    kind, amount = tolerance
    error = abs(round(value) - value)
    return error <= (amount * abs(value) if kind == "relative" else amount) / 5 and kind != "sig_figs"


def show_number(value: float, unit: str, *, exact: bool = False, digits: int = 3) -> str:
    """An answer given in its part's unit, written with the prefix that suits it (0.0056 GB reads
    5.6 MB), to grade correct when typed back. An exact count shows every digit ("1,196,412 tokens")."""
    return format_in_unit(value, unit, digits=digits, exact=exact)


def within(value: float, target: float, tolerance: tuple[str, float]) -> bool:
    """Whether `value` grades as `target` under a part's tolerance."""
    kind, amount = tolerance
    if kind == "absolute":  # with the same floating-point slack as the others: 1.1k is 1,100
        return abs(value - target) <= amount + 1e-9 * abs(target)
    if kind == "sig_figs":
        if target == 0:
            return value == 0
        half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(target))) - int(amount) + 1)
        return abs(value - target) <= half_unit * (1 + 1e-9)
    return abs(value - target) <= amount * abs(target) * (1 + 1e-9)


def variant_seed(set_seed: int, index: int) -> int:
    """The seed of problem `index` of a set: spread out, but short enough to type back."""
    digest = hashlib.sha256(f"set#{set_seed}#{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000


def _located(template: Template, field: str, line: int | None, exc: Exception) -> TemplateError:
    message = exc.message if isinstance(exc, PerfdrillError) else describe(exc)
    return TemplateError(message, file=template.file, line=line, field=field)


def _checked(template: Template, params: dict[str, Any], specs: SpecBook) -> tuple[Variant, int | None]:
    """The variant of `params`, its shown values derived, and the first constraint it breaks."""
    scales = derived_scales(template)
    inputs = scenario_inputs(template, params, specs)
    variant = Variant(template, params, inputs)
    for derived in template.derived:
        try:
            unit = derived.unit or derived.value.unit or INPUTS.get(derived.name, ("1",))[0]  # as shown
            shown = as_shown(float(variant.evaluate(derived.value)), unit, derived.sig_figs)
            inputs[derived.name] = shown * scales.get(derived.name, 1.0)
        except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
            raise _located(template, f"derived.{derived.name}", derived.line, exc) from None
        variant = Variant(template, params, inputs)
    for index, (constraint, line) in enumerate(template.constraints):
        try:
            met = bool(variant.evaluate(constraint))
        except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
            raise _located(template, f"constraints[{index}]", line, exc) from None
        if not met:
            return variant, index
    return variant, None


def draw_variant(
    template: Template, seed: int, specs: SpecBook, follow_up: FollowUp | None = None
) -> Variant:
    """Parameters for `seed` that meet every constraint, by bounded rejection sampling; with a
    `follow_up`, that same draw after its change (FollowUpNotApplicable where the change breaks
    a constraint or changes nothing)."""
    rng = rng_for(template.id, seed)
    failures: Counter[int] = Counter()
    parameter_scales(template)  # a unit the engine cannot read fails here, at its own line
    check_input_units(template)  # a parameter in ms feeding a size fails here, at its own line
    for _ in range(MAX_DRAWS):
        params = {parameter.name: draw(parameter, rng, specs, template) for parameter in template.parameters}
        variant, failed = _checked(template, params, specs)
        if failed is None:
            return variant if follow_up is None else _followed(template, params, specs, follow_up)
        failures[failed] += 1
    index = failures.most_common(1)[0][0]
    constraint, line = template.constraints[index]
    raise TemplateError(
        f"constraint {constraint.text!r} could not be met in {MAX_DRAWS} draws",
        file=template.file,
        line=line,
        field=f"constraints[{index}]",
    )


class FollowUpNotApplicable(TemplateError):
    """This variant cannot take the follow-up: an interview asks another question instead."""


def _followed(template: Template, params: dict[str, Any], specs: SpecBook, follow_up: FollowUp) -> Variant:
    changed = follow_up.changed(params)
    if changed is None:
        raise FollowUpNotApplicable(f"{follow_up.say!r} changes nothing here", file=template.file)
    variant, failed = _checked(template, changed, specs)
    if failed is not None:
        text = template.constraints[failed][0].text
        raise FollowUpNotApplicable(f"{follow_up.say!r} breaks {text!r} here", file=template.file)
    return variant


def display_units(template: Template) -> dict[str, str]:
    """The unit each parameter and derived value is shown in, where the template gives one."""
    written = ((d.name, d.unit or d.value.unit) for d in template.derived)  # "2 ms" is in s
    units = {name: unit for name, unit in written if unit}
    return units | {p.name: p.unit for p in template.parameters if p.unit}


def generate(template: Template, seed: int, specs: SpecBook, follow_up: FollowUp | None = None) -> Problem:
    """The variant `seed` of `template`; with a `follow_up`, that variant after its change,
    asking only the parts the follow-up names."""
    variant = draw_variant(template, seed, specs, follow_up)
    text_context = context(variant, display_units(template))
    prompt = tie_units(render(template.prompt, text_context, file=template.prompt_file, field="prompt"))
    asked = template.parts
    if follow_up is not None:  # the interviewer's line first, then the scenario as it now is
        prompt = f"**{follow_up.say}**\n\n{prompt}"
        asked = tuple(part for part in template.parts if not follow_up.ask or part.name in follow_up.ask)
    parts = tuple(_part(template, part, variant, text_context) for part in asked)
    hints = tuple(
        tie_units(
            render(
                hint,
                text_context,
                file=template.file,
                field=f"hints[{i}]",
                line=template.line("hints", i),
                inline=True,
            )
        )
        for i, hint in enumerate(template.hints)
    )
    quantities = {  # the quantities parts ask in the question's own setting; a sweep varies it
        name
        for part in template.parts
        if part.answer and part.sweep is None
        for scope, name in part.answer.names
        if scope is None
    }
    sentences = insights(
        template.workload,
        variant.values(None),
        lambda name: variant.lookup(name, None),
        quantities,
        asked_units(template),
    )
    if template.insight:
        sentences.append(
            tie_units(
                render(
                    template.insight,
                    text_context,
                    file=template.file,
                    field="insight",
                    line=template.line("insight"),
                    inline=True,
                )
            )
        )
    if follow_up is not None:  # what the problem asks, and so what its explanation works out
        template = dataclasses.replace(template, parts=asked)
    return Problem(
        template=template,
        seed=seed,
        prompt=prompt,
        parts=parts,
        hints=hints,
        insights=tuple(sentences),
        chips=_drawn(variant, Chip),
        models=_drawn(variant, Model),
        variant=variant,
    )


def _drawn(variant: Variant, kind: type[Chip] | type[Model]) -> tuple[Any, ...]:
    """The chips or models among the drawn parameters, each once."""
    seen: dict[str, Any] = {}
    for value in variant.params.values():
        if isinstance(value, kind):
            seen.setdefault(value.id, value)
    return tuple(seen.values())


def _part(template: Template, part: Part, variant: Variant, text_context: Mapping[str, Any]) -> ProblemPart:
    field = f"parts.{part.name}"
    try:
        prompt = tie_units(
            render(
                part.prompt,
                text_context,
                file=template.file,
                field=f"{field}.prompt",
                line=part.prompt_line or part.line,
                inline=True,
            )
        )
        if part.kind == "numeric":
            assert part.answer is not None
            factor = answer_factor(template, part)
            value = float(variant.evaluate(part.answer)) * factor
            if not math.isfinite(value):  # never "Infinity" in a key or a JSON set
                raise TemplateError(
                    f"the answer is {value} for this draw", file=template.file, line=part.line, field=field
                )
            slipped = ((m, mistake_value(variant, part.answer, CATALOGUE[m])) for m in part.mistakes)
            exact = exact_count(template, part, variant, factor)
            tolerance = exact.tolerance(value) if exact else part.tolerance
            # A slip that lands within the tolerance of the answer cannot be told from it here.
            mistakes = tuple(
                (m, slip * factor)
                for m, slip in slipped
                if slip is not None and not within(slip * factor, value, tolerance)
            )
            unit = unit_shown(part.unit) or part.unit  # µs, never us
            whole = len(part.answer.names) == 1 and isinstance(part.answer.tree, ast.Name | ast.Attribute)
            whole = whole and factor == 1 and is_whole(template.workload, next(iter(part.answer.names))[1])
            return ProblemPart(
                part.name, part.kind, prompt, unit, (), value, (), tolerance, mistakes, exact, whole
            )
        choices, correct = _choices(template, part, variant)
        return ProblemPart(part.name, part.kind, prompt, "", choices, None, correct, part.tolerance, ())
    except TemplateError:
        raise
    except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
        raise _located(template, field, part.line, exc) from None


def _choices(template: Template, part: Part, variant: Variant) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if part.correct or (part.kind == "multi" and part.sweep is None):
        return part.choices, part.correct
    assert part.answer is not None
    if part.kind == "multi":
        assert part.sweep is not None
        choices: list[str] = []
        correct: list[str] = []
        unit = INPUTS.get(part.sweep, (part.sweep_unit,))[0]
        for value in part.sweep_values:
            label = f"{label_of(template.workload, part.sweep)} = {format_quantity(value, unit)}"
            choices.append(label)
            if Variant(template, variant.params, {**variant.inputs, part.sweep: value}).evaluate(part.answer):
                correct.append(label)
        return tuple(choices), tuple(correct)
    scope, name = next(iter(part.answer.names), (None, ""))
    labels = info(template.workload, name).labels if name in computed(template.workload) else None
    if labels is None or len(part.answer.names) != 1:
        raise TemplateError(
            f"a choice answer must name one labelled quantity, not {part.answer.text!r}",
            file=template.file, line=part.line, field=f"parts.{part.name}.answer",
        )  # fmt: skip
    label = labels[round(float(variant.lookup(name, scope)))]
    options: tuple[str, ...] = part.choices or labels
    if label not in options:
        raise TemplateError(
            f"the computed answer {label!r} is not among the choices",
            file=template.file, line=part.line, field=f"parts.{part.name}.choices",
        )  # fmt: skip
    return options, (label,)
