"""A problem's worked explanation, as a teacher writes one: the conclusion first, the givens, the
shortest working to each asked quantity, and each what-if as only what it changes.

The first section works everything out; every later one (a template's scenario, or the variant
itself after a scenario) names what differs ("With twice the memory bandwidth (3.35 TB/s)") and
lists only the quantities whose values move, in a phrase each ("memory time halves to 4.4 µs"),
with full working only for what a part asks. Each step that answers a part carries its letter.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.evaluation import computed, info
from perfdrill.engine.model.explain import (
    GIVEN_DIGITS,
    Step,
    derivation,
    display,
    label_of,
    phrase,
    renamed,
)
from perfdrill.engine.model.maths import Tree, evaluate, names_in, quantity, word
from perfdrill.engine.model.maths import display as display_node
from perfdrill.engine.model.numbers import format_quantity
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant


@dataclass(frozen=True)
class Given:
    label: str
    value: str  # formatted, number and unit joined by a no-break space


@dataclass(frozen=True)
class Section:
    heading: str  # empty for the first section, else what differs: "With twice the …"
    givens: tuple[Given, ...]
    items: tuple[Step | str, ...]  # steps, and in later sections a phrase for each change
    parts: Mapping[str, str]  # step name -> the letters of the parts it answers ("a", "b, c")


@dataclass(frozen=True)
class Explanation:
    lead: tuple[str, ...]  # the conclusion: one sentence of intuition per regime
    sections: tuple[Section, ...]
    answers: tuple[tuple[str, Step], ...]  # (letter, step) for parts whose answer is an expression


def letters(index: int) -> str:
    return chr(ord("a") + index)


@dataclass
class _Asked:
    """What the parts ask, gathered once: names per scope (single-name answers always a step),
    the part letters and shown answers of single-name answers, and expression answers."""

    wanted: dict[str | None, list[str]] = field(default_factory=dict)
    asked: set[tuple[str | None, str]] = field(default_factory=set)
    tags: dict[tuple[str | None, str], list[str]] = field(default_factory=dict)
    results: dict[tuple[str | None, str], str] = field(default_factory=dict)
    expressions: list[tuple[str, Any, str]] = field(default_factory=list)
    derived: list[tuple[str, str, str]] = field(default_factory=list)  # (letter, name, shown answer)

    def names(self, scope: str | None) -> set[str]:
        return {name for where, name in self.asked if where == scope}


def _asked(template: Template, shown: tuple[str, ...]) -> _Asked:
    table = set(computed(template.workload))
    found = _Asked()
    for index, part in enumerate(template.parts):
        if part.answer is None or part.sweep is not None:
            continue
        for scope, name in sorted(part.answer.names, key=lambda pair: (pair[0] or "", pair[1])):
            if name in table and name not in found.wanted.setdefault(scope, []):
                found.wanted[scope].append(name)
        derived = {d.name for d in template.derived}
        if isinstance(part.answer.tree, ast.Name) and part.answer.text.strip() in derived:
            found.derived.append((letters(index), part.answer.text.strip(), shown[index]))
        elif isinstance(part.answer.tree, ast.Name | ast.Attribute):
            ((scope, name),) = part.answer.names
            found.asked.add((scope, name))
            found.tags.setdefault((scope, name), []).append(letters(index))
            if part.kind == "numeric":
                found.results.setdefault((scope, name), shown[index])
        else:
            found.expressions.append((letters(index), part.answer, shown[index]))
    return found


def explain(
    template: Template, variant: Variant, lead: tuple[str, ...], shown: tuple[str, ...]
) -> Explanation:
    """The explanation of `variant`, led by the `lead` sentences. `shown` holds the part answers
    as the key prints them, so a step that answers a part ends in exactly that answer."""
    asked = _asked(template, shown)
    sections: list[Section] = []
    scopes: list[str | None] = []
    for scope, names in asked.wanted.items():
        if not sections:
            sections.append(_first(template, variant, scope, names, asked))
        else:
            first = (scopes[0], sections[0])
            sections.append(_difference(template, variant, first, scope, names, asked))
        scopes.append(scope)
    answers: list[tuple[str, Step]] = []
    for letter, expression, answer in asked.expressions:
        step = _expression_step(template, variant, expression, answer)
        if step is None:
            continue
        step = replace(step, name=f"({letter})")
        where = {scope for scope, _ in expression.names}
        if len(where) == 1 and (scope := where.pop()) in scopes:
            index = scopes.index(scope)
            sections[index] = _placed(sections[index], step, {name for _, name in expression.names}, letter)
        else:
            answers.append((letter, step))
    answers += _derived_answers(template, variant, asked.derived)
    return Explanation(lead, tuple(sections), tuple(answers))


def _derived_answers(
    template: Template, variant: Variant, wanted: list[tuple[str, str, str]]
) -> list[tuple[str, Step]]:
    """Parts whose answer is the author's own formula (`derived:`): each derived value it rests on
    worked as a named step first, then the answer's step, ending in the key's answer."""
    by_name = {d.name: d for d in template.derived}
    done: set[str] = set()
    worked: list[tuple[str, Step]] = []

    def visit(name: str, letter: str = "", answer: str = "") -> None:
        if name in done:
            return
        done.add(name)
        for _, used in sorted(by_name[name].value.names, key=lambda pair: (pair[0] or "", pair[1])):
            if used in by_name and used != name:
                visit(used)
        step = _derived_step(template, variant, name)
        if step is not None:
            worked.append((letter, replace(step, result=answer) if answer else step))

    for letter, name, answer in wanted:
        visit(name, letter, answer)
    return worked


def _placed(section: Section, step: Step, reads: set[str], letter: str) -> Section:
    """`section` with an answer's `step` right after the last step it reads."""
    items = list(section.items)
    last = max(
        (i for i, item in enumerate(items) if isinstance(item, Step) and item.name in reads), default=-1
    )
    items.insert(last + 1 if last >= 0 else len(items), step)
    return replace(section, items=tuple(items), parts={**section.parts, step.name: letter})


