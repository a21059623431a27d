"""What a practice session asks, in which order and with which seeds.

`perfdrill generate` and the TUI share this, so a set seed means the same questions everywhere,
and a stored plan is all it takes to resume a session exactly where it stopped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from perfdrill.engine.errors import TemplateError, UsageError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.problems.bank import Bank
from perfdrill.engine.problems.generation import Problem, generate, variant_seed
from perfdrill.engine.problems.leave_out import LeaveOut
from perfdrill.engine.problems.parameter_draws import candidates
from perfdrill.engine.problems.templates import Template


@dataclass(frozen=True)
class Plan:
    families: tuple[str, ...] = ()  # none: every family
    difficulty: str | None = None
    count: int | None = 10  # None: endless
    chips: tuple[str, ...] = ()  # none: any chip
    models: tuple[str, ...] = ()
    seed: int = 0
    items: tuple[tuple[str, int], ...] = ()  # an explicit (question id, seed) list, e.g. "retry these"
    review: bool = False  # today's spaced-repetition queue
    # An interview (interview.py): per item, 0 for the question itself or k for its k-th follow-up.
    follow_ups: tuple[int, ...] = ()
    interview: bool = False

    @property
    def total(self) -> int | None:
        return len(self.items) if self.items else self.count

    def reference(self, question: str, seed: int) -> str:
        """How to ask for this variant again from the command line (see `variant_reference`)."""
        return variant_reference(question, seed, self.chips, self.models)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        return cls(
            families=tuple(data.get("families", ())),
            difficulty=data.get("difficulty"),
            count=data.get("count"),
            chips=tuple(data.get("chips", ())),
            models=tuple(data.get("models", ())),
            seed=int(data.get("seed", 0)),
            items=tuple((str(q), int(s)) for q, s in data.get("items", ())),
            review=bool(data.get("review", False)),
            follow_ups=tuple(int(k) for k in data.get("follow_ups", ())),
            interview=bool(data.get("interview", False)),
        )


def variant_reference(question: str, seed: int, chips: Sequence[str] = (), models: Sequence[str] = ()) -> str:
    """The id, seed and any chip or model restriction of a variant: "matmul/gemv #42 --chip l4" is
    `perfdrill preview matmul/gemv --seed 42 --chip l4`. A restriction changes which variant a seed
    draws, so a reference without it would name another variant."""
    flags = [f"--chip {chip}" for chip in chips] + [f"--model {model}" for model in models]
    return " ".join([f"{question} #{seed}", *flags])


def question_items(questions: Sequence[str], count: int, seed: int) -> tuple[tuple[str, int], ...]:
    """`count` variants of the named questions, taking turns: `--question X --count 8` asks X 8 times."""
    return tuple((questions[i % len(questions)], variant_seed(seed, i)) for i in range(count))


def set_item(templates: Sequence[Template], seed: int, index: int) -> tuple[Template, int]:
    """Question `index` of the set `seed`: every template once per round, each round shuffled."""
    round_number, position = divmod(index, len(templates))
    order = sorted(templates, key=lambda t: hashlib.sha256(f"{seed}#{round_number}#{t.id}".encode()).digest())
    return order[position], variant_seed(seed, index)


def pick_set(templates: Sequence[Template], count: int, seed: int) -> list[tuple[Template, int]]:
    return [set_item(templates, seed, index) for index in range(count)]


def drawable(template: Template, specs: SpecBook) -> bool:
    """Whether every chip and model parameter still has a value once the specs are cut down."""
    return all(
        candidates(parameter, specs, template)
        for parameter in template.parameters
        if parameter.kind in ("chip", "model")
    )


class Practice:
    """A plan bound to a bank and specs: the problem at each position, and fresh variants to retry.

    A template of the user's own that cannot make a variant is left out for the rest of the session
    (`warn` is told once) and the next one takes its place, so one bad file never stops the rest."""

    def __init__(
        self, plan: Plan, bank: Bank, specs: SpecBook, warn: Callable[[TemplateError], None] = lambda _: None
    ) -> None:
        if plan.count is not None and plan.count < 1 and not plan.items:
            raise UsageError("the number of questions must be at least 1")
        self.plan = plan
        self.bank = bank
        self.specs = specs.only(plan.chips, plan.models)
        self.left_out = LeaveOut(bank.builtin, warn)
        if plan.items:
            self.pool = [bank.get(question) for question, _ in plan.items]
        else:
            self.pool = [t for t in bank.select(plan.families, plan.difficulty) if drawable(t, self.specs)]
            if not self.pool:
                raise UsageError("no question can use only those chips and models")

    def _first_made(self, candidates: Sequence[tuple[Template, int]]) -> Problem:
        restricted = bool(self.plan.chips or self.plan.models)
        for template, seed in candidates:
            problem = self.left_out.generate(template, seed, self.specs, restricted=restricted)
            if problem is not None:
                return problem
        if restricted:
            raise UsageError("no question can be generated with only those chips and models")
        raise UsageError("no question can be generated: every one chosen is left out (see the warnings)")

    def problem(self, index: int) -> Problem:
        """The problem at `index`; a template that cannot make a variant (a constraint the chosen
        specs cannot meet, a broken template of the user's own) is passed over for the next one in
        the round, so the choice stays deterministic."""
        if self.plan.items:
            follow_up = self.plan.follow_ups[index] if self.plan.follow_ups else 0
            if follow_up:  # an interview's follow-up: that very draw, changed as the follow-up says
                question, seed = self.plan.items[index]
                template = self.bank.get(question)
                return generate(template, seed, self.specs, template.follow_ups[follow_up - 1])
            items = self.plan.items[index:] + self.plan.items[:index]
            return self._first_made([(self.bank.get(question), seed) for question, seed in items])
        template, seed = set_item(self.pool, self.plan.seed, index)
        start = self.pool.index(template)
        return self._first_made(
            [(self.pool[(start + i) % len(self.pool)], seed) for i in range(len(self.pool))]
        )

    def variant(self, question: str, seed: int) -> Problem:
        """One variant again, on this session's chips and models (a second try owed on resume)."""
        return generate(self.bank.get(question), seed, self.specs)

    def fresh_variant(self, problem: Problem, retry: int) -> Problem:
        """Problem's template again with another seed, for "retry with a fresh variant"."""
        return self._first_made([(problem.template, variant_seed(problem.seed, 1000 + retry))])
