"""What a worked explanation is made of: givens, sections of steps, and the opener that leads it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from perfdrill.engine.model.worked_step import Step


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


def letter(index: int) -> str:
    """The label of part or choice `index`: a…z, then aa, ab… az, ba… (never `{` or a control past z).

    >>> [letter(i) for i in (0, 25, 26, 27, 51, 52, 701, 702)]
    ['a', 'z', 'aa', 'ab', 'az', 'ba', 'zz', 'aaa']
    """
    label = ""
    index += 1
    while index:
        index, digit = divmod(index - 1, 26)
        label = chr(ord("a") + digit) + label
    return label


def letter_index(label: str) -> int | None:
    """The index `letter` gives `label` ("aa" is 26), or None when it is not a run of a-z."""
    if not re.fullmatch("[a-z]+", label):
        return None
    index = 0
    for character in label:
        index = index * 26 + ord(character) - ord("a") + 1
    return index - 1