def _binary(template: Template, variant: Variant) -> frozenset[str]:
    """Names shown with binary prefixes: memory a spec quotes in GiB (a TPU's), and a quantity a
    part asks for in KiB or GiB."""
    chips = [value for value in variant.params.values() if hasattr(value, "memory")]
    spec = {"memory_capacity"} if any("iB" in chip.memory.shown for chip in chips) else set()
    asked = {
        name
        for part in template.parts
        if part.kind == "numeric" and part.answer is not None and "iB" in part.unit
        for _, name in part.answer.names
    }
    written = {d.name for d in template.derived if d.unit and "iB" in d.unit}  # `unit: KiB` on a value
    return frozenset(spec | asked | written)


def _units(template: Template) -> dict[str, str]:
    return {d.name: d.unit for d in template.derived if d.unit}


def _working(template: Template, variant: Variant, scope: str | None, names: list[str], asked: _Asked) -> Any:
    values = variant.values(scope)
    for name in names:
        variant.lookup(name, scope)
    given = set(variant.inputs) | (set(template.scenarios[scope]) if scope is not None else set())
    return derivation(
        template.workload,
        names,
        values,
        given,
        binary=_binary(template, variant),
        units=_units(template),
        asked=asked.names(scope),
    )


def _answered(steps: tuple[Step, ...], scope: str | None, asked: _Asked) -> list[Step]:
    """`steps`, each that answers a numeric part ending in the answer exactly as the key prints it
    (in the part's unit, KiB where it asks KiB)."""
    return [
        replace(step, result=asked.results[(scope, step.name)])
        if (scope, step.name) in asked.results and step.formula is not None
        else step
        for step in steps
    ]


def _first(
    template: Template, variant: Variant, scope: str | None, names: list[str], asked: _Asked
) -> Section:
    working = _working(template, variant, scope, names, asked)
    values = variant.values(scope)
    unshown = _unshown_derived(template)
    givens: list[Given] = []
    derived: list[Step] = []
    for name in working.givens:
        if name in unshown:
            step = _derived_step(template, variant, name)
            if step is not None:
                derived.append(step)
                continue
        givens.append(Given(label_of(template.workload, name), _value(template, variant, name, values[name])))
    heading = "" if scope is None else f"With {_setting(template, variant, scope)}"
    steps = _answered(working.steps, scope, asked)
    return Section(heading, tuple(givens), (*derived, *steps), _letters(asked.tags, scope))


def _difference(
    template: Template,
    variant: Variant,
    first: tuple[str | None, Section],
    scope: str | None,
    names: list[str],
    asked: _Asked,
) -> Section:
    """A later section: what moves against the `first` (scope, section), in a phrase each, with
    full working only for what a part asks, then whether the regime still holds."""
    reference, reference_section = first
    working = _working(template, variant, scope, names, asked)
    before = variant.values(reference)
    items: list[Step | str] = []
    for step in _answered(working.steps, scope, asked):
        old = before.get(step.name)
        if step.name in asked.names(scope) or old is None:
            items.append(step)
        elif not math.isclose(float(old), step.value, rel_tol=1e-9):
            items.append(_moved(template, variant, step, float(old)))
        elif step.name in names:  # a what-if a part compares against: say that it does not move
            items.append(f"{step.label} stays {step.result}")
    shown_before = {item.name for item in reference_section.items if isinstance(item, Step)}
    path = {step.name for step in working.steps} | set(working.givens)
    for name in computed(template.workload):
        meta = info(template.workload, name)
        if meta.labels is None or name in asked.names(scope) or not set(meta.args) <= path:
            continue
        if name not in shown_before and not name.endswith("bound"):
            continue  # only what the first section showed, and the roofline's verdict
        old, new = variant.lookup(name, reference), variant.lookup(name, scope)
        said = phrase(template.workload, name, new)
        items.append(f"still {said}" if round(float(old)) == round(float(new)) else f"now {said}")
    heading = f"With {_changes(template, variant, reference, scope)}"
    return Section(heading, (), tuple(items), _letters(asked.tags, scope))


