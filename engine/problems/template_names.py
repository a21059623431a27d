"""Every name a template's expressions read must exist, checked when the template loads.

A misspelt input key (`contxt: 5`) or quantity (`kv_bytes_per_tokn`) used to pass `check`, or to
fail much later with a message about units. Here each is one located error with the nearest names,
and a constraint must be a condition (true or false), not a number.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING

from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.measured import MEASURED_FACTS
from perfdrill.engine.model.specs import COMPUTE_DTYPES
from perfdrill.engine.problems.expressions import Expression, shorten
from perfdrill.engine.schema import Where

if TYPE_CHECKING:
    from perfdrill.engine.problems.templates import Template

# Scenario keys that swap in another chip, model or dtype, rather than replace an input.
SPEC_KEYS = ("chip", "model", "dtype", "weight_dtype", "kv_dtype")
# Values the scenario adds beside the formula inputs (scenario_inputs.chip_facts, Model.formula_inputs).
FACTS = (
    "sparse_peak_flops",
    "memory_capacity_read_as_gb",
    "link_domain",
    "network_nics",
    "attention_params_per_layer",
    "kv_elements_per_token_per_layer",
    *MEASURED_FACTS,  # published measurements for the chip, dtype and shape (engine/model/measured.py)
    *(f"{dtype}_peak_flops" for dtype in COMPUTE_DTYPES),  # the peak a lower-precision path runs at
)


def engine_names(workload: str) -> set[str]:
    """What the engine knows in `workload`: inputs, facts of chips and models, computed quantities."""
    return {*INPUTS, *FACTS, *computed(workload)}


def nearest(name: str, known: Collection[str]) -> str:
    """The known names nearest to `name` as "; did you mean a, b?", or "" when none is near."""
    near = difflib.get_close_matches(name, sorted(known), n=3)
    return f"; did you mean {', '.join(near)}?" if near else ""


def _expressions(template: Template) -> Iterator[tuple[Expression, tuple[str | int, ...], bool]]:
    """Each expression with its field path, and whether it is an `inputs` one (fewer names)."""
    for key, expression in template.inputs.items():
        yield expression, ("inputs", key), True
    for derived in template.derived:
        yield derived.value, ("derived", derived.name, "value"), False
    for name, overrides in template.scenarios.items():
        for key, expression in overrides.items():
            yield expression, ("scenarios", name, key), False
    for index, (expression, _) in enumerate(template.constraints):
        yield expression, ("constraints", index), False
    for index, part in enumerate(template.parts):
        if part.answer is not None:
            yield part.answer, ("parts", index, "answer"), False


def check_names(template: Template, where: Where) -> None:
    """Raise the first unknown name, input key or scenario name, or a constraint that is a number."""
    engine = engine_names(template.workload)
    hint = f" (`perfdrill quantities {template.workload}` lists them)"
    for key in template.inputs:
        if key not in engine:
            raise where.error(f"unknown engine input {key!r}{nearest(key, engine)}{hint}", "inputs", key)
    for name, overrides in template.scenarios.items():
        for key in overrides:
            if key not in engine:
                raise where.error(
                    f"unknown engine input {key!r}{nearest(key, engine)}{hint}", "scenarios", name, key
                )
    kinds = {p.name: p.kind for p in template.parameters}
    values = {
        *(p for p, kind in kinds.items() if kind in ("choice", "range")),
        *(d.name for d in template.derived),
    }
    for scenario in template.scenarios:
        if scenario in engine or scenario in kinds or scenario in values:
            raise where.error(
                f"{scenario!r} is already a name here; call the scenario something else",
                "scenarios",
                scenario,
            )
    for expression, path, is_input in _expressions(template):
        known = (values | set(INPUTS) | set(FACTS) | set(template.inputs)) if is_input else values | engine
        for scope, name in sorted(expression.names, key=lambda pair: (pair[0] or "", pair[1])):
            if scope is not None and scope not in template.scenarios:
                scenarios = ", ".join(template.scenarios) or "none"
                raise where.error(
                    f"unknown scenario {scope!r} in {shorten(expression.text)}; scenarios: {scenarios}", *path
                )
            if kinds.get(name) in ("chip", "model") and scope is None:
                raise where.error(
                    f"{name!r} is a {kinds[name]}, not a number: use its quantities, such as "
                    f"{'memory_bandwidth' if kinds[name] == 'chip' else 'layers'}",
                    *path,
                )  # fmt: skip
            if name not in known:
                more = (
                    "" if not is_input else " (inputs may use parameters and the chip's and model's values)"
                )
                raise where.error(f"unknown name {name!r}{nearest(name, known)}{more or hint}", *path)
    _check_derived_order(template, engine, where)
    for index, part in enumerate(template.parts):
        if part.sweep is not None and part.sweep not in engine:
            raise where.error(
                f"unknown engine input {part.sweep!r}{nearest(part.sweep, engine)}{hint}",
                "parts", index, "sweep", "input",
            )  # fmt: skip
    _check_choice_answers(template, where)
    for index, (expression, _) in enumerate(template.constraints):
        if not expression.is_condition:
            raise where.error(
                f"a constraint must be true or false, such as 'x >= 2', "
                f"but {shorten(expression.text)} is a number",
                "constraints", index,
            )  # fmt: skip


def _check_derived_order(template: Template, engine: set[str], where: Where) -> None:
    """Derived values are worked out top to bottom: one may read those above it, and only those."""
    order = {d.name: index for index, d in enumerate(template.derived)}
    for index, derived in enumerate(template.derived):
        for _, name in sorted(derived.value.names, key=lambda pair: (pair[0] or "", pair[1])):
            if name in engine or order.get(name, -1) < index:
                continue  # an engine quantity (as the engine has it), or a value worked out above
            below = template.derived[order[name]]
            if name == derived.name or (None, derived.name) in below.value.names:
                raise where.error(
                    f"{derived.name!r} and {name!r} are each worked out from the other (a cycle): "
                    "work one out from parameters or engine quantities",
                    "derived", derived.name, "value",
                )  # fmt: skip
            raise where.error(
                f"reads {name!r}, which is worked out below it: derived values are worked out top "
                f"to bottom, so move {name!r} above {derived.name!r}",
                "derived", derived.name, "value",
            )  # fmt: skip


def _check_choice_answers(template: Template, where: Where) -> None:
    """A choice part's computed answer is one labelled quantity, whose labels become the choices."""
    labelled = [q for q in computed(template.workload) if info(template.workload, q).labels is not None]
    for index, part in enumerate(template.parts):
        if part.kind != "choice" or part.answer is None:
            continue
        names = {name for _, name in part.answer.names}
        if len(part.answer.names) != 1 or not isinstance(part.answer.tree, ast.Name | ast.Attribute):
            names = set()
        if not names & set(labelled):
            raise where.error(
                f"a choice answer names one labelled quantity ({', '.join(labelled) or 'none here'}), "
                f"not {shorten(part.answer.text)}",
                "parts", index, "answer",
            )  # fmt: skip
