"""Spaced repetition of templates with FSRS (the `fsrs` package, the scheduler Anki uses).

A card is a template, never one variant: every review draws fresh numbers. The user never rates
themselves; `rating_for` derives the FSRS rating from the grade, the tries, the hints and the time.
`review_queue` turns the cards into today's queue: what is due, then new templates up to a limit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.problems.generation import variant_seed
from perfdrill.engine.problems.templates import DIFFICULTIES, FAMILIES, Template

if TYPE_CHECKING:
    from fsrs import Scheduler

# FSRS ratings (fsrs.Rating's values), kept as plain ints so reading the store never imports fsrs.
AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
RATING_NAMES = {AGAIN: "again", HARD: "hard", GOOD: "good", EASY: "easy"}

# Seconds per part: at most QUICK reads as easy recall, more than SLOW as recalled with difficulty.
QUICK_SECONDS_PER_PART = 30.0
SLOW_SECONDS_PER_PART = 180.0

DEFAULT_NEW_PER_DAY = 10
DEFAULT_MASTERY_AFTER = 3


@dataclass(frozen=True)
class Try:
    """What the rating needs from one graded try."""

    score: float
    hints: int
    seconds: float
    parts: int


def rating_for(first: Try, second: Try | None = None) -> int:
    """The FSRS rating of one question: right on the first try without hints is GOOD (EASY when
    quick, HARD when slow), hints or a second try make it HARD, and anything else is AGAIN."""
    if first.score >= 1:
        if first.hints:
            return HARD
        per_part = first.seconds / max(1, first.parts)
        if per_part <= QUICK_SECONDS_PER_PART:
            return EASY
        return HARD if per_part > SLOW_SECONDS_PER_PART else GOOD
    if second is not None and second.score >= 1:
        return HARD
    return AGAIN


@cache
def _scheduler() -> Scheduler:
    from fsrs import Scheduler  # only when a review is saved: reading the schedule never needs it

    # No minute-long learning steps: a template comes back on a later day with fresh numbers, not
    # again in the same sitting. No fuzz, so the same history always gives the same due dates.
    return Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def review(card_json: str | None, rating: int, when: float) -> tuple[str, float]:
    """The card after a review rated `rating` at `when` (Unix seconds): its JSON and due time.

    `card_json` None is a template never reviewed before.
    """
    from fsrs import Card, Rating

    card = Card.from_json(card_json) if card_json else Card(card_id=1)
    reviewed_at = datetime.fromtimestamp(when, UTC)
    card, _ = _scheduler().review_card(card, Rating(rating), reviewed_at)
    return card.to_json(), card.due.timestamp()


@dataclass(frozen=True)
class CardRow:
    """A template's place in the schedule, as the store keeps it."""

    template: str
    due: float  # Unix seconds
    created: float  # first review
    reviews: int
    last_rating: int


def end_of_day(now: float) -> float:
    """The next local midnight after `now`: a template due any time today is due now."""
    today = datetime.fromtimestamp(now).date()
    return datetime.combine(today + timedelta(days=1), datetime.min.time()).timestamp()


def start_of_day(now: float) -> float:
    return datetime.combine(datetime.fromtimestamp(now).date(), datetime.min.time()).timestamp()


@dataclass(frozen=True)
class ReviewQueue:
    due: tuple[str, ...]  # template ids due by the end of today, the most overdue first
    new: tuple[str, ...]  # templates never reviewed, as many as today's limit still allows
    next_due: float | None  # when the next template not in the queue falls due

    @property
    def size(self) -> int:
        return len(self.due) + len(self.new)

    def label(self) -> str:
        """E.g. "Review · 3 due + 2 new", or "Review · nothing due"."""
        parts = [f"{len(self.due)} due"] if self.due else []
        parts += [f"{len(self.new)} new"] if self.new else []
        return "Review · " + (" + ".join(parts) if parts else "nothing due")

    def plan(self, seed: int) -> Plan:
        """A session over the queue; every item gets a fresh variant seed."""
        ids = (*self.due, *self.new)
        return Plan(
            items=tuple((t, variant_seed(seed, i)) for i, t in enumerate(ids)), seed=seed, review=True
        )


def _new_order(templates: Sequence[Template]) -> list[Template]:
    """Easy before hard, and families taking turns, so the first new ones cover the ground."""
    families = list(FAMILIES)
    turn: dict[str, int] = {}
    keyed = []
    for template in sorted(templates, key=lambda t: hashlib.sha256(t.id.encode()).digest()):
        rank = DIFFICULTIES.index(template.difficulty) if template.difficulty in DIFFICULTIES else 0
        count = turn.get(f"{template.family}/{rank}", 0)
        turn[f"{template.family}/{rank}"] = count + 1
        family = families.index(template.family) if template.family in families else len(families)
        keyed.append(((rank, count, family), template))
    return [template for _, template in sorted(keyed, key=lambda pair: pair[0])]


def review_queue(
    cards: Mapping[str, CardRow], templates: Sequence[Template], *, now: float, new_per_day: int
) -> ReviewQueue:
    """Today's queue: templates due by the end of today, then new ones up to `new_per_day` less
    those already introduced today. Cards of templates no longer in the bank are left out."""
    known = {t.id for t in templates}
    horizon = end_of_day(now)
    scheduled = sorted((row.due, row.template) for row in cards.values() if row.template in known)
    due = tuple(template for when, template in scheduled if when <= horizon)
    later = [when for when, _ in scheduled if when > horizon]
    introduced = sum(row.created >= start_of_day(now) for row in cards.values())
    room = max(0, new_per_day - introduced)
    new = tuple(t.id for t in _new_order([t for t in templates if t.id not in cards])[:room])
    return ReviewQueue(due, new, min(later) if later else None)
