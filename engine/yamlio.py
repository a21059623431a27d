"""Safe YAML loading that remembers where each key was written and refuses duplicate keys.

PyYAML silently keeps the last of two equal keys; for data people edit by hand that hides
mistakes, so duplicates are an error here, reported with file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from perfdrill.engine.errors import PerfdrillError


class LineMap(dict[str, Any]):
    """A mapping that also knows the line (1-based) of each key and of itself."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


# libyaml's C parser is ~10x faster; same safe constructors, same marks.
_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_SafeBase):  # type: ignore[valid-type,misc]
    error_class: type[PerfdrillError] = PerfdrillError
    file_name: str = "<yaml>"


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineMap:
    mapping = LineMap()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str | int | float | bool):
            raise loader.error_class(
                "mapping keys must be plain text", file=loader.file_name, line=key_node.start_mark.line + 1
            )
        key = str(key)
        if key in mapping:
            raise loader.error_class(
                f"duplicate key {key!r} (first on line {mapping.key_lines[key]})",
                file=loader.file_name,
                line=key_node.start_mark.line + 1,
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines[key] = key_node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: Path, error_class: type[PerfdrillError], *, display: str | None = None) -> Any:
    """Parse one YAML file safely; syntax errors become `error_class` with file:line:column."""
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error_class(f"cannot read file ({exc.strerror})", file=name) from exc
    return load_yaml_text(text, error_class, name)


def load_yaml_text(text: str, error_class: type[PerfdrillError], name: str) -> Any:
    loader_class = type("Loader", (_LineLoader,), {"error_class": error_class, "file_name": name})
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"column {mark.column + 1}: " if mark else ""
        raise error_class(
            f"{where}YAML syntax error: {exc.problem}", file=name, line=mark.line + 1 if mark else None
        ) from exc
    except yaml.YAMLError as exc:
        raise error_class(f"YAML error: {exc}", file=name) from exc
    finally:
        loader.dispose()
