"""One error family for perfdrill. Every message is written for a person and fits on one line."""

from __future__ import annotations

from perfdrill.engine.safe_text import safe_line


class PerfdrillError(Exception):
    """Base of every error perfdrill raises on purpose; the CLI prints it in one line and exits 2."""

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        # Safe for a terminal from the start: a file name, a key or a value quoted in the message
        # may hold escape sequences, and callers show `message` alone too.
        self.message = safe_line(message)
        self.file = None if file is None else safe_line(file)
        self.line = line
        self.field = None if field is None else safe_line(field)
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "") + ": "
        field = f"{self.field}: " if self.field else ""
        return f"{where}{field}{self.message}"


class SpecError(PerfdrillError, ValueError):
    """A chip or model entry in a specs YAML file is missing, malformed or duplicated."""


class UnitError(PerfdrillError, ValueError):
    """A quantity has the wrong dimension or an unknown unit."""


class AnswerFormatError(PerfdrillError, ValueError):
    """Typed text that cannot be read as an answer. It costs the user no attempt."""


class TemplateError(PerfdrillError, ValueError):
    """A question template is malformed, unsafe, or cannot produce a variant."""


class UsageError(PerfdrillError, ValueError):
    """A command-line value is out of range or names something unknown."""
