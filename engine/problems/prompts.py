"""Rendering template text (prompts, part prompts, hints, insights) in Jinja2's sandbox.

Templates are untrusted: sandbox.py refuses attribute tricks such as `__class__`, bounds time,
memory and output, and strips terminal control characters; nothing can import or open files, and
StrictUndefined turns a misspelt name into an error instead of a blank. Numbers reach the text
only through the values the engine computed, formatted with units (`given`, `qty`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

import jinja2
import jinja2.meta
import jinja2.nodes

from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.numbers import NBSP, format_in_unit, format_quantity, quoted
from perfdrill.engine.model.quantity_text import label
from perfdrill.engine.model.specs import Chip, Model, Sourced
from perfdrill.engine.model.units import BASE_UNITS
from perfdrill.engine.problems.quantities import unit_scale
from perfdrill.engine.problems.sandbox import (
    BoundedEnvironment,
    TextError,
    compile_bounded,
    render_bounded,
    undefined_message,
)
from perfdrill.engine.problems.template_names import nearest
from perfdrill.engine.safe_text import safe_text

if TYPE_CHECKING:
    from perfdrill.engine.problems.variants import Variant


class Shown(str):
    """A quantity as a prompt shows it ("128 KiB"), still knowing its value in the engine's unit,
    so `qty` can show it in another unit."""

    value: float
    unit: str

    def __new__(cls, value: float, unit: str) -> Shown:
        shown = super().__new__(cls, show_quantity(value, unit))
        shown.value, shown.unit = value, unit
        return shown


def show_quantity(value: float, unit: str, digits: int = 3) -> str:
    """`value` (in the engine's unit of `unit`'s dimension) shown in `unit`: an engine unit such as
    byte gets prefixes ("3.2 GB"); any other ("KiB/token", "ms") is used as written."""
    if unit in BASE_UNITS:
        return format_quantity(value, unit, digits=digits)
    _, factor = unit_scale(unit)
    return format_in_unit(value / factor, unit, digits=digits)


def _qty(value: float, unit: str = "1", digits: int = 3) -> str:
    """`{{ x | qty("byte/s") }}` or `qty(x, "KiB/token")`: a value with its unit, in the one number
    style (3.35 TB/s); a `given` quantity converts to the unit asked."""
    if isinstance(value, Shown):  # `given.x | qty('KiB/token')`: the same quantity in another unit
        if unit_scale(unit)[0] != unit_scale(value.unit)[0]:
            raise TemplateError(f"cannot show {value.unit} in {unit!r}")
        return show_quantity(value.value, unit, digits)
    if unit not in BASE_UNITS:
        return show_quantity(float(value), unit, digits)
    return format_quantity(float(value), unit, digits=digits)


def _num(value: float) -> str:
    """`{{ x | num }}`: a plain number, every digit of a whole one grouped (12,288)."""
    return format_quantity(float(value), "1", digits=6)


def _plural(count: float, noun: str, plural: str | None = None) -> str:
    """`{{ batch | plural("sequence") }}`: the count and its noun, singular only for one
    ("1 sequence", "8 sequences", "1,024 tokens")."""
    many = plural or (noun + "es" if noun.endswith(("s", "x", "ch", "sh")) else noun + "s")
    return f"{_num(count)}{NBSP}{noun if float(count) == 1 else many}"


_VOWEL_LETTERS = set("AEFHILMNORSX")  # letter names said with a vowel first: "an H100", "an fp8"
_CONSONANT_SOUNDS = ("uni", "use", "usu", "one", "once", "eu", "ur")  # "a unified", "a one-off"
_SILENT_H = ("hour", "honest", "honour")


def _a_an(text: object) -> str:
    """`{{ chip.name | a_an }}`: the text after "a" or "an", as it is said aloud: "a Google TPU",
    "an H100", "an fp8 kernel", "an 8-token prompt", "a 1,024-token prompt"."""
    shown = str(text)
    first = (shown.lstrip("*_ (").split() or [""])[
        0
    ]  # any space: a quantity joins its unit with a no-break one
    article = "a"
    if first[:1].isdigit():
        leading = first.split(",")[0].split(".")[0].split("-")[0]
        article = "an" if leading.startswith("8") or leading in ("11", "18") else "a"
    elif first[:1].isalpha():
        spelled = any(c.isdigit() for c in first) or (first.isupper() and len(first) > 1)
        if spelled:  # an acronym or a part number is read letter by letter
            article = "an" if first[0].upper() in _VOWEL_LETTERS else "a"
        else:
            lowered = first.lower()
            vowel = lowered[0] in "aeiou" and not lowered.startswith(_CONSONANT_SOUNDS)
            article = "an" if vowel or lowered.startswith(_SILENT_H) else "a"
    return f"{article} {shown}"


def plain_number(value: Any) -> str:
    """A number without a unit, as prompts show drawn values; text stays text."""
    return value if isinstance(value, str) else _num(value)


class _Undefined(jinja2.StrictUndefined):
    """Says what is missing without naming Python classes (`given` has no quantity 'x'...)."""

    @property
    def _undefined_message(self) -> str:
        if self._undefined_hint:
            return self._undefined_hint
        if isinstance(self._undefined_obj, Given):
            return self._undefined_obj.unknown(str(self._undefined_name))
        return undefined_message(self._undefined_obj, self._undefined_name)


@cache
def environment() -> BoundedEnvironment:
    env = BoundedEnvironment(undefined=_Undefined, autoescape=False, keep_trailing_newline=False)
    env.add_filter("qty", _qty)
    env.add_filter("num", _num)
    env.add_filter("plural", _plural)
    env.add_filter("a_an", _a_an)
    for name in ("qty", "num", "plural", "a_an"):  # each also a function: qty(value, unit), num(x)
        env.globals[name] = env.filters[name]
    return env


@cache
def _names_used(text: str) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """(filter, line) of every filter `text` applies and (name, line) of every name it reads from
    outside itself; empty where it does not parse (compiling it then says why)."""
    try:
        tree = environment().parse(text)
        filters = tuple((node.name, node.lineno) for node in tree.find_all(jinja2.nodes.Filter))
    except (jinja2.TemplateError, RecursionError, MemoryError):
        return (), ()
    try:
        outside = jinja2.meta.find_undeclared_variables(tree)
        lines: dict[str, int] = {}
        for node in tree.find_all(jinja2.nodes.Name):
            if node.name in outside:
                lines.setdefault(node.name, node.lineno)
    except (jinja2.TemplateError, RecursionError, MemoryError):  # an unknown filter or test stops it
        return filters, ()
    return filters, tuple(sorted(lines.items(), key=lambda pair: pair[1]))


def _unknown_name(text: str, context: Mapping[str, Any]) -> TextError | None:
    """A filter or a name that does not exist, with the nearest ones: found before rendering, so a
    misspelling is reported even in a branch this variant does not take."""
    env = environment()
    filters, names = _names_used(text)
    for name, line in filters:
        if name not in env.filters:
            return TextError(f"no filter named {name!r}{nearest(name, env.filters)}", line)
    known = {*context, *env.globals}
    for name, line in names:
        if name not in known:
            return TextError(f"undefined in template: {name!r} is undefined{nearest(name, known)}", line)
    return None


@cache
def _compiled(text: str) -> jinja2.Template:
    return compile_bounded(environment(), text)


def render(
    text: str,
    context: Mapping[str, Any],
    *,
    file: str,
    field: str,
    line: int | None = None,
    inline: bool = False,
) -> str:
    """Render one piece of template text; every failure is a located TemplateError.

    Text from its own file (`inline=False`) is located at the line within it; text written in
    question.yaml at `line`, the line of its field, with the line within the text said in words.
    """
    if not any(mark in text for mark in ("{{", "{%", "{#")):
        return safe_text(text).strip()  # plain text: what Jinja would give, without compiling it
    try:
        unknown = _unknown_name(text, context)
        if unknown is not None:
            raise unknown
        return render_bounded(_compiled(text), context)
    except TextError as exc:
        message, where = exc.message, exc.line
        if inline:
            if where and where > 1:
                message += f" (line {where} of this text)"
            where = line
        raise TemplateError(message, file=file, line=where or line or 1, field=field) from None


def chip_view(chip: Chip) -> dict[str, Any]:
    """What a prompt may show of a chip: names and the spec's own figures, every digit kept."""
    return {
        "id": chip.id,
        "name": chip.name,
        "vendor": chip.vendor,
        "memory": _quoted(chip.memory, "byte"),
        "memory_bandwidth": _quoted(chip.memory_bandwidth, "byte/s"),
        # the chip's DRAM as a prompt names it: "HBM" only for HBM parts (an L4's is GDDR6)
        "dram": "HBM" if (chip.memory_type or "HBM").startswith("HBM") else chip.memory_type,
        "peak": {dtype: _quoted(value, "FLOP/s") for dtype, value in chip.peak_flops.items()},
        "link_bandwidth": _quoted(chip.link_bandwidth, "byte/s"),
        "host_link_bandwidth": _quoted(chip.host_link_bandwidth, "byte/s"),
        "link_peer_bandwidth": _quoted(chip.link_peer_bandwidth, "byte/s"),
        "link_topology": chip.link_topology or "unknown",
        "link_domain": chip.link_domain or 0,
        "link_summary": _link_summary(chip),
        "network_bandwidth": chip.network_bandwidth.shown if chip.network_bandwidth else "none",
        "sm_count": _num(chip.sm_count.value) if chip.sm_count else "unknown",
        "l2_cache": chip.l2_cache.shown if chip.l2_cache else "unknown",
        "price_per_hour": chip.price_per_hour.shown if chip.price_per_hour else "none",
    }


