"""A calc result as the JSON document carries it: a number in base units with its unit, or a label."""

from __future__ import annotations

from typing import Any

from perfdrill.engine.model import info, label


def json_value(workload: str, quantity: str, value: Any) -> dict[str, Any]:
    """{"value", "unit"}: a whole count as an int, a yes/no label as a bool, other labels as text."""
    meta = info(workload, quantity)
    word = label(workload, quantity, value)
    if word is not None:
        return {"value": word == "yes" if meta.labels == ("no", "yes") else word, "unit": None}
    number = float(value)
    if meta.unit == "1" and number.is_integer():
        return {"value": int(number), "unit": "1"}
    return {"value": number, "unit": meta.unit}
