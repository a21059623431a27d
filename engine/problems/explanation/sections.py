"""The sections of a worked solution: the question's own setting and each what-if, each opened
with a heading said against the setting above it and with the givens its steps read, as the prompt
shows them (a value the prompt does not state is worked as a step instead)."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass, field

from perfdrill.engine.model.evaluation import computed
from perfdrill.engine.model.explain import Derivation, derivation
from perfdrill.engine.model.generated_display import VALUE_WORDS
from perfdrill.engine.model.numbers import NBSP
from perfdrill.engine.model.quantity_text import label_of
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.explanation.model import Given, Section
from perfdrill.engine.problems.explanation.steps import decimal_step, derated_step, input_step, settled
from perfdrill.engine.problems.explanation.values import (
    EVERY_SCOPE,
    as_prompted,
    how_shown,
    unshown_derived,
    value_text,
)
from perfdrill.engine.problems.explanation.whatifs import (
    back_heading,
    changes,
    extends,
    moves_with_model,
    set_from,
    setting,
    swaps_model,
)
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant


@dataclass
class Draft:
    """A section as it is built: its heading, givens and steps, and which part each answer ends."""

    scope: str | None
    heading: str
    givens: list[Given] = field(default_factory=list)
    items: list[Step | str] = field(default_factory=list)
    parts: dict[str, str] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)  # names this section already shows or moves


@dataclass
class Sections(ABC):
    """The sections of one explanation and what each has shown; `Working` fills them part by part."""

    template: Template
    variant: Variant
    answers: tuple[str, ...]  # each part's answer as the key prints it
    prompt: str = ""  # the rendered prompt, whose way of writing a given the givens keep
    drafts: list[Draft] = field(default_factory=list)
    texts: dict[str | None, dict[str, str]] = field(default_factory=dict)  # scope -> name -> shown
    pending: list[str] = field(default_factory=list)  # derived values waiting for a what-if they read
    worked: dict[str | None, set[str]] = field(default_factory=dict)  # scope -> names worked as steps

    @abstractmethod
    def _work(self, scope: str | None, names: list[str], letter: str = "") -> None:
        """Work `names` in `scope` as steps (the part's answer marked with `letter`)."""

    def sections(self) -> tuple[Section, ...]:
        return tuple(
            Section(d.heading, tuple(d.givens), tuple(d.items), d.parts)
            for d in self.drafts
            if d.items or d.givens
        )

    def shown(self, scope: str | None, name: str) -> str | None:
        return self.texts.get(scope, {}).get(name)

    def _enter(self, scope: str | None) -> None:
        """Open a section for `scope` unless the last one works in it."""
        if self.drafts and self.drafts[-1].scope == scope:
            return
        self._work_sources(scope)
        if self.drafts and not self.drafts[-1].items and not self.drafts[-1].givens:
            self.drafts.pop()  # opened for nothing: the reader never saw it
            self._enter(scope)
            return
        if not self.drafts:  # a what-if first is a case of its own: "With one request on its own"
            said = changes(self.template, self.variant, None, scope, brief=True) if scope is not None else ""
            heading = "" if scope is None else f"With {said or setting(self.template, self.variant, scope)}"
        else:
            before = self.drafts[-1].scope
            if scope is None:
                heading = back_heading(self.template, self.variant, before)
            elif before is not None and extends(self.template, before, scope):
                # the same case taken one step further: "Then with prompt at 256 tokens instead of
                # 1,792 tokens", never both what-ifs stacked in one heading again
                heading = f"Then with {changes(self.template, self.variant, before, scope)}"
            else:  # a what-if as the question tells it, and what goes back to the question's own
                said = changes(self.template, self.variant, None, scope) or setting(
                    self.template, self.variant, scope
                )
                heading = f"With {said}{self._reverted(before, scope)}"
        draft = Draft(scope, heading)
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
        shown = {name: value_text(self.template, self.variant, name, float(own[name])) for name in names}
        back = [  # as the prompt quotes it: 1.3074 PFLOP/s, as in the steps above
            f"{label_of(self.template.workload, name)} ({as_prompted(shown[name], self.prompt, NBSP)})"
            for name in names
        ]
        return f", and the question's own {' and '.join(back)}" if back else ""

    def _givens(self, draft: Draft, worked: list[str] | None = None) -> None:
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
            kept = name in self.variant.inputs and math.isclose(
                float(values[name]), float(self.variant.inputs[name])
            )
            if derated is None and kept:  # an input worked out from what the prompt states, kept here
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
            _list(draft, Given(label_of(self.template.workload, name), as_prompted(shown, self.prompt, "")))
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
                _list(self.drafts[-1], Given(label, as_prompted(shown, self.prompt, "")))

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


def _list(draft: Draft, given: Given) -> None:
    """Add `given` to the section's givens once: a derived value and the engine's quantity of the
    same name and value (params) are one given to the reader."""
    if given not in draft.givens:
        draft.givens.append(given)