def _letters(tags: Mapping[tuple[str | None, str], list[str]], scope: str | None) -> dict[str, str]:
    return {name: ", ".join(found) for (where, name), found in tags.items() if where == scope}


def _ratio_words(ratio: float) -> tuple[str, int] | None:
    """("up", k) or ("down", k) for a whole ratio k ≥ 2 either way, else None."""
    for candidate, kind in ((ratio, "up"), (1 / ratio if ratio else math.inf, "down")):
        whole = round(candidate) if math.isfinite(candidate) else 0
        if whole >= 2 and math.isclose(candidate, whole, rel_tol=1e-9):
            return kind, whole
    return None


def _changes(
    template: Template, variant: Variant, reference: str | None, scope: str | None, *, brief: bool = False
) -> str:
    """What `scope` changes against `reference`: "twice the memory bandwidth (3.35 TB/s)", or
    `brief`ly, without the new values, to name the scenario inside a formula."""
    changed = [*template.scenarios.get(reference or "", {}), *template.scenarios.get(scope or "", {})]
    before, after = variant.values(reference), variant.values(scope)
    moves: dict[tuple[str, str], list[str]] = {}  # (new, old) shown -> labels: links that move together
    said = _swapped(template, variant, scope)
    for name in dict.fromkeys(changed):
        old, new = float(before[name]), float(after[name])
        digits = 3 if name in computed(template.workload) else GIVEN_DIGITS
        label, shown = label_of(template.workload, name), _value(template, variant, name, new, digits)
        if math.isclose(old, new, rel_tol=1e-12):
            continue
        source = _set_from(template, scope, name)
        if source is not None or len(label) <= 2:  # set from another quantity, or a symbol such as k
            said.append(f"{label} = {shown}" + (f" (the {source})" if source and not brief else ""))
            continue
        ratio = _ratio_words(new / old) if old else None
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
            moves.setdefault((shown, _value(template, variant, name, old, digits)), []).append(label)
    for (shown, was), labels in moves.items():
        said.append(f"{' and '.join(labels)} at {shown} instead of {was}")
    return " and ".join(said) or "the same inputs"


def _set_from(template: Template, scope: str | None, name: str) -> str | None:
    """The quantity a scenario sets `name` to, when it is another computed one ("best draft
    length"): then "twice the k" would misread a choice as a scaling."""
    expression = template.scenarios.get(scope or "", {}).get(name)
    read = {read for _, read in expression.names} if expression is not None else set()
    sources = read & set(computed(template.workload)) - {name}
    return label_of(template.workload, sources.pop()) if len(sources) == 1 and read == sources else None


def _swapped(template: Template, variant: Variant, scope: str | None) -> list[str]:
    """The chip, model or dtypes a scenario swaps in, as read: ["the model Llama 3.1 8B"]."""
    swapped = template.scenario_specs.get(scope or "", {}).items()
    return [
        f"the {key.replace('_', ' ')} {getattr(variant.params.get(v, v), 'name', v)}" for key, v in swapped
    ]


def _setting(template: Template, variant: Variant, scope: str) -> str:
    """A scenario's own values, for a section worked out first: "bytes per weight = 2 B/param"."""
    values = variant.values(scope)
    return ", ".join(
        _swapped(template, variant, scope)
        + [
            f"{label_of(template.workload, name)} = {_value(template, variant, name, float(values[name]))}"
            for name in template.scenarios[scope]
        ]
    )


def _moved(template: Template, variant: Variant, step: Step, old: float) -> str:
    """How a quantity moved: "memory time halves to 4.4 µs", "largest batch falls from 87 to 43"."""
    ratio = _ratio_words(step.value / old) if old else None
    shown_old = _value(template, variant, step.name, old, digits=3)
    if ratio == ("up", 2):
        return f"{step.label} doubles to {step.result}"
    if ratio == ("down", 2):
        return f"{step.label} halves to {step.result}"
    if ratio is not None:
        verb = "grows" if ratio[0] == "up" else "falls"
        return f"{step.label} {verb} {format_quantity(ratio[1], '1')}× to {step.result}"
    verb = "rises" if step.value > old else "falls"
    return f"{step.label} {verb} from {shown_old} to {step.result}"


