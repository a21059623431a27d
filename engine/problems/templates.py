"""Question templates: one folder of data per question, validated into typed objects on load.

A folder holds `question.yaml` (parameters, constraints, parts, hints) and `prompt.md.j2` (the
prompt, rendered later in Jinja2's sandbox). question_file.py declares what question.yaml may
hold; this module decodes it with that declaration, checks what a declaration cannot (expressions
and the names they read, cross-field rules), and builds the objects the rest of the engine uses.
Every problem is a TemplateError naming the file, the field path, the line and, for a fixed set,
the allowed values. Both files must lie inside the folder: a link out of it is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from msgspec import UNSET

from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.problems.expressions import Expression, parse_expression
from perfdrill.engine.problems.families import Family, families_for, shown_path
from perfdrill.engine.problems.follow_ups import FollowUp, follow_ups
from perfdrill.engine.problems.quantities import quantity_literal
from perfdrill.engine.problems.question_file import DIFFICULTIES as DIFFICULTIES  # re-exported
from perfdrill.engine.problems.question_file import FAMILIES as FAMILIES  # re-exported
from perfdrill.engine.problems.question_file import (
    ID_RULE,
    ParameterFields,
    PartFields,
    QuestionFile,
    is_question_id,
)
from perfdrill.engine.problems.template_names import SPEC_KEYS, check_names
from perfdrill.engine.safe_text import safe_text
from perfdrill.engine.schema import Where, decode
from perfdrill.engine.yamlio import LineMap, check_inside, load_yaml, read_text

# The project-wide napkin-math tolerance: loose enough for specs rounded to 2-3 significant
# figures along the way, tight enough to tell GB from GiB (7%) apart from the right answer.
DEFAULT_TOLERANCE = ("relative", 0.05)
QUESTION_FILE = "question.yaml"
PROMPT_FILE = "prompt.md.j2"
# The fields each part kind takes besides name, kind and prompt.
_KIND_FIELDS = {
    "numeric": ("answer", "unit", "tolerance", "mistakes", "label"),
    "choice": ("answer", "choices", "correct", "mostly_one_answer"),
    "multi": ("answer", "choices", "correct", "sweep", "mostly_one_answer"),
}


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # chip | model | choice | range
    line: int
    choices: tuple[Any, ...] = ()
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    step: float | None = None
    sig_figs: int | None = None
    where: dict[str, Any] = field(default_factory=dict)
    unit: str | None = None  # the unit a drawn number is written in; expressions see a quantity


@dataclass(frozen=True)
class Derived:
    name: str
    value: Expression
    sig_figs: int
    line: int
    unit: str | None = None  # how prompts show it, when it is not an engine input


@dataclass(frozen=True, eq=False)  # identity hashing: parts and templates key caches
class Part:
    name: str
    kind: str
    prompt: str
    line: int
    answer: Expression | None = None  # numeric value, or a labelled quantity for a choice
    unit: str = "1"
    tolerance: tuple[str, float] = DEFAULT_TOLERANCE
    mistakes: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    correct: tuple[str, ...] = ()  # fixed answer label(s), when not computed
    sweep: str | None = None  # multi-select over values of one input
    sweep_values: tuple[float, ...] = ()
    sweep_unit: str = "1"
    mostly_one_answer: str = ""  # why a choice part may give one answer in over 90% of variants
    label: str = ""  # what the working calls an arithmetic answer ("MAMF step time")
    answer_line: int = 0
    prompt_line: int = 0


@dataclass(frozen=True, eq=False)
class Template:
    id: str
    title: str
    family: str
    difficulty: str
    tags: tuple[str, ...]
    workload: str
    parameters: tuple[Parameter, ...]
    scenario: dict[str, Any]
    inputs: dict[str, Expression]
    derived: tuple[Derived, ...]
    scenarios: dict[str, dict[str, Expression]]  # name -> inputs it replaces
    constraints: tuple[tuple[Expression, int], ...]
    parts: tuple[Part, ...]
    hints: tuple[str, ...]
    insight: str
    prompt: str
    folder: Path
    file: str
    override: bool = False
    lines: dict[str, int] = field(default_factory=dict)
    family_info: Family | None = None  # its title and description
    # name -> the chip, model or dtypes a scenario runs with instead ({"model": "draft"})
    scenario_specs: dict[str, dict[str, str]] = field(default_factory=dict)
    where: Where | None = None
    follow_ups: tuple[FollowUp, ...] = ()  # interview follow-ups (follow_ups.py)

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)

    def line(self, *path: str | int) -> int | None:
        """The line of the value at `path` in question.yaml (`"hints", 2`), as far as it exists."""
        return self.where.line(*path) if self.where else self.lines.get(str(path[0]))

    @property
    def family_title(self) -> str:
        return self.family_info.title if self.family_info else self.family

    @property
    def parameters_by_name(self) -> dict[str, Parameter]:
        return {parameter.name: parameter for parameter in self.parameters}

    @property
    def prompt_file(self) -> str:
        return str(Path(self.file).parent / PROMPT_FILE)


def load_template(
    folder: Path, *, display_root: Path | None = None, families: dict[str, Family] | None = None
) -> Template:
    """Read and validate one template folder; `families` are those it may use (by default the
    built-in ones and any its parent folder declares)."""
    path = folder / QUESTION_FILE
    file = shown_path(path, display_root)
    families = families_for(folder, display_root) if families is None else families
    check_inside(path, folder, TemplateError, display=file)
    data = load_yaml(path, TemplateError, display=file)
    where = Where(file, data, TemplateError)
    question = decode(data, QuestionFile, where)
    if not is_question_id(question.id):
        raise where.error(f"{question.id!r} must be {ID_RULE}", "id")
    if question.family not in families:
        raise where.error(_unknown_family(question.family, families), "family")
    if question.id.split("/")[0] != question.family:
        raise where.error(f"{question.id!r} must start with its family {question.family!r}", "id")
    prompt_path = folder / PROMPT_FILE
    prompt_file = str(Path(file).parent / PROMPT_FILE)
    if not os.path.lexists(prompt_path):
        raise TemplateError(f"missing {PROMPT_FILE} beside {QUESTION_FILE}", file=file)
    check_inside(prompt_path, folder, TemplateError, display=prompt_file)
    parameters = tuple(_parameter(name, fields, where) for name, fields in question.parameters.items())
    scenarios, specs = _scenarios(question, {p.name: p.kind for p in parameters}, where)
    template = Template(
        id=question.id,
        title=safe_text(question.title),
        family=question.family,
        difficulty=question.difficulty,
        tags=tuple(safe_text(tag) for tag in question.tags),
        workload=question.workload,
        parameters=parameters,
        scenario=_scenario(question, {p.name: p.kind for p in parameters}, where),
        inputs={key: _value(where, text, "inputs", key) for key, text in question.inputs.items()},
        derived=tuple(
            Derived(
                name,
                _value(where, fields.value, "derived", name, "value"),
                fields.sig_figs,
                where.line("derived", name) or 0,
                fields.unit,
            )
            for name, fields in question.derived.items()
        ),
        scenarios=scenarios,
        constraints=tuple(
            (_expression(where, text, "constraints", index), where.line("constraints", index) or 0)
            for index, text in enumerate(question.constraints)
        ),
        parts=_parts(question.parts, where),
        hints=tuple(question.hints),
        insight=question.insight,
        prompt=read_text(prompt_path, TemplateError, display=prompt_file),
        folder=folder,
        file=file,
        override=question.override,
        lines=dict(data.key_lines) if isinstance(data, LineMap) else {},
        family_info=families[question.family],
        scenario_specs=specs,
        where=where,
        follow_ups=follow_ups(
            question.follow_ups, {p.name: p.kind for p in parameters}, [p.name for p in question.parts], where
        ),
    )
    check_names(template, where)
    return template


def _unknown_family(family: str, families: dict[str, Family]) -> str:
    declared = [f.id for f in families.values() if not f.builtin]
    return (
        f"unknown family {family!r}: declare it in {family}/family.yaml (title, description) in the "
        f"folder that holds this template's folder, or use one of: {', '.join([*declared, *FAMILIES])}"
    )


def _expression(where: Where, text: object, *path: str | int) -> Expression:
    try:
        return parse_expression(text, field="")
    except TemplateError as exc:  # located only when it fails: most expressions are fine
        raise where.error(exc.message, *path) from None


def _value(where: Where, text: object, *path: str | int) -> Expression:
    """A value an input takes: an expression, or a quantity with its unit ("10 us")."""
    try:
        literal = quantity_literal(text)
    except PerfdrillError as exc:
        raise where.error(exc.message, *path) from None
    return literal if literal is not None else _expression(where, text, *path)


def _parameter(name: str, fields: ParameterFields, where: Where) -> Parameter:
    path = ("parameters", name)
    fields.check(where, *path)
    line = where.line(*path) or 0
    unit = None if fields.unit is UNSET else fields.unit
    if fields.chip is not UNSET or fields.model is not UNSET:
        kind = "chip" if fields.chip is not UNSET else "model"
        if unit is not None:
            raise where.error(f"a {kind} parameter takes no unit", *path, "unit")
        filters = fields.chip if kind == "chip" else fields.model
        return Parameter(name, kind, line, where=filters.given() if filters else {})
    if fields.choice is not UNSET:
        if unit is not None and any(isinstance(c, str) for c in fields.choice):
            raise where.error("a unit goes only with numbers, and these choices hold text", *path, "unit")
        return Parameter(name, "choice", line, choices=tuple(fields.choice), unit=unit)
    assert fields.range is not UNSET  # check() saw exactly one kind
    low, high = fields.range
    if low >= high:
        raise where.error("must be [low, high] with low < high", *path, "range")
    log = fields.log is True
    if log and low <= 0:
        raise where.error("a log range needs a positive low end", *path, "range")
    if (fields.step is UNSET) == (fields.sig_figs is UNSET):
        raise where.error("give exactly one of step or sig_figs, so shown values are rounded", *path)
    return Parameter(
        name,
        "range",
        line,
        low=float(low),
        high=float(high),
        log=log,
        step=None if fields.step is UNSET else fields.step,
        sig_figs=None if fields.sig_figs is UNSET else fields.sig_figs,
        unit=unit,
    )


def _scenario(question: QuestionFile, kinds: dict[str, str], where: Where) -> dict[str, Any]:
    if question.scenario is UNSET:
        return {}
    scenario = question.scenario.given()
    for key in ("chip", "model"):
        if key in scenario and kinds.get(scenario[key]) != key:
            named = ", ".join(name for name, kind in kinds.items() if kind == key) or "none"
            raise where.error(f"must name a {key} parameter; {key} parameters: {named}", "scenario", key)
    return scenario


def _scenarios(
    question: QuestionFile, kinds: dict[str, str], where: Where
) -> tuple[dict[str, dict[str, Expression]], dict[str, dict[str, str]]]:
    """Each scenario's replaced inputs (expressions), and the chip, model or dtypes it swaps in."""
    inputs: dict[str, dict[str, Expression]] = {}
    specs: dict[str, dict[str, str]] = {}
    for name, overrides in question.scenarios.items():
        inputs[name], specs[name] = {}, {}
        for key, value in overrides.items():
            if key not in SPEC_KEYS:
                inputs[name][key] = _value(where, value, "scenarios", name, key)
                continue
            if not isinstance(value, str):
                raise where.error(f"must name a parameter or a dtype, not {value!r}", "scenarios", name, key)
            if key in ("chip", "model") and kinds.get(value) != key:
                named = ", ".join(n for n, kind in kinds.items() if kind == key) or "none"
                raise where.error(
                    f"must name a {key} parameter; {key} parameters: {named}", "scenarios", name, key
                )
            specs[name][key] = value
    return inputs, {name: given for name, given in specs.items() if given}


