"""Templates of the user's own that fail when a variant is made are left out, never fatal.

Loading a template reads its files; an undefined name in a prompt, a constraint no draw meets or a
unit of the wrong dimension only shows when a variant is drawn and rendered. A built-in template
is tested, so such an error there is a bug and is raised; one of the user's own is named once and
passed over from then on, as `perfdrill list` and the docs promise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.templates import Template


@dataclass
class LeaveOut:
    builtin: frozenset[str]  # ids whose errors are raised
    warn: Callable[[TemplateError], None] = lambda _: None  # told once per template left out
    errors: dict[str, TemplateError] = field(default_factory=dict)  # template id -> why it is left out

    def generate(
        self, template: Template, seed: int, specs: SpecBook, *, restricted: bool = False
    ) -> Problem | None:
        """The problem, or None when `template` is left out. With `restricted` specs (only some
        chips or models) a built-in template may fail too, for that seed only: None, nothing said."""
        if template.id in self.errors:
            return None
        try:
            return generate(template, seed, specs)
        except TemplateError as exc:
            if template.id in self.builtin:
                if restricted:
                    return None
                raise
            self.errors[template.id] = exc
            self.warn(exc)
            return None
