"""A JSON Schema for question.yaml, built from the engine's own lists so it cannot drift from them.

`perfdrill schema` prints it; docs/question.schema.json is the same text, for editors
(a test keeps the two identical). `perfdrill check` stays the authority: it also checks what a
schema cannot, such as expressions, units and constraints.
"""

from __future__ import annotations

from typing import Any

from perfdrill.engine.model.evaluation import workload_names
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.templates import (
    DIFFICULTIES,
    FAMILIES,
    PART_KINDS,
    SCENARIO_KEYS,
    TOLERANCE_KINDS,
)
from perfdrill.engine.problems.variants import CHIP_FILTERS, MODEL_FILTERS

_EXPRESSION = {
    "type": ["string", "number"],
    "description": "an expression over engine quantities and parameters",
}
_IDENTIFIER = "^[a-z][a-z0-9_]*$"


def _filters(names: tuple[str, ...]) -> dict[str, Any]:
    return {"type": ["object", "null"], "propertyNames": {"enum": list(names)}}


def question_schema() -> dict[str, Any]:
    parameter = {
        "type": "object",
        "minProperties": 1,
        "oneOf": [
            {
                "required": ["chip"],
                "properties": {"chip": _filters(CHIP_FILTERS)},
                "additionalProperties": False,
            },
            {
                "required": ["model"],
                "properties": {"model": _filters(MODEL_FILTERS)},
                "additionalProperties": False,
            },
            {
                "required": ["choice"],
                "properties": {"choice": {"type": "array", "minItems": 1}},
                "additionalProperties": False,
            },
            {
                "required": ["range"],
                "properties": {
                    "range": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                    "log": {"type": "boolean"},
                    "step": {"type": "number", "exclusiveMinimum": 0},
                    "sig_figs": {"type": "integer", "minimum": 1},
                },
                "additionalProperties": False,
            },
        ],
    }
    tolerance = {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "properties": {kind: {"type": "number", "exclusiveMinimum": 0} for kind in TOLERANCE_KINDS},
        "additionalProperties": False,
    }
    part = {
        "type": "object",
        "required": ["name", "kind", "prompt"],
        "properties": {
            "name": {"type": "string", "pattern": _IDENTIFIER},
            "kind": {"enum": list(PART_KINDS)},
            "prompt": {"type": "string", "description": "Jinja2 text, rendered in the sandbox"},
            "answer": _EXPRESSION,
            "unit": {"type": "string", "description": "the unit answers are read in, e.g. ms, GB, TFLOP/s"},
            "tolerance": tolerance,
            "mistakes": {"type": "array", "items": {"enum": list(CATALOGUE)}},
            "choices": {"type": "array", "items": {"type": "string"}},
            "correct": {"type": ["string", "array"]},
            "mostly_one_answer": {
                "type": "string",
                "description": "why this choice part may give one answer in over 90% of variants",
            },
            "sweep": {
                "type": "object",
                "required": ["input", "values"],
                "properties": {
                    "input": {"type": "string"},
                    "values": {"type": "array"},
                    "unit": {"type": "string"},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://perfdrill.dev/schema/question.schema.json",
        "title": "perfdrill question template (question.yaml)",
        "type": "object",
        "required": ["id", "title", "family", "difficulty", "workload", "parts"],
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z0-9_]+/[a-z0-9_-]+$", "description": "family/slug"},
            "title": {"type": "string"},
            "family": {"enum": list(FAMILIES)},
            "difficulty": {"enum": list(DIFFICULTIES)},
            "tags": {"type": "array", "items": {"type": "string"}},
            "workload": {"enum": workload_names()},
            "override": {"type": "boolean", "description": "replace the built-in template with this id"},
            "parameters": {
                "type": "object",
                "propertyNames": {"pattern": _IDENTIFIER},
                "additionalProperties": parameter,
            },
            "scenario": {"type": "object", "propertyNames": {"enum": list(SCENARIO_KEYS)}},
            "inputs": {"type": "object", "additionalProperties": _EXPRESSION},
            "derived": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": ["value"],
                    "properties": {
                        "value": _EXPRESSION,
                        "sig_figs": {"type": "integer"},
                        "unit": {"type": "string"},
                    },
                    "additionalProperties": False,
                },
            },
            "scenarios": {
                "type": "object",
                "additionalProperties": {"type": "object", "additionalProperties": _EXPRESSION},
            },
            "constraints": {"type": "array", "items": {"type": "string"}},
            "parts": {"type": "array", "minItems": 1, "items": part},
            "hints": {"type": "array", "items": {"type": "string"}},
            "insight": {"type": "string"},
        },
        "additionalProperties": False,
    }
