"""How an explanation writes a template's values: its units, binary sizes and figures."""

from __future__ import annotations

import ast
import re
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.evaluation import computed, info
from perfdrill.engine.model.numbers import NBSP, declared_prefixed, format_quantity
from perfdrill.engine.model.quantity_text import GIVEN_DIGITS, display
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant


def binary_names(template: Template, variant: Variant) -> frozenset[str]:
    """Names shown with binary prefixes: memory a spec quotes in GiB (a TPU's), a quantity a part
    asks for in KiB or GiB, and a derived value the template writes in KiB."""
    chips = [value for value in variant.params.values() if hasattr(value, "memory")]
    spec = {"memory_capacity"} if any("iB" in chip.memory.shown for chip in chips) else set()
    asked = {
        name
        for part in template.parts
        if part.kind == "numeric" and part.answer is not None and "iB" in part.unit
        for _, name in part.answer.names
    }
    written = {d.name for d in template.derived if d.unit and "iB" in d.unit}
    # A value the prompt prints in binary units (`given.kv_bytes_per_token | qty('KiB/token')`).
    prompted = set(_QTY_BINARY.findall(template.prompt))
    # An input the template builds from KiB or MiB (`sram_bytes: sram_kib * 1024`): its prompt
    # shows "192 KiB", so the working does too, never "196.6 kB".
    kibi = {name for name, expression in template.inputs.items() if _KIBI.search(expression.text)}
    # A what-if that sets a size of whole MiB or GiB (nccl-tests' 1 GiB row) reads "1 GiB", never "1.074 GB".
    rows = {
        name
        for overrides in template.scenarios.values()
        for name, expression in overrides.items()
        if _WHOLE_MEBI.fullmatch(expression.text.strip()) and int(expression.text) % 1048576 == 0
    }
    return frozenset(spec | asked | written | prompted | kibi | rows)


_QTY_BINARY = re.compile(r"given\.(\w+)\s*\|\s*qty\(\s*['\"][KMGT]iB")
_KIBI = re.compile(r"\*\s*(?:1024|1048576)\b")
_WHOLE_MEBI = re.compile(r"[1-9][0-9]{6,}")


def units(template: Template) -> dict[str, str]:
    return {d.name: d.unit for d in template.derived if d.unit}


EVERY_SCOPE = "*"  # no what-if is called this: asked in any setting


def asked_units(template: Template, scope: str | None = EVERY_SCOPE) -> dict[str, str]:
    """Name -> the unit a numeric part asks it in ("GB", "ms"), for a part whose answer is that one
    quantity: every line that shows the value writes it in that unit, as the key does (issue 21).
    The first part asking a name decides; counts and ratios keep their own way of writing. With a
    `scope`, only what is asked in that setting (a swapped model's: the draft's runtime is not the
    target's, so it keeps the µs its memory time shows, not the ms (a) asks the target's in)."""
    found = _asked_by_parts(template, scope)
    for derived in template.derived:  # one that names a what-if's value reads in its unit: the draft step
        named = what_if_value(derived.value)
        if named is not None and named[1] in (asked := _asked_by_parts(template, named[0])):
            found.setdefault(derived.name, asked[named[1]])
    return found


def what_if_value(expression: Any) -> tuple[str, str] | None:
    """(scope, name) for an expression that only names a what-if's value (`drafting.runtime`)."""
    if not isinstance(expression.tree, ast.Attribute) or len(expression.names) != 1:
        return None
    ((scope, name),) = expression.names
    return None if scope is None else (scope, name)


def _asked_by_parts(template: Template, scope: str | None) -> dict[str, str]:
    """Name -> the unit a numeric part asks it in, for the parts asking it in `scope`."""
    found: dict[str, str] = {}
    for part in template.parts:
        answer = part.answer
        if part.kind != "numeric" or answer is None or not isinstance(answer.tree, ast.Name | ast.Attribute):
            continue
        if declared_prefixed(part.unit):
            for where, name in answer.names:
                if scope == EVERY_SCOPE or where == scope:
                    found.setdefault(name, part.unit)
    return found


def how_shown(template: Template, variant: Variant, scope: str | None = EVERY_SCOPE) -> dict[str, Any]:
    """How a derivation writes this template's values (in `scope`): binary sizes, units and the
    units asked."""
    return {
        "binary": binary_names(template, variant),
        "units": units(template),
        "asked_in": asked_units(template, scope),
    }


def value_text(
    template: Template,
    variant: Variant,
    name: str,
    value: float,
    digits: int = GIVEN_DIGITS,
    *,
    whole_count: bool = True,
) -> str:
    """A value as the explanation shows it: a given to four figures (a spec's 1.555 TB/s), a
    worked-out quantity (`digits` 3) as its step shows it."""
    try:
        return display(
            template.workload,
            name,
            value,
            binary=name in binary_names(template, variant),
            unit=units(template).get(name),
            digits=digits,
            asked_in=asked_units(template).get(name),
            whole_count=whole_count,
        )
    except PerfdrillError:  # a template parameter the engine does not know
        return format_quantity(float(value), "1", digits=digits)


def as_prompted(shown: str, prompt: str, space: str) -> str:
    """A value as the `prompt` writes it: an MFU of 0.55 the prompt calls "55%" reads 55% (inside
    arithmetic 55 %, with the `space` every other unit has), and a spec the prompt quotes to more
    figures keeps them (an MI300X's 1.3074 PFLOP/s, never 1.307 beside it)."""
    try:
        fraction = float(shown)
    except ValueError:
        return _longer_in_prompt(shown, prompt)
    percent = f"{fraction * 100:.10g}"
    return f"{percent}{space}%" if 0 < fraction < 1 and f"{percent}%" in prompt else shown


def categorical(workload: str, name: str) -> bool:
    """True for a quantity whose value is a category (yes/no, compute/memory)."""
    return name in computed(workload) and info(workload, name).labels is not None


def unshown_derived(template: Template) -> set[str]:
    """Derived values no prompt text shows (`given.name`): the explanation works them out, unless
    one only rounds the engine's quantity of its own name (`params: {value: params}`), a given."""
    texts = " ".join([template.prompt, *(part.prompt for part in template.parts), *template.hints])
    return {
        d.name for d in template.derived if f"given.{d.name}" not in texts and d.value.text.strip() != d.name
    }


_FIGURE_AND_UNIT = re.compile(r"(\d[\d,]*\.(\d+))[ \u00a0](\S+)")


def _longer_in_prompt(shown: str, prompt: str) -> str:
    """`shown` ("1.307 PFLOP/s"), or the figure the prompt writes for the same value to more places
    ("1.3074 PFLOP/s"): the same unit, and rounding the prompt's figure gives `shown`'s."""
    own = _FIGURE_AND_UNIT.fullmatch(shown)
    if own is None:
        return shown
    places = len(own[2])
    for found in _FIGURE_AND_UNIT.finditer(prompt):
        unit = found[3].rstrip(".,;:)")
        longer = found[1].replace(",", "")
        if unit == own[3] and len(found[2]) > places and f"{float(longer):,.{places}f}" == own[1]:
            return f"{found[1]}{NBSP}{unit}"
    return shown
