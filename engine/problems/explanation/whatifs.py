"""What-ifs: what a scenario changes, named against the setting shown just above it, and how a
value moved ("memory time halves to 4.4 µs", "falls from 509 ms to 205 ms")."""

from __future__ import annotations

import ast
import math

from perfdrill.engine.model.evaluation import computed
from perfdrill.engine.model.numbers import format_quantity
from perfdrill.engine.model.quantity_text import GIVEN_DIGITS, is_whole, label_of
from perfdrill.engine.model.spoken import SETTING_WORDS
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.explanation.values import value_text
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant

# Values a what-if sets together that name one case, said as that case: one expert used by every
# token is a dense model, not "half the experts per token (1) and experts at 1 instead of 16".
_CASES = {
    (("experts", 1), ("experts_per_token", 1)): "a dense model (one expert, used by every token)",
}


def ratio_words(ratio: float) -> tuple[str, int] | None:
    """("up", k) or ("down", k) for a whole ratio k ≥ 2 either way, else None."""
    for candidate, kind in ((ratio, "up"), (1 / ratio if ratio else math.inf, "down")):
        whole = round(candidate) if math.isfinite(candidate) else 0
        if whole >= 2 and math.isclose(candidate, whole, rel_tol=1e-9):
            return kind, whole
    return None


def changes(
    template: Template, variant: Variant, reference: str | None, scope: str | None, *, brief: bool = False
) -> str:
    """What `scope` changes against `reference`: "twice the memory bandwidth (3.35 TB/s)", or
    `brief`ly, without the new values, to name the scenario inside a formula."""
    changed = [*template.scenarios.get(reference or "", {}), *template.scenarios.get(scope or "", {})]
    before, after = variant.values(reference), variant.values(scope)
    moves: dict[tuple[str, str], list[str]] = {}  # (new, old) shown -> labels: links that move together
    said = swapped(template, variant, scope) if reference != scope else []
    for case, named in _CASES.items():  # a set of values that is one thing: "a dense model"
        if reference is None and all(name in changed and after.get(name) == value for name, value in case):
            said.append(named)
            changed = [name for name in changed if name not in dict(case)]
    for name in dict.fromkeys(changed):
        if moves_with_model(template, scope, name) or moves_with_model(template, reference, name):
            continue  # the model's own figures: its name says them
        if name not in before or name not in after:  # set only in one setting: say its value there
            where = scope if name in after else reference
            shown = value_text(template, variant, name, float(variant.values(where)[name]))
            said.append(f"{label_of(template.workload, name)} = {shown}")
            continue
        old, new = float(before[name]), float(after[name])
        source = set_from(template, scope, name)
        digits = 3 if name in computed(template.workload) or source is not None else GIVEN_DIGITS
        label, shown = label_of(template.workload, name), value_text(template, variant, name, new, digits)
        if math.isclose(old, new, rel_tol=1e-12) and source is None:
            continue  # unchanged; one set from a quantity is still named ("chips = 1 (the fleet chips)")
        path = _math_path(template, scope, name)
        if path is not None:  # "int8 math at the int8 peak", never "twice the peak FLOP/s (624 TFLOP/s)"
            said.append(f"{path} math" + ("" if brief else f" at the {path} peak ({shown} per chip)"))
            continue
        words = SETTING_WORDS.get(name, {})
        if round(new) in words:  # a case in words: "the cache sent over PCIe", never "transfer link = 2"
            clause = words[round(new)]
            was = value_text(template, variant, name, old, digits)
            said.append(clause.partition(" instead of")[0] if brief else clause.format(was=was))
            continue
        if source is not None or len(label) <= 2:  # set from another quantity, or a symbol such as k
            said.append(f"{label} = {shown}" + (f" (the {source})" if source and not brief else ""))
            continue
        ratio = ratio_words(new / old) if old else None
        value = "" if brief else f" ({shown})"
        if ratio == ("up", 2):
            said.append(f"twice the {label}{value}")
        elif ratio == ("down", 2):
            said.append(f"half the {label}{value}")
        elif ratio is not None and ratio[0] == "up":
            said.append(f"{format_quantity(ratio[1], '1')} times the {label}{value}")
        elif brief:
            said.append(f"{label} {shown}")
        else:
            moves.setdefault((shown, value_text(template, variant, name, old, digits)), []).append(label)
    for (shown, was), labels in moves.items():
        said.append(f"{' and '.join(labels)} at {shown} instead of {was}")
    return " and ".join(said)


def _math_path(template: Template, scope: str | None, name: str) -> str | None:
    """The dtype whose peak a scenario runs the math at ("int8" for `peak_flops: int8_peak_flops`)."""
    expression = template.scenarios.get(scope or "", {}).get(name)
    if name != "peak_flops" or expression is None or not isinstance(expression.tree, ast.Name):
        return None
    dtype = expression.tree.id.removesuffix("_peak_flops")
    return dtype if dtype != expression.tree.id else None