def _parts(entries: list[PartFields], where: Where) -> tuple[Part, ...]:
    parts: list[Part] = []
    for index, fields in enumerate(entries):
        path = ("parts", index)
        if fields.name in {p.name for p in parts}:
            raise where.error(f"{fields.name!r} is already the name of another part", *path, "name")
        for other in (
            "answer",
            "unit",
            "tolerance",
            "choices",
            "correct",
            "sweep",
            "mostly_one_answer",
            "label",
        ):
            if getattr(fields, other) is not UNSET and other not in _KIND_FIELDS[fields.kind]:
                raise where.error(f"a {fields.kind} part takes no {other}", *path, other)
        if fields.mistakes and "mistakes" not in _KIND_FIELDS[fields.kind]:
            raise where.error(f"a {fields.kind} part takes no mistakes", *path, "mistakes")
        common: dict[str, Any] = {
            "name": fields.name,
            "kind": fields.kind,
            "prompt": fields.prompt,
            "line": where.line(*path) or 0,
            "answer_line": where.line(*path, "answer") or 0,
            "prompt_line": where.line(*path, "prompt") or 0,
        }
        if fields.mostly_one_answer is not UNSET:
            common["mostly_one_answer"] = fields.mostly_one_answer
        if fields.label is not UNSET:
            common["label"] = fields.label
        if fields.kind == "numeric":
            parts.append(_numeric_part(fields, common, where, path))
        elif fields.kind == "choice":
            parts.append(_choice_part(fields, common, where, path))
        else:
            parts.append(_multi_part(fields, common, where, path))
    return tuple(parts)


