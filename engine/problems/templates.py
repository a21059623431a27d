"""Question templates: one folder of data per question, validated into typed objects on load.

A folder holds `question.yaml` (parameters, constraints, parts, hints) and `prompt.md.j2` (the
prompt, rendered later in Jinja2's sandbox). Every schema problem is a TemplateError naming the
file, the field path, the line and, where there is a fixed set, the allowed values.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.model.evaluation import workload_names
from perfdrill.engine.problems.expressions import Expression
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.schema_fields import Fields
from perfdrill.engine.yamlio import LineMap, load_yaml, read_text

FAMILIES: dict[str, str] = {
    "runtime_check": "Does my runtime make sense?",
    "performance_model": "Performance modelling",
    "roofline": "Roofline reading",
    "matmul": "Matmul",
    "elementwise": "Elementwise and fusion",
    "kv_cache": "KV cache",
    "prefill_decode": "Prefill vs decode",
    "quantization": "Quantization",
    "training": "Training",
    "parallelism": "Parallelism and communication",
    "overhead": "Overhead-bound",
    "attention_memory": "FlashAttention and attention memory",
    "moe": "Mixture of experts",
}
DIFFICULTIES = ("easy", "medium", "hard")
PART_KINDS = ("numeric", "choice", "multi")
SCENARIO_KEYS = ("chip", "dtype", "model", "weight_dtype", "kv_dtype", "chips", "mfu")
# The project-wide napkin-math tolerance: loose enough for specs rounded to 2-3 significant
# figures along the way, tight enough to tell GB from GiB (7%) apart from the right answer.
DEFAULT_TOLERANCE = ("relative", 0.05)
TOLERANCE_KINDS = ("relative", "absolute", "sig_figs")
QUESTION_FILE = "question.yaml"
PROMPT_FILE = "prompt.md.j2"
_ID = re.compile(r"^[a-z0-9_]+/[a-z0-9][a-z0-9-]*$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


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
    scenarios: dict[str, dict[str, Expression]]
    constraints: tuple[tuple[Expression, int], ...]
    parts: tuple[Part, ...]
    hints: tuple[str, ...]
    insight: str
    prompt: str
    folder: Path
    file: str
    override: bool = False
    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)


def load_template(folder: Path, *, display_root: Path | None = None) -> Template:
    """Read and validate one template folder."""
    path = folder / QUESTION_FILE
    file = str(path.relative_to(display_root)) if display_root else str(path)
    top = Fields(load_yaml(path, TemplateError, display=file), file, "")
    top.only(
        (
            "id",
            "title",
            "family",
            "difficulty",
            "tags",
            "workload",
            "override",
            "parameters",
            "scenario",
            "inputs",
            "derived",
            "scenarios",
            "constraints",
            "parts",
            "hints",
            "insight",
        )
    )
    template_id = top.get("id", str)
    if not _ID.match(template_id):
        raise top.error("id", f"{template_id!r} must look like family/slug (lowercase, digits, - and _)")
    family = top.one_of("family", list(FAMILIES))
    if template_id.split("/")[0] != family:
        raise top.error("id", f"id {template_id!r} must start with its family {family!r}")
    prompt_path = folder / PROMPT_FILE
    if not os.path.lexists(prompt_path):
        raise TemplateError(f"missing {PROMPT_FILE} beside {QUESTION_FILE}", file=file)
    parameters = _parameters(top)
    names = {p.name for p in parameters}
    return Template(
        id=template_id,
        title=top.get("title", str),
        family=family,
        difficulty=top.one_of("difficulty", DIFFICULTIES),
        tags=tuple(str(tag) for tag in top.get("tags", list, [])),
        workload=top.one_of("workload", workload_names()),
        parameters=parameters,
        scenario=_scenario(top, names),
        inputs={key: top.child("inputs").expression(key) for key in top.get("inputs", dict, {})},
        derived=_derived(top),
        scenarios={
            name: {key: top.child("scenarios").child(name).expression(key) for key in overrides}
            for name, overrides in top.get("scenarios", dict, {}).items()
        },
        constraints=tuple(
            (top.expression("constraints", text), top.line_of("constraints") + index + 1)
            for index, text in enumerate(top.get("constraints", list, []))
        ),
        parts=_parts(top),
        hints=tuple(str(hint) for hint in top.get("hints", list, [])),
        insight=top.get("insight", str, ""),
        prompt=read_text(prompt_path, TemplateError, display=str(Path(file).parent / PROMPT_FILE)),
        folder=folder,
        file=file,
        override=top.get("override", bool, False),
        lines=dict(top.data.key_lines) if isinstance(top.data, LineMap) else {},
    )


def _parameters(top: Fields) -> tuple[Parameter, ...]:
    parameters = []
    block = top.child("parameters") if "parameters" in top.data else None
    for name in block.data if block else ():
        assert block is not None
        if not _NAME.match(name):
            raise block.error(name, "parameter names are lowercase identifiers")
        spec = block.child(name)
        kinds = [kind for kind in ("chip", "model", "choice", "range") if kind in spec.data]
        if len(kinds) != 1:
            raise spec.error(None, "give exactly one of: chip, model, choice, range")
        kind = kinds[0]
        line = block.line_of(name)
        if kind in ("chip", "model"):
            spec.only((kind,))
            where = spec.get(kind, dict) if spec.data[kind] is not None else {}
            parameters.append(Parameter(name, kind, line, where=dict(where)))
        elif kind == "choice":
            spec.only(("choice",))
            choices = spec.get("choice", list)
            if not choices:
                raise spec.error("choice", "needs at least one value")
            parameters.append(Parameter(name, kind, line, choices=tuple(choices)))
        else:
            spec.only(("range", "log", "step", "sig_figs"))
            bounds = spec.get("range", list)
            if (
                len(bounds) != 2
                or not all(isinstance(b, int | float) for b in bounds)
                or bounds[0] >= bounds[1]
            ):
                raise spec.error("range", "must be [low, high] with low < high")
            if spec.get("log", bool, False) and bounds[0] <= 0:
                raise spec.error("range", "a log range needs a positive low end")
            step = spec.get("step", (int, float), None)
            sig_figs = spec.get("sig_figs", int, None)
            if (step is None) == (sig_figs is None):
                raise spec.error(None, "give exactly one of step or sig_figs, so shown values are rounded")
            parameters.append(
                Parameter(
                    name,
                    kind,
                    line,
                    low=float(bounds[0]),
                    high=float(bounds[1]),
                    log=spec.get("log", bool, False),
                    step=step,
                    sig_figs=sig_figs,
                )
            )
    return tuple(parameters)


def _scenario(top: Fields, names: set[str]) -> dict[str, Any]:
    if "scenario" not in top.data:
        return {}
    block = top.child("scenario")
    block.only(SCENARIO_KEYS)
    for key in ("chip", "model"):
        if key in block.data and block.data[key] not in names:
            raise block.error(
                key, f"must name a {key} parameter; parameters: {', '.join(sorted(names)) or 'none'}"
            )
    return dict(block.data)


def _derived(top: Fields) -> tuple[Derived, ...]:
    if "derived" not in top.data:
        return ()
    block = top.child("derived")
    derived = []
    for name in block.data:
        spec = block.child(name)
        spec.only(("value", "sig_figs", "unit"))
        value = spec.expression("value")
        unit = spec.get("unit", str, None)
        derived.append(Derived(name, value, spec.get("sig_figs", int, 3), block.line_of(name), unit))
    return tuple(derived)


def _parts(top: Fields) -> tuple[Part, ...]:
    entries = top.get("parts", list)
    if not entries:
        raise top.error("parts", "a question needs at least one part")
    parts: list[Part] = []
    for index, entry in enumerate(entries):
        spec = Fields(entry, top.file, f"parts[{index}]", top.line_of("parts"))
        spec.only(
            (
                "name",
                "kind",
                "prompt",
                "answer",
                "unit",
                "tolerance",
                "mistakes",
                "choices",
                "correct",
                "sweep",
            )
        )
        name = spec.get("name", str)
        if not _NAME.match(name) or name in {p.name for p in parts}:
            raise spec.error("name", f"{name!r} must be a unique lowercase identifier")
        kind = spec.one_of("kind", PART_KINDS)
        common = {"name": name, "kind": kind, "prompt": spec.get("prompt", str), "line": spec.line or 0}
        if kind == "numeric":
            if "answer" not in spec.data:
                raise spec.error(None, f"missing required field {spec.dotted('answer')!r}")
            answer = spec.expression("answer")
            unit = spec.get("unit", str)
            parts.append(
                Part(**common, answer=answer, unit=unit, tolerance=_tolerance(spec), mistakes=_mistakes(spec))
            )
        elif kind == "choice":
            parts.append(_choice_part(spec, common))
        else:
            parts.append(_multi_part(spec, common))
    return tuple(parts)


def _tolerance(spec: Fields) -> tuple[str, float]:
    if "tolerance" not in spec.data:
        return DEFAULT_TOLERANCE
    block = spec.child("tolerance")
    block.only(TOLERANCE_KINDS)
    if len(block.data) != 1:
        raise block.error(None, f"give exactly one of: {', '.join(TOLERANCE_KINDS)}")
    kind = next(iter(block.data))
    value = block.get(kind, (int, float))
    if value <= 0 or (kind == "relative" and value >= 1) or (kind == "sig_figs" and value != int(value)):
        raise block.error(kind, "must be positive (relative below 1, sig_figs a whole number)")
    return kind, float(value)


def _mistakes(spec: Fields) -> tuple[str, ...]:
    ids = tuple(str(m) for m in spec.get("mistakes", list, []))
    for mistake_id in ids:
        if mistake_id not in CATALOGUE:
            raise spec.error("mistakes", f"unknown mistake {mistake_id!r}; known: {', '.join(CATALOGUE)}")
    return ids


def _choice_part(spec: Fields, common: dict[str, Any]) -> Part:
    choices = tuple(str(c) for c in spec.get("choices", list, []))
    if ("answer" in spec.data) == ("correct" in spec.data):
        raise spec.error(
            None, "a choice part needs exactly one of answer (a labelled quantity) or correct (a choice)"
        )
    if "correct" in spec.data:
        correct = spec.get("correct", str)
        if correct not in choices:
            raise spec.error("correct", f"{correct!r} is not one of the choices: {', '.join(choices)}")
        return Part(**common, choices=choices, correct=(correct,))
    return Part(**common, answer=spec.expression("answer"), choices=choices)


def _multi_part(spec: Fields, common: dict[str, Any]) -> Part:
    if "sweep" in spec.data:
        sweep = spec.child("sweep")
        sweep.only(("input", "values", "unit"))
        values = sweep.get("values", list)
        if not values or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            raise sweep.error("values", "must be a non-empty list of numbers")
        if "answer" not in spec.data:
            raise spec.error(None, "a sweep needs answer: a yes/no quantity that marks the right options")
        return Part(
            **common,
            answer=spec.expression("answer"),
            sweep=sweep.get("input", str),
            sweep_values=tuple(float(v) for v in values),
            sweep_unit=sweep.get("unit", str, "1"),
        )
    choices = tuple(str(c) for c in spec.get("choices", list))
    correct = tuple(str(c) for c in spec.get("correct", list))
    for label in correct:
        if label not in choices:
            raise spec.error("correct", f"{label!r} is not one of the choices")
    return Part(**common, choices=choices, correct=correct)
