"""How a quantity reads: its label ("KV cache per token"), and its value as a person reads it, in
units with prefixes or, for a yes/no quantity, in words ("memory-bound", "it fits").
"""

from __future__ import annotations

from typing import Any

from perfdrill.engine.model import generated_display
from perfdrill.engine.model.evaluation import info
from perfdrill.engine.model.numbers import format_base_in, format_quantity
from perfdrill.engine.model.spoken import spoken


def label_of(workload: str, name: str) -> str:
    """What a person calls a quantity ("KV cache per token"); any other name reads with spaces."""
    entry = generated_display.QUANTITIES.get(f"{name}@{workload}")
    if entry is not None:
        return str(entry[0])
    return str(generated_display.INPUT_LABELS.get(name, spoken(name)))


def is_whole(workload: str, name: str) -> bool:
    """True for a count (batch, chips, the largest batch): never shown with a fraction."""
    entry = generated_display.QUANTITIES.get(f"{name}@{workload}")
    return bool(entry[2]) if entry is not None else name in generated_display.WHOLE_INPUTS


def label(workload: str, name: str, value: Any) -> str | None:
    """The word for a yes/no quantity's value ("compute", "memory", "yes"…), or None for a number."""
    labels = info(workload, name).labels
    return None if labels is None else labels[round(float(value))]


def phrase(workload: str, name: str, value: Any) -> str | None:
    """A categorical value in a sentence ("memory-bound", "it fits"), or None for a number."""
    word_ = label(workload, name, value)
    entry = generated_display.QUANTITIES.get(f"{name}@{workload}")
    phrases = entry[1] if entry is not None else None
    return phrases[round(float(value))] if phrases else word_


def display(
    workload: str,
    name: str,
    value: Any,
    *,
    binary: bool = False,
    unit: str | None = None,
    digits: int = 3,
    asked_in: str | None = None,
    whole_count: bool = True,
) -> str:
    """A value as a person reads it: units with prefixes, or the label of a yes/no quantity.

    `unit` serves names the engine does not know (a template's own derived value); `asked_in` is
    the unit a part asks this value in ("GB", "ms"): it is then written in that unit, as the key is.
    A count is shown whole unless `whole_count` is False (a step that needs its fraction).
    """
    if asked_in is not None and (unit is not None or label(workload, name, value) is None):
        return format_base_in(float(value), asked_in, digits=digits)
    if unit is None:
        word_ = label(workload, name, value)
        if word_ is not None:
            return word_
        unit = info(workload, name).unit
    whole = whole_count and is_whole(workload, name)
    return format_quantity(float(value), unit, digits=digits, binary=binary, whole_number=whole)


# Givens are shown with a figure more than results: a spec's 1.555 TB/s is not rounded to 1.56.
GIVEN_DIGITS = 4