def _required(fields: PartFields, name: str, where: Where, path: tuple[str | int, ...]) -> Any:
    value = getattr(fields, name)
    if value is UNSET:
        raise where.absent(f"a {fields.kind} part needs {name}", name, *path)
    return value


def _numeric_part(
    fields: PartFields, common: dict[str, Any], where: Where, path: tuple[str | int, ...]
) -> Part:
    answer = _expression(where, _required(fields, "answer", where, path), *path, "answer")
    unit = _required(fields, "unit", where, path)
    tolerance = DEFAULT_TOLERANCE
    if fields.tolerance is not UNSET:
        fields.tolerance.check(where, *path, "tolerance")
        ((kind, value),) = fields.tolerance.given().items()
        tolerance = (kind, float(value))
    return Part(**common, answer=answer, unit=unit, tolerance=tolerance, mistakes=tuple(fields.mistakes))


def _choice_part(
    fields: PartFields, common: dict[str, Any], where: Where, path: tuple[str | int, ...]
) -> Part:
    choices = tuple(safe_text(c) for c in fields.choices or ())
    if (fields.answer is UNSET) == (fields.correct is UNSET):
        raise where.error(
            "a choice part needs exactly one of answer (a labelled quantity) or correct (a choice)", *path
        )
    if fields.correct is UNSET:
        return Part(**common, answer=_expression(where, fields.answer, *path, "answer"), choices=choices)
    if not isinstance(fields.correct, str):
        raise where.error("a choice part has one correct choice, not a list", *path, "correct")
    if safe_text(fields.correct) not in choices:
        raise where.error(
            f"{fields.correct!r} is not one of the choices: {', '.join(choices)}", *path, "correct"
        )
    return Part(**common, choices=choices, correct=(safe_text(fields.correct),))


def _multi_part(
    fields: PartFields, common: dict[str, Any], where: Where, path: tuple[str | int, ...]
) -> Part:
    if fields.sweep is not UNSET:
        answer = _required(fields, "answer", where, path)
        return Part(
            **common,
            answer=_expression(where, answer, *path, "answer"),
            sweep=fields.sweep.input,
            sweep_values=tuple(float(v) for v in fields.sweep.values),
            sweep_unit=fields.sweep.unit,
        )
    choices = tuple(safe_text(c) for c in _required(fields, "choices", where, path))
    correct = _required(fields, "correct", where, path)
    if isinstance(correct, str):
        raise where.error("a multi part's correct is a list of choices", *path, "correct")
    correct = [safe_text(label) for label in correct]
    for label in correct:
        if label not in choices:
            raise where.error(f"{label!r} is not one of the choices", *path, "correct")
    return Part(**common, choices=choices, correct=tuple(correct))
