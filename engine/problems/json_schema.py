"""The JSON Schema of question.yaml, generated from the one declaration in question_file.py.

`perfdrill schema` prints it; docs/question.schema.json is the same text, for editors (a test
keeps the two identical). msgspec writes the schema; the post-processing here only inlines its
`$defs` (so the file reads top-down), keeps fixed sets in their declared order, and adds the two
rules that Declared structs state as class variables. `perfdrill check` stays the authority: it
also checks what a schema cannot, such as expressions, units and constraints.
"""

from __future__ import annotations

from typing import Any

import msgspec

from perfdrill.engine.problems.question_file import ENUM_ORDER, Declared, QuestionFile


def question_schema() -> dict[str, Any]:
    generated = msgspec.json.schema(QuestionFile)
    declared = {cls.__name__: cls for cls in _subclasses(Declared)}
    body = _inlined(generated, generated["$defs"], declared)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://perfdrill.dev/schema/question.schema.json",
        "title": "perfdrill question template (question.yaml)",
        **{key: value for key, value in body.items() if key != "title"},
    }


def _subclasses(cls: type[Declared]) -> list[type[Declared]]:
    return [sub for direct in cls.__subclasses__() for sub in (direct, *_subclasses(direct))]


def _inlined(node: Any, defs: dict[str, Any], declared: dict[str, type[Declared]]) -> Any:
    """`node` with every `$ref` replaced by its definition (the schema has no cycles)."""
    if isinstance(node, list):
        return [_inlined(item, defs, declared) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        definition = {key: value for key, value in defs[name].items() if key != "title"}  # a class name
        return _with_rules(_inlined(definition, defs, declared), declared[name])
    if ENUM_ORDER in node:  # the fixed sets in their declared order, not msgspec's sorted one
        node = {**node, "enum": node[ENUM_ORDER]}
    return {
        key: _inlined(value, defs, declared)
        for key, value in node.items()
        if key not in ("$defs", ENUM_ORDER)
    }


def _with_rules(schema: dict[str, Any], cls: type[Declared]) -> dict[str, Any]:
    if cls.EXACTLY_ONE:
        schema["oneOf"] = [{"required": [name]} for name in cls.EXACTLY_ONE]
    if cls.ONLY_WITH:
        schema["dependentRequired"] = {name: [partner] for name, partner in cls.ONLY_WITH.items()}
    return schema
