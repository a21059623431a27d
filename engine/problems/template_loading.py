"""Loading one template folder: question.yaml and prompt.md.j2 validated into a Template.

question_file.py declares what question.yaml may hold; this module decodes it with that
declaration, checks what a declaration cannot (expressions and the names they read, cross-field
rules), and builds the objects of templates.py (template_parts.py builds the parts). Every problem
is a TemplateError naming the file, the field path, the line and, for a fixed set, the allowed
values. Both files must lie inside the folder: a link out of it is refused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from msgspec import UNSET

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.problems.expressions import Expression, expression_at
from perfdrill.engine.problems.families import Family, families_for, shown_path
from perfdrill.engine.problems.follow_ups import follow_ups
from perfdrill.engine.problems.quantities import value_at
from perfdrill.engine.problems.question_file import (
    FAMILIES,
    ID_RULE,
    ParameterFields,
    QuestionFile,
    is_question_id,
)
from perfdrill.engine.problems.template_names import SPEC_KEYS, check_names
from perfdrill.engine.problems.template_parts import decode_parts
from perfdrill.engine.problems.templates import PROMPT_FILE, QUESTION_FILE, Derived, Parameter, Template
from perfdrill.engine.safe_text import safe_text
from perfdrill.engine.schema import Where, decode
from perfdrill.engine.yamlio import LineMap, check_inside, load_yaml, read_text


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
        inputs={key: value_at(where, text, "inputs", key) for key, text in question.inputs.items()},
        derived=tuple(
            Derived(
                name,
                value_at(where, fields.value, "derived", name, "value"),
                fields.sig_figs,
                where.line("derived", name) or 0,
                fields.unit,
            )
            for name, fields in question.derived.items()
        ),
        scenarios=scenarios,
        constraints=tuple(
            (expression_at(where, text, "constraints", index), where.line("constraints", index) or 0)
            for index, text in enumerate(question.constraints)
        ),
        parts=decode_parts(question.parts, where),
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
                inputs[name][key] = value_at(where, value, "scenarios", name, key)
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