def set_from(template: Template, scope: str | None, name: str) -> str | None:
    """The quantity a scenario sets `name` to, when it is another computed one ("best draft
    length") or a count of the template's own ("fleet chips"): then "twice the k" would misread a
    choice as a scaling. Its value reads as that quantity's step showed it, to 3 figures."""
    expression = template.scenarios.get(scope or "", {}).get(name)
    read = {read for _, read in expression.names} if expression is not None else set()
    counts = {d.name for d in template.derived} if is_whole(template.workload, name) else set()
    sources = read & (set(computed(template.workload)) | counts) - {name}
    return label_of(template.workload, sources.pop()) if len(sources) == 1 and read == sources else None


def extends(template: Template, before: str | None, scope: str | None) -> bool:
    """True where the what-if `scope` keeps every value the what-if `before` sets, on the same chip
    and model, and sets more: one request on its own, then that request with its prefix cached."""
    if before is None or scope is None:
        return False
    own, further = template.scenarios.get(before, {}), template.scenarios.get(scope, {})
    return (
        template.scenario_specs.get(before, {}) == template.scenario_specs.get(scope, {})
        and bool(own)
        and set(own) < set(further)
        and all(further[name].text == expression.text for name, expression in own.items())
    )


def swaps_model(template: Template, scope: str | None) -> bool:
    """True for a scenario that swaps in another model (a draft): worked as its own block, since
    "weight bytes falls from 145 GB to 15.2 GB" compares two different models' figures."""
    return "model" in template.scenario_specs.get(scope or "", {})


def moves_with_model(template: Template, scope: str | None, name: str) -> bool:
    """True for a value a model-swapping scenario sets from the template's own derived values
    (the draft's parameter count as the prompt shows it): the model's figure, not a change."""
    expression = template.scenarios.get(scope or "", {}).get(name)
    derived = {d.name for d in template.derived}
    return (
        swaps_model(template, scope)
        and expression is not None
        and bool(expression.names)
        and {read for _, read in expression.names} <= derived
    )


def swapped(template: Template, variant: Variant, scope: str | None) -> list[str]:
    """The chip, model or dtypes a scenario swaps in, named by the parameter that draws it:
    ["the draft model Llama 3.1 8B"], ["the other chip NVIDIA H100 SXM5 80GB"]."""
    pairs = template.scenario_specs.get(scope or "", {}).items()
    return [
        f"the {v.replace('_', ' ')} {key.replace('_', ' ')} {getattr(variant.params.get(v, v), 'name', v)}"
        for key, v in pairs
    ]


def setting(template: Template, variant: Variant, scope: str) -> str:
    """A scenario's own values, for a section worked out first: "bytes per weight = 2 B/param"."""
    values = variant.values(scope)
    said = [
        f"{label_of(template.workload, name)} = {value_text(template, variant, name, float(values[name]))}"
        for name in template.scenarios[scope]
    ]
    return ", ".join(swapped(template, variant, scope) + said)


def moved(template: Template, variant: Variant, step: Step, old: float, was: str | None = None) -> str:
    """How a quantity moved from the value shown above: "memory time halves to 4.4 µs", "largest
    batch falls from 87 to 43"; a whole ratio is named with both values ("grows 16× from 7.58 TFLOP
    to 121 TFLOP"), so the reader can check it against what they just read."""
    ratio = ratio_words(step.value / old) if old else None
    shown_old = was or value_text(template, variant, step.name, old, digits=3)  # as the reader saw it
    if shown_old == step.result:
        return f"{step.label} stays at about {step.result}"  # moved less than its rounding
    if ratio == ("up", 2):
        return f"{step.label} doubles from {shown_old} to {step.result}"
    if ratio == ("down", 2):
        return f"{step.label} halves from {shown_old} to {step.result}"
    if ratio is not None:
        verb = "grows" if ratio[0] == "up" else "falls"
        return f"{step.label} {verb} {format_quantity(ratio[1], '1')}× from {shown_old} to {step.result}"
    verb = "rises" if step.value > old else "falls"
    return f"{step.label} {verb} from {shown_old} to {step.result}"


def scenario_change(template: Template, variant: Variant, scope: str) -> str:
    """What a scenario changes, briefly: "twice the memory bandwidth", "link bandwidth 64 GB/s"."""
    return changes(template, variant, None, scope, brief=True) or "the same inputs"


def back_heading(template: Template, variant: Variant, before: str | None) -> str:
    """The heading back from a what-if: "Back to the question's own values", or where that is a
    case said in words the prompt never states as a value (slo-cost's batch of 1), that case."""
    own, was = variant.values(None), variant.values(before)
    worded = [
        name
        for name in template.scenarios.get(before or "", {})
        if name in own and round(float(own[name])) in SETTING_WORDS.get(name, {}) and own[name] != was[name]
    ]
    if not worded:
        return "Back to the question's own values"
    return f"With {changes(template, variant, before, None)}"
