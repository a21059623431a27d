"""The working, part by part in the order asked: each part gets the steps it still needs, then its
answer. A part set in a what-if opens a section named against the setting shown just above it,
where a value that moves is said against the value the reader just read."""

from __future__ import annotations

import ast
import math
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.explain import Derivation, Step, derivation, label_of
from perfdrill.engine.model.generated_display import VALUE_WORDS
from perfdrill.engine.model.maths import quantity
from perfdrill.engine.model.numbers import NBSP, format_quantity
from perfdrill.engine.problems.explanation.model import Given, Section, letter
from perfdrill.engine.problems.explanation.steps import (
    decimal_step,
    derated_step,
    derived_step,
    expression_step,
    input_step,
    reads_what_if,
    settled,
)
from perfdrill.engine.problems.explanation.values import (
    EVERY_SCOPE,
    as_prompted,
    how_shown,
    unshown_derived,
    value_text,
    what_if_value,
)
from perfdrill.engine.problems.explanation.whatifs import (
    back_heading,
    changes,
    moved,
    moves_with_model,
    set_from,
    setting,
    swaps_model,
)
from perfdrill.engine.problems.templates import Part, Template
from perfdrill.engine.problems.variants import Variant


@dataclass
class _Draft:
    scope: str | None
    heading: str
    givens: list[Given] = field(default_factory=list)
    items: list[Step | str] = field(default_factory=list)
    parts: dict[str, str] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)  # names this section already shows or moves


