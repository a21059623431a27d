"""Reading one mapping of a question.yaml, turning every problem into a located TemplateError."""

from __future__ import annotations

from typing import Any

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.problems.expressions import Expression, parse_expression
from perfdrill.engine.yamlio import LineMap


class Fields:
    """One mapping of question.yaml, with its file, dotted field path and key lines."""

    def __init__(self, data: Any, file: str, path: str, line: int | None = None) -> None:
        if not isinstance(data, dict):
            raise TemplateError(
                f"must be a mapping, not {type(data).__name__}", file=file, line=line, field=path
            )
        self.data = data
        self.file = file
        self.path = path
        self.line = getattr(data, "line", line)

    def error(self, key: str | None, message: str) -> TemplateError:
        line = self.data.line_of(key) if isinstance(self.data, LineMap) and key else self.line
        return TemplateError(message, file=self.file, line=line, field=self.dotted(key))

    def dotted(self, key: str | None) -> str:
        return self.path if key is None else (f"{self.path}.{key}" if self.path else key)

    def only(self, allowed: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.error(key, f"unknown field; allowed: {', '.join(allowed)}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.error(None, f"missing required field {self.dotted(key)!r}")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float, (int, float))):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.error(key, f"must be {names}, not {type(value).__name__}")
        return value

    def one_of(self, key: str, allowed: tuple[str, ...] | list[str], default: Any = ...) -> Any:
        value = self.get(key, str, default)
        if value is not default and value not in allowed:
            raise self.error(key, f"{value!r} is not allowed; allowed: {', '.join(allowed)}")
        return value

    def child(self, key: str) -> Fields:
        return Fields(self.data[key], self.file, self.dotted(key), self.line_of(key))

    def expression(self, key: str, value: object | None = None) -> Expression:
        text = self.data[key] if value is None else value
        return parse_expression(text, file=self.file, line=self.line_of(key), field=self.dotted(key))

    def line_of(self, key: str) -> int:
        return self.data.line_of(key) if isinstance(self.data, LineMap) else (self.line or 0)
