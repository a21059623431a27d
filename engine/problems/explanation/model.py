"""What a worked explanation is made of: givens, sections of steps, and the opener that leads it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from perfdrill.engine.model.explain import Step


@dataclass(frozen=True)
class Given:
    label: str
    value: str  # formatted, number and unit joined by a no-break space


@dataclass(frozen=True)
class Section:
    heading: str  # empty for the first section, else the setting it works in: "With batch at 1 …"
    givens: tuple[Given, ...]
    items: tuple[Step | str, ...]  # steps, and in a what-if a phrase for each value that moves
    parts: Mapping[str, str]  # step name -> the letters of the parts it answers ("a", "b, c")


@dataclass(frozen=True)
class Explanation:
    lead: tuple[str, ...]  # the answers first, then a sentence of intuition where a part asks it
    sections: tuple[Section, ...]  # the parts in the order asked, each ending in its answer


def letters(index: int) -> str:
    return chr(ord("a") + index)
