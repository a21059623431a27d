"""Rendering template text (prompts, part prompts, hints, insights) in Jinja2's sandbox.

Templates are untrusted: the sandbox refuses attribute tricks such as `__class__`, nothing can
import or open files, and StrictUndefined turns a misspelt name into an error instead of a blank.
Numbers reach the text only through the values the engine computed, formatted with units.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.model.evaluation import INPUTS
from perfdrill.engine.model.explain import display
from perfdrill.engine.model.numbers import NBSP, format_quantity, quoted
from perfdrill.engine.model.specs import Chip, Model, Sourced


def _qty(value: float, unit: str = "1", digits: int = 3) -> str:
    """`{{ x | qty("byte/s") }}`: a base-unit value with its prefix and unit (3.35 TB/s)."""
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
    first = shown.lstrip("*_ (").split(" ")[0]
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


@cache
def environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False
    )
    env.filters["qty"] = _qty
    env.filters["num"] = _num
    env.filters["plural"] = _plural
    env.filters["a_an"] = _a_an
    return env


@cache
def compile_text(text: str) -> jinja2.Template:
    return environment().from_string(text)


def render(text: str, context: Mapping[str, Any], *, file: str, field: str, line: int | None = None) -> str:
    """Render one piece of template text; every Jinja failure is a located TemplateError."""
    try:
        return compile_text(text).render(context).strip()
    except jinja2.exceptions.SecurityError as exc:
        raise TemplateError(f"security error: {exc}", file=file, line=line, field=field) from None
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"Jinja syntax error: {exc.message}", file=file, line=exc.lineno, field=field
        ) from None
    except jinja2.UndefinedError as exc:
        raise TemplateError(
            f"undefined in template: {exc.message}", file=file, line=line, field=field
        ) from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise TemplateError(f"rendering failed: {exc}", file=file, line=line, field=field) from None


def chip_view(chip: Chip) -> dict[str, Any]:
    """What a prompt may show of a chip: names and the spec's own figures, every digit kept."""
    return {
        "id": chip.id,
        "name": chip.name,
        "vendor": chip.vendor,
        "memory": _quoted(chip.memory, "byte"),
        "memory_bandwidth": _quoted(chip.memory_bandwidth, "byte/s"),
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


class Given(Mapping[str, str]):
    """`given.name` in a template: an input or any computed quantity, formatted with its unit.

    Computed quantities are evaluated only when a template asks for them (`given.params`).
    """

    def __init__(
        self,
        inputs: Mapping[str, float],
        lookup: Callable[[str], Any],
        workload: str,
        units: Mapping[str, str],
    ) -> None:
        self._inputs = inputs
        self._lookup = lookup
        self._workload = workload
        self._units = {name: unit for name, (unit, _doc) in INPUTS.items()} | dict(units)

    def __getitem__(self, name: str) -> str:
        if name in self._inputs and name in self._units:
            return format_quantity(self._inputs[name], self._units[name])
        if name in self._inputs:
            return _num(self._inputs[name])
        try:
            return display(self._workload, name, self._lookup(name))
        except PerfdrillError as exc:
            raise KeyError(name) from exc

    def __iter__(self) -> Iterator[str]:
        return iter(self._inputs)

    def __len__(self) -> int:
        return len(self._inputs)


def context(
    params: Mapping[str, Any],
    inputs: Mapping[str, float],
    lookup: Callable[[str], Any],
    workload: str,
    units: Mapping[str, str],
) -> dict[str, Any]:
    """Names a template's text can use: parameters (chips and models as views) and `given`."""
    values: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Chip):
            values[name] = chip_view(value)
        elif isinstance(value, Model):
            values[name] = model_view(value)
        else:
            values[name] = value
    values["given"] = Given(inputs, lookup, workload, units)
    return values