def _quoted(figure: Sourced | None, unit: str) -> str:
    return "none" if figure is None else quoted(figure.value, figure.shown, unit)


def _link_summary(chip: Chip) -> str:
    """One sentence on how the chips of a node reach each other, with the spec's one-way figures."""
    if chip.link_bandwidth is None:
        return "The chips have no chip-to-chip link; they talk over PCIe."
    total = _quoted(chip.link_bandwidth, "byte/s")
    peer = _quoted(chip.link_peer_bandwidth, "byte/s") if chip.link_peer_bandwidth else total
    if chip.link_topology == "mesh" and chip.link_domain:
        return (
            f"Each GPU has its own link of {peer} one way to each of the other {chip.link_domain - 1} "
            f"GPUs of its node ({total} one way in all); a collective can drive only the links to "
            "the GPUs taking part."
        )
    if chip.link_topology == "pair":
        return f"A bridge joins the two cards at {peer} one way."
    if chip.link_topology == "switch":
        return f"A switch gives each GPU {total} one way to any other GPU of the node."
    if chip.link_topology == "torus":
        return f"Each chip reaches each torus neighbour at {peer} one way."
    return f"The chip-to-chip link gives {total} one way."


def model_view(model: Model) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": model.id,
        "name": model.name,
        "mlp": "gated (3 matrices)" if model.gated_mlp else "plain (2 matrices)",
        "attention": "MHA" if model.kv_heads == model.heads else ("MQA" if model.kv_heads == 1 else "GQA"),
        "tied_embeddings": model.tied_embeddings,
        "position_embeddings": model.position_embeddings,
        "context_window": _num(model.context_window.value) if model.context_window else "unknown",
    }
    for name in (
        "layers",
        "d_model",
        "heads",
        "kv_heads",
        "head_dim",
        "ffn",
        "vocab",
        "experts",
        "experts_per_token",
    ):
        view[name] = _num(getattr(model, name))
    return view


