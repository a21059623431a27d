"""Question templates: the typed objects one folder of data per question is validated into.

A folder holds `question.yaml` (parameters, constraints, parts, hints) and `prompt.md.j2` (the
prompt, rendered later in Jinja2's sandbox). template_loading.py reads and checks a folder into
these objects (template_parts.py its parts); the rest of the engine only reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfdrill.engine.problems.expressions import Expression
from perfdrill.engine.problems.families import Family
from perfdrill.engine.problems.follow_ups import FollowUp
from perfdrill.engine.problems.question_file import DIFFICULTIES as DIFFICULTIES  # re-exported
from perfdrill.engine.problems.question_file import FAMILIES as FAMILIES  # re-exported
from perfdrill.engine.schema import Where

# The project-wide napkin-math tolerance: loose enough for specs rounded to 2-3 significant
# figures along the way, tight enough to tell GB from GiB (7%) apart from the right answer.
DEFAULT_TOLERANCE = ("relative", 0.05)
QUESTION_FILE = "question.yaml"
PROMPT_FILE = "prompt.md.j2"


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
    unit: str | None = None  # the unit a drawn number is written in; expressions see a quantity


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
    mostly_one_answer: str = ""  # why a choice part may give one answer in over 90% of variants
    label: str = ""  # what the working calls an arithmetic answer ("MAMF step time")
    answer_line: int = 0
    prompt_line: int = 0


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
    scenarios: dict[str, dict[str, Expression]]  # name -> inputs it replaces
    constraints: tuple[tuple[Expression, int], ...]
    parts: tuple[Part, ...]
    hints: tuple[str, ...]
    insight: str
    prompt: str
    folder: Path
    file: str
    override: bool = False
    lines: dict[str, int] = field(default_factory=dict)
    family_info: Family | None = None  # its title and description
    # name -> the chip, model or dtypes a scenario runs with instead ({"model": "draft"})
    scenario_specs: dict[str, dict[str, str]] = field(default_factory=dict)
    where: Where | None = None
    follow_ups: tuple[FollowUp, ...] = ()  # interview follow-ups (follow_ups.py)

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)

    def line(self, *path: str | int) -> int | None:
        """The line of the value at `path` in question.yaml (`"hints", 2`), as far as it exists."""
        return self.where.line(*path) if self.where else self.lines.get(str(path[0]))

    @property
    def family_title(self) -> str:
        return self.family_info.title if self.family_info else self.family

    @property
    def parameters_by_name(self) -> dict[str, Parameter]:
        return {parameter.name: parameter for parameter in self.parameters}

    @property
    def prompt_file(self) -> str:
        return str(Path(self.file).parent / PROMPT_FILE)
