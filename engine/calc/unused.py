"""Options that change none of a calculation's results: accepted when they agree, refused when not.

People copy whole tables: a parameter count beside the architecture it comes from, a memory size
for a ridge point. An option whose value no result reads is accepted, and one `note` line names
it; but where a result is given directly (`--params`) and the unused options would recompute it
differently, every such disagreement is refused together, in one message.
"""

from __future__ import annotations

import math
from typing import Any

from perfdrill.engine import UsageError
from perfdrill.engine.calc.spec import Subcommand
from perfdrill.engine.model import computed, dependencies, display, evaluate_available

# How near a recomputed value must be to the one given: published tables round ("6.74B").
AGREEMENT = 0.01


def unused_note(
    spec: Subcommand, workload: str, wanted: list[str], inputs: dict[str, Any], given: set[str]
) -> str | None:
    """The note naming the given options no result reads, or None; a UsageError listing every
    value given directly that those options would recompute differently."""
    reached = dependencies(workload, wanted, inputs)
    options = spec.all_options()
    unused = [o for o in options if o.flag in given and o.supplies and not reached & set(o.supplies)]
    if not unused:
        return None
    supplied = {name for option in unused for name in option.supplies}
    above = [  # the formulas' order: a total before the active count that repeats it
        name for name in computed(workload) if name in inputs and supplied & dependencies(workload, [name])
    ]
    stripped = {name: value for name, value in inputs.items() if name not in above}
    recomputed = evaluate_available(workload, stripped, above).values
    conflicts: dict[tuple[float, float], str] = {}  # a dense model's active count repeats its total
    for name in above:
        pair = (inputs[name], recomputed.get(name, inputs[name]))
        if pair not in conflicts and not math.isclose(*pair, rel_tol=AGREEMENT):
            direct = [o.flag for o in options if o.flag in given and name in o.supplies]
            feeding = [o.flag for o in unused if set(o.supplies) & dependencies(workload, [name])]
            conflicts[pair] = (
                f"{name} is {display(workload, name, inputs[name])}"
                f"{' by ' + ' and '.join(direct) if direct else ''}, but "
                f"{', '.join(feeding)} give{'s' if len(feeding) == 1 else ''} "
                f"{display(workload, name, recomputed[name])}"
            )
    if conflicts:
        raise UsageError("these options disagree: " + "; ".join(conflicts.values()) + " (drop one side)")
    flags = ", ".join(o.flag for o in unused)
    if above:
        return f"unused: {flags} (the values they would change are given, and agree within {AGREEMENT:.0%})"
    return f"unused: {flags} (no result of `calc {spec.name}` reads {'them' if len(unused) > 1 else 'it'})"
