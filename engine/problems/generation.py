"""Turn (template, seed) into a Problem: rendered prompt, answers, mistake values, explanation."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from perfdrill.engine.errors import PerfdrillError, TemplateError, UsageError
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.explain import Step, derivation
from perfdrill.engine.model.specs import Chip, Model, SpecBook
from perfdrill.engine.model.units import format_quantity
from perfdrill.engine.problems.answer_units import answer_factor, derived_scales
from perfdrill.engine.problems.counts import EXACT, ExactCount, exact_count
from perfdrill.engine.problems.expressions import describe
from perfdrill.engine.problems.formula_steps import FORMULAS_HEADING, explained_names, formula_steps
from perfdrill.engine.problems.insight import insights
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.prompts import context, render
from perfdrill.engine.problems.roofline_view import RooflineView, roofline_view
from perfdrill.engine.problems.templates import Part, Template
from perfdrill.engine.problems.variants import (
    MAX_DRAWS,
    Variant,
    draw,
    mistake_value,
    parameter_scales,
    rng_for,
    round_sig,
    scenario_changes,
    scenario_inputs,
)


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

    @property
    def shown_answer(self) -> str:
        if self.value is not None:
            return show_number(self.value, self.unit, exact=self.exact is not None)
        return ", ".join(self.correct) if self.correct else "none of them"


@dataclass(frozen=True)
class Section:
    heading: str  # empty for the variant itself, else the scenario it works through
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Problem:
    template: Template
    seed: int
    prompt: str
    parts: tuple[ProblemPart, ...]
    hints: tuple[str, ...]
    sections: tuple[Section, ...]
    insights: tuple[str, ...]
    chips: tuple[Chip, ...]  # the specs the variant drew, for spec panels and printed tables
    models: tuple[Model, ...]
    variant: Variant = field(repr=False, compare=False)

    @cached_property
    def roofline(self) -> RooflineView | None:
        """The variant on the roofline, worked out only for screens and prints that draw it."""
        return roofline_view(self.variant)

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


_COUNT_PART_UNITS = {"params": "parameter", "parameter": "parameter", "tokens": "token", "token": "token"}


def show_number(value: float, unit: str, *, exact: bool = False) -> str:
    """An answer in its part's unit, with enough digits to grade correct when typed back.

    An exact count shows every digit ("1,196,412 tokens"), since it is graded exactly.
    """
    if exact and float(value).is_integer():
        unit_word = _COUNT_PART_UNITS.get(unit, unit)
        text = f"{value:,.0f}"
        return (
            text
            if unit_word in ("1", "")
            else f"{text} {unit_word}s"
            if unit_word in ("token", "parameter") and value != 1
            else f"{text} {unit_word}"
        )
    if unit in _COUNT_PART_UNITS:
        return format_quantity(value, _COUNT_PART_UNITS[unit], digits=4)
    text = f"{value:,.0f}" if float(value).is_integer() and abs(value) < 1e7 else f"{value:.4g}"
    return text if unit in ("1", "") else f"{text} {unit}"


def variant_seed(set_seed: int, index: int) -> int:
    """The seed of problem `index` of a set: spread out, but short enough to type back."""
    digest = hashlib.sha256(f"set#{set_seed}#{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000


def _located(template: Template, field: str, line: int | None, exc: Exception) -> TemplateError:
    message = exc.message if isinstance(exc, PerfdrillError) else describe(exc)
    return TemplateError(message, file=template.file, line=line, field=field)


def draw_variant(template: Template, seed: int, specs: SpecBook) -> Variant:
    """Parameters for `seed` that meet every constraint, by bounded rejection sampling."""
    rng = rng_for(template.id, seed)
    failures: Counter[int] = Counter()
    parameter_scales(template)  # a unit the engine cannot read fails here, at its own line
    scales = derived_scales(template)
    for _ in range(MAX_DRAWS):
        params = {parameter.name: draw(parameter, rng, specs, template) for parameter in template.parameters}
        inputs = scenario_inputs(template, params, specs)
        variant = Variant(template, params, inputs)
        for derived in template.derived:
            try:
                shown = round_sig(float(variant.evaluate(derived.value)), derived.sig_figs)
                inputs[derived.name] = shown * scales.get(derived.name, 1.0)
            except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
                raise _located(template, f"derived.{derived.name}", derived.line, exc) from None
            variant = Variant(template, params, inputs)
        failed = None
        for index, (constraint, line) in enumerate(template.constraints):
            try:
                met = bool(variant.evaluate(constraint))
            except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
                raise _located(template, f"constraints[{index}]", line, exc) from None
            if not met:
                failed = index
                break
        if failed is None:
            return variant
        failures[failed] += 1
    index = failures.most_common(1)[0][0]
    constraint, line = template.constraints[index]
    raise TemplateError(
        f"constraint {constraint.text!r} could not be met in {MAX_DRAWS} draws",
        file=template.file,
        line=line,
        field=f"constraints[{index}]",
    )


def display_units(template: Template) -> dict[str, str]:
    """The unit each parameter and derived value is shown in, where the template gives one."""
    units = {d.name: d.unit for d in template.derived if d.unit}
    return units | {p.name: p.unit for p in template.parameters if p.unit}


def generate(template: Template, seed: int, specs: SpecBook) -> Problem:
    variant = draw_variant(template, seed, specs)
    units = display_units(template)
    text_context = context(variant, units)
    prompt = render(template.prompt, text_context, file=template.prompt_file, field="prompt")
    parts = tuple(_part(template, part, variant, text_context) for part in template.parts)
    hints = tuple(
        render(
            hint,
            text_context,
            file=template.file,
            field=f"hints[{i}]",
            line=template.line("hints", i),
            inline=True,
        )
        for i, hint in enumerate(template.hints)
    )
    sentences = insights(template.workload, variant.values(None), lambda name: variant.lookup(name, None))
    if template.insight:
        sentences.append(
            render(
                template.insight, text_context, file=template.file, field="insight",
                line=template.line("insight"), inline=True,
            )
        )  # fmt: skip
    return Problem(
        template=template,
        seed=seed,
        prompt=prompt,
        parts=parts,
        hints=hints,
        sections=_sections(template, variant, parts),
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
        prompt = render(
            part.prompt, text_context, file=template.file, field=f"{field}.prompt",
            line=part.prompt_line or part.line, inline=True,
        )  # fmt: skip
        if part.kind == "numeric":
            assert part.answer is not None
            factor = answer_factor(template, part)
            value = float(variant.evaluate(part.answer)) * factor
            slipped = ((m, mistake_value(variant, part.answer, CATALOGUE[m])) for m in part.mistakes)
            mistakes = tuple((m, slip * factor) for m, slip in slipped if slip is not None)
            exact = exact_count(template, part, variant, factor)
            tolerance = EXACT if exact else part.tolerance
            return ProblemPart(
                part.name, part.kind, prompt, part.unit, (), value, (), tolerance, mistakes, exact
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
            label = f"{part.sweep} = {format_quantity(value, unit)}"
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


def _sections(template: Template, variant: Variant, parts: tuple[ProblemPart, ...]) -> tuple[Section, ...]:
    wanted: dict[str | None, list[str]] = {}
    for scope, name in explained_names(template):
        wanted.setdefault(scope, []).append(name)
    sections = []
    for scope, names in wanted.items():
        values = variant.values(scope)
        given = set(variant.inputs) if scope is None else set(variant.inputs) | set(template.scenarios[scope])
        heading = f"{scope}: {scenario_changes(variant, scope)}" if scope is not None else ""
        sections.append(Section(heading, tuple(derivation(template.workload, names, values, given))))
    answers = {part.name: part.shown_answer for part in parts if part.kind == "numeric"}
    steps = formula_steps(variant, display_units(template), answers)
    if steps:
        sections.append(Section(FORMULAS_HEADING, steps))
    return tuple(sections)
