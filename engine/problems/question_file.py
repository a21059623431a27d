"""What a question.yaml (and a family.yaml) may hold, declared once as msgspec Structs.

template_loading.py decodes every question.yaml with these declarations (an unknown field or a
wrong type is one located error), json_schema.py turns them into `perfdrill schema`, and
scaffolding.py checks new ids with the same rule; families.py decodes family.yaml, a root's own family.
What a declaration cannot hold (expressions, units, which fields a part kind needs) is checked in
template_loading.py after decoding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from perfdrill.engine.model.evaluation import workload_names
from perfdrill.engine.model.specs import Chip, ComputeDtype
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.schema import Where

# The built-in families, id -> title; a template root adds its own in family.yaml (families.py).
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
    "serving": "Serving latency, throughput and cost",
    "speculative": "Speculative decoding",
    "kernels": "Kernel-level effects",
}
DIFFICULTIES = ("easy", "medium", "hard")
PART_KINDS = ("numeric", "choice", "multi")

# The one rule for question ids, used by loading, the JSON Schema and `perfdrill new`.
FAMILY_PATTERN = "[a-z][a-z0-9_]*"
SLUG_PATTERN = "[a-z0-9]+(?:-[a-z0-9]+)*"
ID_PATTERN = f"^{FAMILY_PATTERN}/{SLUG_PATTERN}$"
ID_RULE = "family/slug: the family, then lowercase words or digits joined by '-' (e.g. kv_cache/long-context)"
NAME_PATTERN = "^[a-z][a-z0-9_]*$"
FAMILY_RULE = "lowercase letters, digits or _, starting with a letter (e.g. kv_cache)"
ENUM_ORDER = "x-enum-order"

# Chip figures a chip may lack, so a chip parameter can require them (`has:`).
OPTIONAL_CHIP_FIGURES = tuple(f.name for f in msgspec.structs.fields(Chip) if f.default is None)


def is_question_id(text: str) -> bool:
    """The id rule, whole-string: a pattern's `$` alone would also let a trailing line break through."""
    return re.fullmatch(ID_PATTERN, text) is not None


def _one_of(noun: str, values: Iterable[str]) -> Any:
    """A string from a fixed set: errors and the JSON Schema name the set, in this order."""
    allowed = tuple(values)
    # msgspec's JSON Schema lists a Literal's values sorted; json_schema.py restores this order.
    return Annotated[Literal[allowed], Meta(title=noun, extra_json_schema={ENUM_ORDER: list(allowed)})]


if TYPE_CHECKING:  # mypy cannot follow sets built at run time; to it they are text
    Difficulty = str
    Workload = str
    PartKind = str
    MistakeId = str
    ChipFigure = str
else:
    Difficulty = _one_of("difficulty", DIFFICULTIES)
    Workload = _one_of("workload", workload_names())
    PartKind = _one_of("kind", PART_KINDS)
    MistakeId = _one_of("mistake", CATALOGUE)
    ChipFigure = _one_of("chip figure", OPTIONAL_CHIP_FIGURES)

Family = Annotated[
    str,
    Meta(
        pattern=f"^{FAMILY_PATTERN}$",
        description=f"a built-in family ({', '.join(FAMILIES)}) or one declared in family.yaml "
        "beside the template's folder",
        extra_json_schema={"examples": list(FAMILIES)},
    ),
]
QuestionId = Annotated[str, Meta(pattern=ID_PATTERN, description=ID_RULE)]
Name = Annotated[
    str, Meta(pattern=NAME_PATTERN, description="a lowercase identifier (a letter, then a-z, 0-9 or _)")
]
Expression = Annotated[
    str | int | float, Meta(description="an expression over engine quantities and parameters")
]
PositiveNumber = Annotated[int, Meta(gt=0)] | Annotated[float, Meta(gt=0)]
SigFigs = Annotated[int, Meta(ge=1, le=17)]  # a float holds 17 significant digits at most


class Declared(Struct, forbid_unknown_fields=True):
    """A mapping of question.yaml, with the two field rules a Struct cannot hold by itself."""

    EXACTLY_ONE: ClassVar[tuple[str, ...]] = ()  # of these fields, exactly one is given
    ONLY_WITH: ClassVar[dict[str, str]] = {}  # field -> the field it goes with

    def check(self, where: Where, *path: str | int) -> None:
        """Raise the first broken rule of EXACTLY_ONE and ONLY_WITH, located at `path`."""
        given = [name for name in self.EXACTLY_ONE if getattr(self, name) is not UNSET]
        if self.EXACTLY_ONE and len(given) != 1:
            raise where.error(f"give exactly one of: {', '.join(self.EXACTLY_ONE)}", *path)
        for name, partner in self.ONLY_WITH.items():
            if getattr(self, name) is not UNSET and getattr(self, partner) is UNSET:
                raise where.error(f"goes only with {partner}", *path, name)

    def given(self) -> dict[str, Any]:
        """The fields the file gave, by name."""
        return {
            name: getattr(self, name) for name in self.__struct_fields__ if getattr(self, name) is not UNSET
        }


class ChipFilter(Declared):
    """Which chips a chip parameter draws from; every filter given must hold."""

    ids: str | list[str] | UnsetType = UNSET
    exclude: list[str] | UnsetType = UNSET
    vendor: str | list[str] | UnsetType = UNSET
    dtype: ComputeDtype | list[ComputeDtype] | UnsetType = UNSET
    has: ChipFigure | list[ChipFigure] | UnsetType = UNSET


