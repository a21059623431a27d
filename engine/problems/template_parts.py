"""A template's parts, decoded from question.yaml's `parts` list: numeric, choice and multi-select.

Each kind takes its own fields (an answer, choices, a sweep); a field another kind takes, or a
missing one, is a TemplateError located at the part.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from perfdrill.engine.problems.expressions import expression_at
from perfdrill.engine.problems.question_file import PartFields
from perfdrill.engine.problems.templates import DEFAULT_TOLERANCE, Part
from perfdrill.engine.safe_text import safe_text
from perfdrill.engine.schema import Where

# The fields each part kind takes besides name, kind and prompt.
_KIND_FIELDS = {
    "numeric": ("answer", "unit", "tolerance", "mistakes", "label"),
    "choice": ("answer", "choices", "correct", "mostly_one_answer"),
    "multi": ("answer", "choices", "correct", "sweep", "mostly_one_answer"),
}


def decode_parts(entries: list[PartFields], where: Where) -> tuple[Part, ...]:
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
    answer = expression_at(where, _required(fields, "answer", where, path), *path, "answer")
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
        return Part(**common, answer=expression_at(where, fields.answer, *path, "answer"), choices=choices)
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
            answer=expression_at(where, answer, *path, "answer"),
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