_INPUT_UNITS = {name: unit for name, (unit, _doc) in INPUTS.items()}


class Given(Mapping[str, str]):
    """`given.name` in a template: a parameter, an input or any computed quantity, formatted with
    its unit; `given.scenario.name` the same in a named scenario.

    Computed quantities are evaluated only when a template asks for them (`given.params`).
    """

    def __init__(self, variant: Variant, units: Mapping[str, str], scope: str | None = None) -> None:
        self._variant = variant
        self._declared = dict(units)
        self._units = _INPUT_UNITS | self._declared
        self._scope = scope

    def __getitem__(self, name: str) -> Any:
        variant, template = self._variant, self._variant.template
        if self._scope is None and name in template.scenarios:
            return Given(variant, self._declared, name)
        try:
            value = variant.lookup(name, self._scope)
        except PerfdrillError as exc:
            raise KeyError(name) from exc
        if isinstance(value, Chip | Model | str):
            return value.name if isinstance(value, Chip | Model) else value
        if name in self._units and (name not in computed(template.workload) or name in self._declared):
            return Shown(float(value), self._units[name])
        if name in computed(template.workload):
            word = label(template.workload, name, value)
            return word if word is not None else Shown(float(value), info(template.workload, name).unit)
        return plain_number(value)

    def unknown(self, name: str) -> str:
        """Why `given.name` is undefined."""
        template = self._variant.template
        where = f"scenario {self._scope!r}" if self._scope else "this template"
        scenarios = (
            f"; scenarios: {', '.join(template.scenarios)}" if template.scenarios and not self._scope else ""
        )
        return (
            f"given has no quantity {name!r} in {where} (`perfdrill quantities {template.workload}` "
            f"lists them{scenarios})"
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._variant.values(self._scope))

    def __len__(self) -> int:
        return len(self._variant.values(self._scope))


def context(variant: Variant, units: Mapping[str, str]) -> dict[str, Any]:
    """Names a template's text can use: parameters (chips and models as views) and `given`.

    `units` gives the unit of each parameter and derived value that has one."""
    values: dict[str, Any] = {}
    for name, value in variant.params.items():
        if isinstance(value, Chip):
            values[name] = chip_view(value)
        elif isinstance(value, Model):
            values[name] = model_view(value)
        else:
            values[name] = value
    values["given"] = Given(variant, units)
    return values