def _value(template: Template, variant: Variant, name: str, value: float, digits: int = GIVEN_DIGITS) -> str:
    """A value as the explanation shows it: a given to four figures (a spec's 1.555 TB/s), a
    worked-out quantity (`digits` 3) as its step shows it."""
    try:
        return display(
            template.workload,
            name,
            value,
            binary=name in _binary(template, variant),
            unit=_units(template).get(name),
            digits=digits,
        )
    except PerfdrillError:  # a template parameter the engine does not know
        return format_quantity(float(value), "1", digits=digits)


def _unshown_derived(template: Template) -> set[str]:
    """Derived values no prompt text shows (`given.name`): the explanation works them out."""
    texts = " ".join([template.prompt, *(part.prompt for part in template.parts), *template.hints])
    return {d.name for d in template.derived if f"given.{d.name}" not in texts}


def _derived_step(template: Template, variant: Variant, name: str) -> Step | None:
    derived = next(d for d in template.derived if d.name == name)
    step = _expression_step(
        template, variant, derived.value, _value(template, variant, name, variant.inputs[name])
    )
    if step is None:
        return None
    return Step(
        name, label_of(template.workload, name), step.formula, step.substituted, step.result, step.value
    )


def _expression_step(template: Template, variant: Variant, expression: Any, result: str) -> Step | None:
    """A template expression worked out: `formula = values = result`, or None for one that is not
    plain arithmetic (a comparison or a condition)."""
    tree = _tree(expression.tree)
    if tree is None:
        return None
    workload = template.workload

    def name_of(key: str) -> str:
        scope, _, name = key.rpartition(":")
        variant.lookup(name, scope or None)  # what it rests on, in a scenario no part asked about
        title = label_of(workload, renamed(workload, name, variant.values(scope or None)))
        if scope and name in template.scenarios[scope]:
            return f"{title} in the what-if"  # not "KV cache per token with twice the KV cache per token"
        return f"{title} {_scenario_words(template, variant, scope or None)}".strip()

    keys = names_in(tree)
    values = {
        key: float(variant.lookup(key.rpartition(":")[2], key.rpartition(":")[0] or None)) for key in keys
    }
    digits = {key: 3 if key.rpartition(":")[2] in computed(workload) else GIVEN_DIGITS for key in keys}
    value = float(expression.evaluate(variant.lookup))
    extra = _extra_digits(tree, values, digits, value)

    def value_of(key: str) -> Any:
        name = key.rpartition(":")[2]
        if _categorical(workload, name):  # a yes/no quantity counts as 1 or 0 inside arithmetic
            return quantity(format_quantity(values[key], "1"))
        return quantity(_value(template, variant, name, values[key], digits=digits[key] + extra))

    formula = display_node(tree, lambda key: word(name_of(key)))
    substituted = display_node(tree, value_of) if keys and not isinstance(tree, str) else None
    return Step("", "", formula, substituted, result, value)


def _extra_digits(tree: Tree, values: Mapping[str, float], digits: Mapping[str, int], value: float) -> int:
    """Figures to add to every value a step shows so that the values as printed still give its
    result within 1%: the difference of two near-equal times (948.45 ms − 948.26 ms) needs more."""
    scale = max((abs(v) for v in values.values()), default=0.0)
    for extra in range(5):
        rounded = {key: float(f"{v:.{digits[key] + extra - 1}e}") for key, v in values.items()}
        try:
            face = float(evaluate(tree, rounded))
        except (ArithmeticError, ValueError):
            return 0
        if math.isclose(face, value, rel_tol=0.01, abs_tol=1e-12 * scale):
            return extra
    return 0


def _categorical(workload: str, name: str) -> bool:
    """True for a categorical quantity of the engine (yes/no, compute/memory)."""
    return name in computed(workload) and info(workload, name).labels is not None


def scenario_change(template: Template, variant: Variant, scope: str) -> str:
    """What a scenario changes, briefly: "twice the memory bandwidth", "link bandwidth 64 GB/s"."""
    return _changes(template, variant, None, scope, brief=True)


def _scenario_words(template: Template, variant: Variant, scope: str | None) -> str:
    return "" if scope is None else f"with {scenario_change(template, variant, scope)}"


_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "^",
}


def _tree(node: ast.expr) -> Tree | None:
    """A template expression's syntax as a formula tree (names as "scope:name"), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        return f":{node.id}"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}:{node.attr}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _tree(node.operand)
        return None if inner is None else ("*", -1, inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _tree(node.left), _tree(node.right)
        if left is None or right is None:
            return None
        kind = _OPERATORS[type(node.op)]
        if kind == "-":
            return ("+", left, ("*", -1, right))
        if kind == "/":
            return ("*", left, ("^", right, -1))
        return ("+" if kind == "+" else "*" if kind == "*" else "^", left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_tree(arg) for arg in node.args]
        return None if any(arg is None for arg in args) else (node.func.id, *args)
    return None
