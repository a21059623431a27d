"""A mock interview: one scenario (one chip, one model) carried through 5 to 8 connected questions,
drawn from the templates that declare follow-ups ("The batch doubles.") and from those follow-ups,
timed against a target per question, without hints, and written up as an interviewer would.

The interview is an ordinary practice plan (Plan.interview, Plan.follow_ups), so its attempts are
saved, scheduled (FSRS) and counted toward mastery like any others, and the same seed always
builds the same interview.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.errors import TemplateError, UsageError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.practice.plan import Plan, drawable
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.practice.session import NOTE_KEY
from perfdrill.engine.problems.bank import Bank
from perfdrill.engine.problems.generation import generate, variant_seed
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.question_file import DIFFICULTIES
from perfdrill.engine.problems.templates import Template

QUESTIONS = (5, 8)  # the fewest and the most questions of an interview
# Seconds an interviewer would allow: a fresh question by its difficulty, a follow-up (one change
# to numbers already worked out) less.
TARGET_SECONDS = {"easy": 180.0, "medium": 300.0, "hard": 420.0}
FOLLOW_UP_SECONDS = 150.0
_SLOW = 1.5  # over 1.5 times its target, a question is worth reviewing even when right


def interview_plan(bank: Bank, specs: SpecBook, seed: int) -> Plan:
    """The interview of `seed`: a chip and a model, then questions easy to hard, each followed by
    the follow-ups its variant can take, 5 to 8 in all. UsageError if no pair of chip and model
    carries enough chained questions (a bank of one's own without follow-ups)."""
    rng = random.Random(f"interview#{seed}")
    chained = sorted((t for t in bank.templates.values() if t.follow_ups), key=lambda t: t.id)
    pairs = [(chip, model) for chip in sorted(specs.chips) for model in sorted(specs.models)]
    rng.shuffle(pairs)
    wanted = rng.randint(*QUESTIONS)
    for chip, model in pairs:
        steps = _chain(chained, specs.only((chip,), (model,)), rng, seed, wanted)
        if len(steps) >= QUESTIONS[0]:
            return Plan(
                items=tuple((template, item_seed) for template, item_seed, _ in steps),
                follow_ups=tuple(follow_up for _, _, follow_up in steps),
                chips=(chip,),
                models=(model,),
                seed=seed,
                interview=True,
            )
    raise UsageError(f"no chip and model carry {QUESTIONS[0]} chained questions: add follow_ups to templates")


def _chain(
    templates: Sequence[Template], specs: SpecBook, rng: random.Random, seed: int, wanted: int
) -> list[tuple[str, int, int]]:
    """(template, seed, follow-up) steps on these specs: easy to hard, each question followed by
    the follow-ups its variant takes, until `wanted` steps."""
    usable = [t for t in templates if drawable(t, specs)]
    rng.shuffle(usable)
    usable.sort(key=lambda t: DIFFICULTIES.index(t.difficulty))
    steps: list[tuple[str, int, int]] = []
    for index, template in enumerate(usable):
        item_seed = variant_seed(seed, index)
        taken = []
        for follow_up in range(len(template.follow_ups) + 1):  # 0: the question itself
            try:
                generate(
                    template, item_seed, specs, template.follow_ups[follow_up - 1] if follow_up else None
                )
            except TemplateError:
                if follow_up == 0:
                    break  # these specs cannot draw the question: no follow-up either
                continue
            taken.append((template.id, item_seed, follow_up))
        steps += taken[: wanted - len(steps)]
        if len(steps) >= wanted:
            break
    return steps


def target_seconds(difficulty: str, follow_up: int) -> float:
    """The time an interviewer would allow a question of `difficulty`, or one of its follow-ups."""
    return FOLLOW_UP_SECONDS if follow_up else TARGET_SECONDS.get(difficulty, TARGET_SECONDS["medium"])


def clock_text(seconds: float) -> str:
    """ "4:05" for 245 s."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


@dataclass(frozen=True)
class QuestionCard:
    position: int
    question: str
    title: str
    follow_up: int
    right: int  # parts right at the first (the only) try
    parts: int
    seconds: float
    target: float
    mistakes: tuple[str, ...]  # catalogue ids named in its answers
    note: str

    @property
    def slow(self) -> bool:
        return self.seconds > _SLOW * self.target


@dataclass(frozen=True)
class Scorecard:
    """The interview written up: accuracy, pace against the targets, the named mistakes, and the
    templates to review."""

    seed: int
    chip: str
    model: str
    questions: tuple[QuestionCard, ...]
    planned: int

    @property
    def right(self) -> int:
        return sum(q.right for q in self.questions)

    @property
    def parts(self) -> int:
        return sum(q.parts for q in self.questions)

    @property
    def seconds(self) -> float:
        return sum(q.seconds for q in self.questions)

    @property
    def target(self) -> float:
        return sum(q.target for q in self.questions)

    @property
    def review(self) -> tuple[str, ...]:
        """Templates with a part wrong or taking over 1.5 times their target, in asked order."""
        return tuple(dict.fromkeys(q.question for q in self.questions if q.right < q.parts or q.slow))

    @property
    def mistakes(self) -> Counter[str]:
        return Counter(m for q in self.questions for m in q.mistakes)

    def verdict(self) -> str:
        share = self.right / self.parts if self.parts else 0.0
        on_time = self.seconds <= 1.25 * self.target
        if len(self.questions) < self.planned:
            return "Stopped early: the round is not complete."
        if share >= 0.75 and on_time:
            return "Would pass this round: accurate and on time."
        if share >= 0.75:
            return "Accurate but slow: practise the same reasoning against the clock."
        if share >= 0.5:
            return "Borderline: right approach on most questions, with slips that cost parts."
        return "Not yet: rework the review list below before another round."

    def lines(self) -> list[str]:
        """The scorecard as an interviewer would write it, one line each."""
        share = self.right / self.parts if self.parts else 0.0
        lines = [
            self.verdict(),
            f"Accuracy: {self.right} of {self.parts} parts right at the first try ({share:.0%}).",
            f"Pace: {clock_text(self.seconds)} against a target of {clock_text(self.target)}.",
        ]
        for q in self.questions:
            said = f" (follow-up {q.follow_up})" if q.follow_up else ""
            pace = "slow" if q.slow else "on time" if q.seconds <= q.target else "a little slow"
            lines.append(
                f"  {q.position + 1}. {q.title}{said}: {q.right}/{q.parts} right,"
                f" {clock_text(q.seconds)} of {clock_text(q.target)} ({pace})"
            )
        named = ", ".join(
            f"{CATALOGUE[m].title} ({n}×)" for m, n in self.mistakes.most_common() if m in CATALOGUE
        )
        lines.append(f"Named mistakes: {named or 'none'}.")
        lines.append(f"Review: {', '.join(self.review) or 'nothing: well done'}.")
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "chip": self.chip,
            "model": self.model,
            "questions": [
                {
                    "question": q.question,
                    "follow_up": q.follow_up,
                    "right": q.right,
                    "parts": q.parts,
                    "seconds": round(q.seconds, 1),
                    "target_seconds": q.target,
                    "mistakes": list(q.mistakes),
                    "note": q.note,
                }
                for q in self.questions
            ],
            "planned": self.planned,
            "parts_right": self.right,
            "parts": self.parts,
            "seconds": round(self.seconds, 1),
            "target_seconds": self.target,
            "verdict": self.verdict(),
            "review": list(self.review),
        }


def scorecard(plan: Plan, attempts: Sequence[Attempt]) -> Scorecard:
    """The scorecard of an interview's attempts (one per question: an interview has no second try)."""
    cards = []
    for attempt in attempts:
        if attempt.try_number != 1:
            continue
        follow_up = plan.follow_ups[attempt.position] if attempt.position < len(plan.follow_ups) else 0
        cards.append(
            QuestionCard(
                attempt.position,
                attempt.question,
                attempt.title,
                follow_up,
                sum(part["status"] == "correct" for part in attempt.parts.values()),
                len(attempt.parts),
                attempt.seconds,
                target_seconds(attempt.difficulty, follow_up),
                attempt.mistakes,
                attempt.answers.get(NOTE_KEY, ""),
            )
        )
    chip = plan.chips[0] if plan.chips else ""
    model = plan.models[0] if plan.models else ""
    return Scorecard(plan.seed, chip, model, tuple(cards), plan.total or len(cards))
