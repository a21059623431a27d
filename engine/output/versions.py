"""Versions of a printed set as parallel forms, and the opaque codes students see.

Every version asks the same templates in the same order (or, with `shuffle`, in its own order);
each version draws its own seeds, so its chips, models and numbers are its own. Version A is the
plain set of the seed. Problems are generated one at a time, so a set of any size streams.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.output.codes import problem_code
from perfdrill.engine.output.roster import Student
from perfdrill.engine.problems.generation import Problem, generate, variant_seed
from perfdrill.engine.problems.templates import Template


@dataclass(frozen=True)
class Slot:
    """One problem of one version, where it is printed and the code that names it."""

    version: int  # 0 is version A
    number: int  # its number in its version, from 1
    problem: Problem
    code: str


def version_letter(index: int) -> str:
    return chr(ord("A") + index)


def version_label(index: int, count: int) -> str:
    """ "Version B" in a set of several versions; "" when there is only one."""
    return f"Version {version_letter(index)}" if count > 1 else ""


class ParallelSet:
    """`versions` parallel forms of `count` problems.

    `first(index)` is the problem at each position of version A (the plain set); the same position
    of every other version uses the same template with a seed of its own. Version A's templates
    are remembered only when other versions need them, so a one-version set streams in flat memory.
    """

    def __init__(
        self,
        first: Callable[[int], Problem],
        specs: SpecBook,
        *,
        count: int,
        versions: int,
        seed: int,
        shuffle: bool = False,
        checkpoint: Callable[[], None] = lambda: None,
        students: Sequence[Student] = (),
    ) -> None:
        self.first = first
        self.students = tuple(students)  # a roster: one version per student, each seeded by its id
        self.checkpoint = checkpoint
        self._templates: list[Template] = []
        self.specs = specs
        self.count = count
        self.versions = len(self.students) or versions
        self.seed = seed
        self.shuffle = shuffle

    def variant_seed(self, version: int, index: int) -> int:
        """The seed of position `index` in version `version` (1 or later; A's come from `first`),
        or in a student's copy (from the set's seed and the student's id)."""
        if self.students:
            return variant_seed(self.students[version].seed_base(self.seed), index)
        return variant_seed(variant_seed(self.seed, 100_000 + version), index)

    def label(self, version: int) -> str:
        """What a version's pages are called: "Version B", a student's "Name (id)", or ""."""
        return self.students[version].label if self.students else version_label(version, self.versions)

    def points(self) -> int:
        """The set's total points, one a part (the same in every version: same templates)."""
        return sum(len(self.template(index).parts) for index in range(self.count))

    def template(self, index: int) -> Template:
        while len(self._templates) <= index:
            self._templates.append(self.first(len(self._templates)).template)
        return self._templates[index]

    def order(self, version: int) -> list[int] | range:
        """Positions in printed order: version A keeps the set's order; others shuffle if asked."""
        if version == 0 or not self.shuffle:
            return range(self.count)
        positions = list(range(self.count))
        random.Random(f"shuffle#{self.seed}#{version}").shuffle(positions)
        return positions

    def problem(self, version: int, index: int) -> Problem:
        """Position `index` of `version`: version A's problem, or its template with another seed."""
        self.checkpoint()
        if version == 0 and not self.students:
            problem = self.first(index)
            if self.versions > 1 and index == len(self._templates):
                self._templates.append(problem.template)
            return problem
        return generate(self.template(index), self.variant_seed(version, index), self.specs)

    def slots(self, version: int) -> Iterator[Slot]:
        """The problems of one version in printed order, generated as they are asked for."""
        for number, index in enumerate(self.order(version), start=1):
            problem = self.problem(version, index)
            yield Slot(version, number, problem, problem_code(problem.id, problem.seed))