@dataclass
class Working:
    """The sections of one explanation, built part by part."""

    template: Template
    variant: Variant
    answers: tuple[str, ...]  # each part's answer as the key prints it
    prompt: str = ""  # the rendered prompt, whose way of writing a given the givens keep
    drafts: list[_Draft] = field(default_factory=list)
    texts: dict[str | None, dict[str, str]] = field(default_factory=dict)  # scope -> name -> shown
    pending: list[str] = field(default_factory=list)  # derived values waiting for a what-if they read
    worked: dict[str | None, set[str]] = field(default_factory=dict)  # scope -> names worked as steps

    def sections(self) -> tuple[Section, ...]:
        return tuple(
            Section(d.heading, tuple(d.givens), tuple(d.items), d.parts)
            for d in self.drafts
            if d.items or d.givens
        )

    def shown(self, scope: str | None, name: str) -> str | None:
        return self.texts.get(scope, {}).get(name)

    # --- the parts ---------------------------------------------------------------------------

    def part(self, index: int, part: Part) -> None:
        """Work part `index`: its missing steps, then its answer, marked with its letter."""
        label, answer = letter(index), part.answer
        if answer is None:
            return  # a choice fixed by the author: nothing to work out
        if part.sweep is not None:
            self._sweep(label, part)
            return
        derived = {d.name for d in self.template.derived}
        text = answer.text.strip()
        if isinstance(answer.tree, ast.Name) and text in derived:
            self._derived(label, text)
        elif isinstance(answer.tree, ast.Name | ast.Attribute):
            ((scope, name),) = answer.names
            if name in computed(self.template.workload) and name not in self.variant.inputs:
                self._work(scope, [name], label)
            else:
                self._given_answer(scope, name, label, self.answers[index])
        else:
            self._expression(label, answer, self.answers[index], part.unit, part.label)

    def _work(self, scope: str | None, names: list[str], letter: str = "") -> None:
        """Steps for `names` in `scope` that no earlier line of that scope showed; a step for a
        name a part asks ends in the key's answer."""
        self._enter(scope)
        names = [name for name in names if name in computed(self.template.workload)]
        if not names:
            return
        draft = self.drafts[-1]
        if scope is not None and swaps_model(self.template, scope):
            self._givens(draft, names)  # its own block: every figure of the model it reads
        texts = self.texts.setdefault(scope, {})
        if letter:
            for name in names:
                texts[name] = self._key_text(scope, name, texts.get(name))
        working = self._derive(self.variant, scope, names, asked=set(names) if letter else set())
        if self.pending and set(working.givens) & set(self.pending):
            self._resolve(set(working.givens))
            self._enter(scope)
            draft = self.drafts[-1]
        above = self._above(draft)
        for step in working.steps:
            asked = bool(letter) and step.name in names
            if asked and step.name in self.worked.setdefault(scope, set()):
                self._read_off(step, letter)  # worked above for an earlier part: read it off
                continue
            if step.name in draft.said and not asked:
                continue  # this section already has it
            draft.said.add(step.name)
            if asked:
                draft.parts[step.name] = letter
            elif above is not _NONE and step.name in texts:
                continue  # back to a setting worked above: the reader has its values
            elif above is not _NONE and step.name in self.texts.get(above, {}):
                old = float(self.variant.lookup(step.name, above))
                if math.isclose(old, step.value, rel_tol=1e-9):
                    texts.setdefault(step.name, self.texts[above][step.name])
                    if step.name in names:  # what the part reads: say it stays, so the reader has it
                        draft.items.append(f"{step.label} stays at {texts[step.name]}")
                    continue  # the same as in the section just above
                texts[step.name] = step.result
                was = self.texts[above][step.name]
                draft.items.append(moved(self.template, self.variant, step, old, was))
                continue
            elif step.name in texts:
                continue  # shown earlier in this setting
            elif (earlier := self._same_value_shown(step, scope)) is not None:
                texts[step.name] = earlier
                continue  # the reader has this value from an earlier section
            texts.setdefault(step.name, step.result)
            self.worked.setdefault(scope, set()).add(step.name)
            draft.items.append(step)

    def _same_value_shown(self, step: Step, here: str | None) -> str | None:
        """How an earlier section showed `step`'s quantity with the same value from the same
        inputs, if one did; a value that only comes out the same (twice the batch at half the
        bytes per element moves as many bytes) is worked again, from this setting's inputs."""
        args = self._inputs_of(step.name)
        for scope, texts in self.texts.items():
            if step.name in texts:
                value = float(self.variant.lookup(step.name, scope))
                same_inputs = all(
                    math.isclose(
                        float(self.variant.lookup(arg, scope)), float(self.variant.lookup(arg, here))
                    )
                    for arg in args
                )
                if same_inputs and math.isclose(value, step.value, rel_tol=1e-9):
                    return texts[step.name]
        return None

    def _inputs_of(self, name: str) -> set[str]:
        """The inputs a computed quantity reads, through every quantity between."""
        table, found, todo = computed(self.template.workload), set(), [name]
        while todo:
            for arg in info(self.template.workload, todo.pop()).args:
                if arg in table and arg not in found:
                    todo.append(arg)
                found.add(arg)
        return found

    def _key_text(self, scope: str | None, name: str, current: str | None) -> str:
        """The key's answer for a numeric part asking `name` in `scope`, else what was shown."""
        for index, part in enumerate(self.template.parts):
            answer = part.answer
            plain = answer is not None and isinstance(answer.tree, ast.Name | ast.Attribute)
            if part.kind == "numeric" and plain and answer is not None and answer.names == {(scope, name)}:
                return self.answers[index]
        value = float(self.variant.lookup(name, scope))
        return current or value_text(self.template, self.variant, name, value, 3)

    def _given_answer(self, scope: str | None, name: str, letter: str, answer: str) -> None:
        """A part that asks for a value the question supplies (a chip's NIC bandwidth): read off."""
        self._enter(scope)
        if name in self.worked.get(scope, set()) and name in self.drafts[-1].said:  # derated just above
            self.drafts[-1].parts[name] = letter
            return
        label = label_of(self.template.workload, name)
        self._read_off(Step(name, label, None, None, answer, float(self.variant.lookup(name, scope))), letter)

    def _read_off(self, step: Step, letter: str) -> None:
        """`label = answer` for part `letter`, a value the reader already has."""
        name = f"{step.name}@{letter}"
        read = Step(name, step.label, quantity(step.result), None, step.result, step.value)
        self.drafts[-1].items.append(read)
        self.drafts[-1].parts[name] = letter

    def _expression(self, letter: str, answer: Any, result: str, unit: str, title: str = "") -> None:
        """An answer the template writes as arithmetic: what it reads worked first, in its own
        setting, then the expression itself with the values as shown."""
        by_scope: dict[str | None, list[str]] = {}
        for scope, name in sorted(answer.names, key=lambda pair: (pair[0] or "", pair[1])):
            by_scope.setdefault(scope, []).append(name)
        self._resolve({name for _, name in answer.names})
        current = self.drafts[-1].scope if self.drafts else None
        # the setting the reader is in first, so the working bounces between sections least
        for scope in sorted(by_scope, key=lambda s: (s != current, s is not None, s or "")):
            if not set(by_scope[scope]) <= set(self.texts.get(scope, {})):  # else: all shown above
                self._work(scope, by_scope[scope])
        if not self.drafts:
            self._enter(None)
        self._list_prompted(answer.names)
        step = expression_step(self.template, self.variant, answer, result, self.shown, unit)
        if step is None:
            return
        step = replace(step, name=f"({letter})", label=title)  # the part's `label`, if it has one
        self.drafts[-1].items.append(step)
        self.drafts[-1].parts[step.name] = letter

    def _derived(self, letter: str, name: str) -> None:
        """A part whose answer is the template's own formula (`derived:`), ending in the key's answer."""
        self._emit_derived(name, letter, self.answers[ord(letter) - ord("a")])

    def _emit_derived(self, name: str, letter: str = "", answer: str = "") -> None:
        """A derived value worked as a step, after what it reads: other derived values, the
        question's own quantities, and a what-if's (the draft model's step time) in its section."""
        by_name = {d.name: d for d in self.template.derived}
        if name in self.texts.get(None, {}) and not letter:
            return
        if name in self.pending:
            self.pending.remove(name)  # before working what it reads, which may ask for it again
        for scope, used in sorted(by_name[name].value.names, key=lambda pair: (pair[0] or "", pair[1])):
            if used in by_name and used != name and used in unshown_derived(self.template):
                self._emit_derived(used)
            elif scope is not None and used not in self.texts.get(scope, {}):
                back = self.drafts[-1].scope if self.drafts else None
                self._work(scope, [used])
                if what_if_value(by_name[name].value) is None:
                    self._enter(back)  # else read off in the what-if it names, under its line
        if name in self.texts.get(None, {}) and not letter:
            return  # worked while working what it reads
        self._enter(self.drafts[-1].scope if self.drafts else None)
        self._list_prompted(by_name[name].value.names)
        step = derived_step(self.template, self.variant, name, self.shown, answer if letter else "")
        if step is None:
            return
        if letter:
            self.drafts[-1].parts[step.name] = letter
        self.texts.setdefault(None, {})[name] = step.result
        self.texts.setdefault(self.drafts[-1].scope, {})[name] = step.result
        self.drafts[-1].items.append(step)

    def _sweep(self, letter: str, part: Part) -> None:
        """A select-all part over values of one input: each option worked in turn, what changes
        with it and the verdict that decides it."""
        assert part.answer is not None and part.sweep is not None
        names = [name for _, name in sorted(part.answer.names, key=lambda pair: (pair[0] or "", pair[1]))]
        self._work(None, [])
        draft = self.drafts[-1]
        label = label_of(self.template.workload, part.sweep)
        unit = INPUTS.get(part.sweep, (part.sweep_unit,))[0]
        worked: list[tuple[str, list[Step]]] = []
        for value in part.sweep_values:
            swept = Variant(self.template, self.variant.params, {**self.variant.inputs, part.sweep: value})
            option_steps = self._derive(swept, None, names, asked=set(names), option=True).steps
            worked.append((f"{label} {format_quantity(value, unit)}", list(option_steps)))
        first = worked[0][1]
        common = [  # the same for every option: worked once, before the options
            step
            for index, step in enumerate(first)
            if step.name not in names
            and all(
                len(steps) == len(first) and math.isclose(steps[index].value, step.value)
                for _, steps in worked
            )
        ]
        texts = self.texts.setdefault(None, {})
        for step in common:
            if step.name not in texts:
                draft.items.append(step)
                texts[step.name] = step.result
        shared = {step.name for step in common}
        for option, steps in worked:
            for step in steps:
                if step.name in shared:
                    continue
                name = f"{step.name}@{option}"
                draft.items.append(replace(step, name=name, label=f"{step.label} at {option}"))
                if step.name in names:
                    draft.parts[name] = letter

    # --- sections ------------------------------------------------------------------------------

    def _enter(self, scope: str | None) -> None:
        """Open a section for `scope` unless the last one works in it."""
        if self.drafts and self.drafts[-1].scope == scope:
            return
        self._work_sources(scope)
        if self.drafts and not self.drafts[-1].items and not self.drafts[-1].givens:
            self.drafts.pop()  # opened for nothing: the reader never saw it
            self._enter(scope)
            return
        if not self.drafts:  # a what-if first is still said against the question's own values
            said = changes(self.template, self.variant, None, scope) if scope is not None else ""
            heading = "" if scope is None else f"With {said or setting(self.template, self.variant, scope)}"
        else:
            before = self.drafts[-1].scope
            if scope is None:
                heading = back_heading(self.template, self.variant, before)
            else:  # a what-if as the question tells it, and what goes back to the question's own
                said = changes(self.template, self.variant, None, scope) or setting(
                    self.template, self.variant, scope
                )
                heading = f"With {said}{self._reverted(before, scope)}"
        draft = _Draft(scope, heading)
        self.drafts.append(draft)
        self._givens(draft)

    def _work_sources(self, scope: str | None) -> None:
        """What a what-if sets its values from, worked in the question's own setting first: the
        0.5 B + 2 B ÷ 32 of an int4 cache with its scales is the point of the part, never a value
        the heading merely states."""
        sources = [
            read
            for expression in self.template.scenarios.get(scope or "", {}).values()
            for where, read in sorted(expression.names, key=lambda pair: (pair[0] or "", pair[1]))
            if where is None and read in computed(self.template.workload) and read not in self.variant.inputs
        ]
        if sources and not set(sources) <= set(self.texts.get(None, {})):
            self._work(None, sources)
            self._givens(self.drafts[-1], sources)

    def _reverted(self, before: str | None, scope: str) -> str:
        """ ", and the question's own peak FLOP/s (312 TFLOP/s)": what the section above changed
        and this one does not."""
        if before is None:
            return ""
        own = self.variant.values(None)
        names = [
            name
            for name in self.template.scenarios.get(before, {})
            if name not in self.template.scenarios.get(scope, {}) and name in own
        ]
        back = [
            f"{label_of(self.template.workload, name)} "
            f"({value_text(self.template, self.variant, name, float(own[name]))})"
            for name in names
        ]
        return f", and the question's own {' and '.join(back)}" if back else ""

    def _givens(self, draft: _Draft, worked: list[str] | None = None) -> None:
        """The givens a section's steps will read (those of the parts asked in it, and any names
        `worked` there) that no earlier section listed, as the prompt shows them; a derived value
        no prompt shows is worked as a step instead."""
        scope = draft.scope
        names = list(dict.fromkeys([*self._wanted(scope), *(worked or [])]))
        working = self._derive(self.variant, scope, names, asked=set())
        listed = {  # what earlier sections showed with the value this one reads
            name: text
            for where, texts in self.texts.items()
            for name, text in texts.items()
            if math.isclose(float(self.variant.lookup(name, where)), float(self.variant.lookup(name, scope)))
        }
        texts = self.texts.setdefault(scope, {})
        changed = {  # named by the section's heading; a swapped model's own figures are listed
            name
            for name in self.template.scenarios.get(scope or "", {})
            if not moves_with_model(self.template, scope, name)
        }
        unshown = unshown_derived(self.template)
        set_here = set(self.template.scenarios.get(scope or "", {}))  # a what-if's own value, no step
        values = self.variant.values(scope)
        for name in working.givens:
            if name in changed and scope is not None and set_from(self.template, scope, name):
                value = float(values[name])  # as the heading says it, and the step above showed it
                texts.setdefault(name, value_text(self.template, self.variant, name, value, 3))
            if name in texts or name in changed:
                continue  # listed, or named by the section's heading
            if name in listed:
                texts[name] = listed[name]  # listed or worked in an earlier section, unchanged
                continue
            if name in unshown and name not in set_here:  # worked where a step first reads it
                self.pending.append(name)
                continue
            derated = (
                derated_step(
                    self.template,
                    self.variant,
                    name,
                    lambda x: as_prompted(x, self.prompt, NBSP),
                    self.prompt,
                )
                if scope is None
                else None
            )
            if derated is None and scope is None:  # an input worked out from what the prompt states
                derated = input_step(self.template, self.variant, name, self.shown, self.prompt)
            if derated is not None:  # worked, so the reader sees where the efficiency enters
                texts[name] = derated.result
                self.worked.setdefault(scope, set()).add(name)
                draft.said.add(name)
                draft.items.append(derated)
                continue
            shown = value_text(self.template, self.variant, name, float(values[name]))
            texts[name] = as_prompted(
                shown, self.prompt, NBSP
            )  # an MFU the prompt calls 40% is 40 % in the steps too
            clause = VALUE_WORDS.get(name, {}).get(round(float(values[name])))
            if clause is not None:  # a case the question sets in words: "the cache crosses the network"
                draft.items.insert(0, f"{clause[:1].upper()}{clause[1:]}.")
                continue
            draft.givens.append(
                Given(label_of(self.template.workload, name), as_prompted(shown, self.prompt, ""))
            )
            converted = decimal_step(self.template, self.variant, name)
            if converted is not None:  # GiB never added to GB unconverted
                texts[name] = converted.result
                self.worked.setdefault(scope, set()).add(name)
                draft.items.append(converted)

    def _list_prompted(self, names: Collection[tuple[str | None, str]]) -> None:
        """List among the givens each `derived:` value the prompt shows (the MAMF) that a step
        reads and no line showed yet, as the prompt shows it."""
        prompted = {d.name for d in self.template.derived} - unshown_derived(self.template)
        texts = self.texts.setdefault(None, {})
        for scope, name in sorted(names, key=lambda pair: (pair[0] or "", pair[1])):
            if scope is None and name in prompted and name not in texts:
                shown = value_text(self.template, self.variant, name, float(self.variant.lookup(name, None)))
                texts[name] = as_prompted(shown, self.prompt, NBSP)
                label = label_of(self.template.workload, name)
                self.drafts[-1].givens.append(Given(label, as_prompted(shown, self.prompt, "")))

    def _reads_unshown_what_if(self, name: str) -> bool:
        by_name = {d.name: d for d in self.template.derived}
        return any(
            (scope is not None and used not in self.texts.get(scope, {}))
            or (used in by_name and used != name and self._reads_unshown_what_if(used))
            for scope, used in by_name[name].value.names
        )

    def flush(self) -> None:
        """Work each derived value that waited for a what-if, once that what-if is shown; any other
        waits for the step that first reads it (bytes per weight after (a)'s bits per weight)."""
        for name in list(self.pending):
            if self.drafts and reads_what_if(self.template, name) and not self._reads_unshown_what_if(name):
                self._emit_derived(name)

    def _resolve(self, names: set[str]) -> None:
        """Work the waiting derived values among `names` now, what-if and all: a step reads them."""
        for name in [name for name in self.pending if name in names]:
            self._emit_derived(name)

    def _wanted(self, scope: str | None) -> list[str]:
        """Every computed name a part reads in `scope` (a sweep's in the question's own)."""
        table = set(computed(self.template.workload))
        found: list[str] = []
        for part in self.template.parts:
            if part.answer is None:
                continue
            for where, name in sorted(part.answer.names, key=lambda pair: (pair[0] or "", pair[1])):
                if where == scope and name in table and name not in found:
                    found.append(name)
        return found

    def _above(self, draft: _Draft) -> Any:
        """The scope of the section just above `draft` (what a what-if is said against), if any."""
        index = self.drafts.index(draft)
        if index == 0:
            return _NONE
        above = self.drafts[index - 1].scope
        if swaps_model(self.template, draft.scope):
            return _NONE  # another model: its own block, worked in full
        # every what-if changes the question's own set-up, so one after another is said against it
        return None if above is not None and draft.scope not in (None, above) else above

    def _derive(
        self, variant: Variant, scope: str | None, names: list[str], *, asked: set[str], option: bool = False
    ) -> Derivation:
        values = variant.values(scope)
        for name in names:
            variant.lookup(name, scope)
        given = set(variant.inputs) | (set(self.template.scenarios[scope]) if scope is not None else set())
        shown = self.texts.get(scope, {})
        if option:  # a swept option reads its own values, but a given worked above (GiB as GB) stays so
            shown = {name: text for name, text in shown.items() if name in self.worked.get(scope, set())}
        return derivation(
            self.template.workload,
            names,
            values,
            given,
            asked=asked,
            shown=shown,
            settled=settled(self.template, variant, self.prompt, given, scope),
            # a swapped model's values are its own: the unit a part asks the target's in is not theirs
            **how_shown(
                self.template, self.variant, scope if swaps_model(self.template, scope) else EVERY_SCOPE
            ),
        )


_NONE = object()  # no section above: the first is worked in full