class ModelFilter(Declared):
    """Which models a model parameter draws from; every filter given must hold."""

    ids: str | list[str] | UnsetType = UNSET
    exclude: list[str] | UnsetType = UNSET
    moe: bool | UnsetType = UNSET
    gqa: bool | UnsetType = UNSET
    mla: bool | UnsetType = UNSET


class ParameterFields(Declared):
    """A drawn parameter: a chip, a model, one of fixed values, or a number from a range."""

    EXACTLY_ONE = ("chip", "model", "choice", "range")
    ONLY_WITH = {"log": "range", "step": "range", "sig_figs": "range"}

    chip: ChipFilter | UnsetType | None = UNSET
    model: ModelFilter | UnsetType | None = UNSET
    choice: Annotated[list[str | int | float], Meta(min_length=1)] | UnsetType = UNSET
    range: Annotated[list[int | float], Meta(min_length=2, max_length=2)] | UnsetType = UNSET
    log: bool | UnsetType = UNSET
    step: PositiveNumber | UnsetType = UNSET
    sig_figs: SigFigs | UnsetType = UNSET
    unit: (
        Annotated[str, Meta(description="the unit a drawn number is written in (token, KiB, ms)")] | UnsetType
    ) = UNSET


class DerivedFields(Declared):
    """A value computed from parameters and engine quantities, for prompts to show."""

    value: Expression
    sig_figs: SigFigs = 3
    unit: (
        Annotated[
            str,
            Meta(
                description="the value's unit: attaches one to a plain number (16 with KiB is 16 KiB), "
                "or names the unit of a quantity, which must match"
            ),
        ]
        | None
    ) = None


class ScenarioFields(Declared):
    """Which parameters give the chip and the model, and the dtypes and chip count to use."""

    chip: str | UnsetType = UNSET
    model: str | UnsetType = UNSET
    dtype: str | UnsetType = UNSET
    weight_dtype: str | UnsetType = UNSET
    kv_dtype: str | UnsetType = UNSET
    chips: int | str | UnsetType = UNSET
    mfu: float | str | UnsetType = UNSET


class ToleranceFields(Declared):
    """How close an answer must be to grade correct."""

    EXACTLY_ONE = ("relative", "absolute", "sig_figs")

    relative: Annotated[float, Meta(gt=0, lt=1)] | UnsetType = UNSET
    absolute: PositiveNumber | UnsetType = UNSET
    sig_figs: SigFigs | UnsetType = UNSET


class SweepFields(Declared):
    """A multi-select part over values of one engine input."""

    input: str
    values: Annotated[list[int | float], Meta(min_length=1)]
    unit: str = "1"


class PartFields(Declared):
    """One question part; which other fields it takes depends on its kind."""

    name: Name
    kind: PartKind
    prompt: Annotated[str, Meta(description="Jinja2 text, rendered in the sandbox")]
    answer: Expression | UnsetType = UNSET
    unit: (
        Annotated[str, Meta(description="the unit answers are read in, e.g. ms, GB, TFLOP/s")] | UnsetType
    ) = UNSET
    tolerance: ToleranceFields | UnsetType = UNSET
    mistakes: list[MistakeId] = []
    choices: list[str] | UnsetType = UNSET
    correct: str | list[str] | UnsetType = UNSET
    sweep: SweepFields | UnsetType = UNSET
    mostly_one_answer: (
        Annotated[str, Meta(description="why this choice part may give one answer in over 90% of variants")]
        | UnsetType
    ) = UNSET
    label: (
        Annotated[
            str,
            Meta(
                min_length=1, description="what the working calls an arithmetic answer, e.g. MAMF step time"
            ),
        ]
        | UnsetType
    ) = UNSET


class FollowUpFields(Declared):
    """An interview follow-up: the question again after one change to its drawn scenario, as an
    interviewer would say it ("The batch doubles."), asking the parts the change moves."""

    say: Annotated[str, Meta(min_length=1, description="the interviewer's line, e.g. 'The batch doubles.'")]
    set: Annotated[
        dict[Name, str | int | float],
        Meta(description="choice or range parameters and their new values, e.g. {kv_dtype: fp8}"),
    ] = {}
    times: Annotated[
        dict[Name, PositiveNumber],
        Meta(description="numeric parameters and the factor they are multiplied by, e.g. {batch: 2}"),
    ] = {}
    ask: Annotated[list[Name], Meta(description="the parts asked again; none given: every part")] = []


class FamilyFile(Declared, kw_only=True):
    """A family a template root declares (family.yaml in the family's folder)."""

    title: Annotated[str, Meta(min_length=1, description="shown in lists, the app's picker and sets")]
    description: str = ""


class QuestionFile(Declared, kw_only=True):  # fields in the order a file reads
    """A perfdrill question template (question.yaml)."""

    id: QuestionId
    title: str
    family: Family
    difficulty: Difficulty
    tags: list[str] = []
    workload: Workload
    override: Annotated[bool, Meta(description="replace the built-in template with this id")] = False
    parameters: dict[Name, ParameterFields] = {}
    scenario: ScenarioFields | UnsetType = UNSET
    inputs: dict[Name, Expression] = {}
    derived: dict[Name, DerivedFields] = {}
    scenarios: dict[Name, dict[Name, Expression]] = {}
    constraints: list[str] = []
    parts: Annotated[list[PartFields], Meta(min_length=1)]
    hints: list[str] = []
    insight: str = ""
    follow_ups: Annotated[
        list[FollowUpFields], Meta(description="interview follow-ups: one change each (docs/authoring.md)")
    ] = []
