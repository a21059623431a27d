"""The working, part by part in the order asked: each part gets the steps it still needs, then its
answer. A part set in a what-if opens a section named against the setting shown just above it,
where a value that moves is said against the value the reader just read."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, replace
from typing import Any

from perfdrill.engine.model.display_nodes import quantity
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.numbers import format_quantity
from perfdrill.engine.model.quantity_text import label_of
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.explanation.model import letter
from perfdrill.engine.problems.explanation.sections import Draft, Sections
from perfdrill.engine.problems.explanation.steps import (
    derived_step,
    expression_step,
    reads_what_if,
)
from perfdrill.engine.problems.explanation.values import (
    unshown_derived,
    value_text,
    what_if_value,
)
from perfdrill.engine.problems.explanation.whatifs import (
    moved,
    swaps_model,
)
from perfdrill.engine.problems.templates import Part
from perfdrill.engine.problems.variants import Variant


@dataclass
class Working(Sections):
    """The sections of one explanation, built part by part."""

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

    def _above(self, draft: Draft) -> Any:
        """The scope of the section just above `draft` (what a what-if is said against), if any."""
        index = self.drafts.index(draft)
        if index == 0:
            return _NONE
        above = self.drafts[index - 1].scope
        if swaps_model(self.template, draft.scope):
            return _NONE  # another model: its own block, worked in full
        if draft.scope is None:
            return _NONE  # back to the question's own values: what it never showed is worked, not moved
        # every what-if changes the question's own set-up, so one after another is said against it
        return None if above is not None and draft.scope not in (None, above) else above


_NONE = object()  # no section above: the first is worked in full
