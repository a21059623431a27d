"""Properties of what readers see, over a few hundred generated problems (issue 14): no identifier,
no exponent notation, no "us", every figure in the one formatter's grammar and tied to its unit,
and no term that is zero for the variant."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate
from tests.reading import broken_rules, readable

BANK, SPECS = load_bank([]), load_specs([])
SEEDS = range(10)  # 10 variants of each of the bank's templates: a few hundred problems


def _problems() -> Iterator[Problem]:
    for template in BANK.select():
        for seed in SEEDS:
            yield generate(template, seed, SPECS)


PROBLEMS = list(_problems())


def test_enough_problems_are_checked() -> None:
    assert len(PROBLEMS) >= 300


def test_the_checks_catch_what_issue_14_found() -> None:
    """The rules can fail: each quoted fault from the issue is caught."""
    for text in (
        "`moe_layers = -dense_layers + layers`",  # a code span is code...
        "moe_layers = -dense_layers + layers",  # ...but in prose, an identifier
        "4.82e+05 EFLOP",
        "2388 us",
        "1979 next to 3,584",
        "2765 GB/s",
        "[us]",
    ):
        found = broken_rules(text.replace("`", "") if text.startswith("`") else text)
        assert found, text
    assert not broken_rules("4.82\u00a0EFLOP and 2.39\u00a0ms for 3,584 of 1.4M")


@pytest.mark.parametrize("where", ["prompt", "part", "answer", "choices", "hint", "explanation"])
def test_what_readers_see_follows_the_rules(where: str) -> None:
    faults = [
        (problem.id, problem.seed, fault)
        for problem in PROBLEMS
        for place, text in readable(problem)
        if place.split()[0] == where
        for fault in broken_rules(text)
    ]
    assert faults == []


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _nodes(item)


def _steps(problem: Problem) -> Iterator[Step]:
    for section in problem.explanation.sections:
        yield from (item for item in section.items if isinstance(item, Step))


def test_no_term_that_is_zero_for_the_variant_is_shown() -> None:
    """A zero term is left out; a formula's own floor, as in max(0, …), is not a term."""
    clamps = {
        id(child)
        for problem in PROBLEMS
        for step in _steps(problem)
        for node in _nodes([step.formula, step.substituted])
        if node.get("k") == "fn" and node.get("t") in ("max", "min")
        for child in node["c"]
    }
    zeros = [
        (problem.id, problem.seed, step.line())
        for problem in PROBLEMS
        for step in _steps(problem)
        for node in _nodes([step.formula, step.substituted])
        if node.get("k") == "num" and node.get("t") == "0" and id(node) not in clamps
    ]
    assert zeros == []


def test_every_part_answered_by_one_quantity_is_marked_in_the_working() -> None:
    """A reader finds each part's answer as a marked step: numeric, choice and select-all parts
    alike (issue 21: fits-sweep (a) and compute-bound-rows (b) had no working at all)."""
    for problem in PROBLEMS:
        marked = {
            letter.strip()
            for section in problem.explanation.sections
            for letters in section.parts.values()
            for letter in letters.split(",")
        }
        for index, part in enumerate(problem.template.parts):
            if part.answer is not None and part.answer.names:
                assert chr(ord("a") + index) in marked, (problem.id, problem.seed, part.name)


def test_a_step_that_answers_a_part_ends_in_the_keys_answer() -> None:
    for problem in PROBLEMS:
        for section in problem.explanation.sections:
            for item in section.items:
                letters = section.parts.get(item.name, "") if isinstance(item, Step) else ""
                if not letters or item.formula is None:
                    continue
                part = problem.parts[ord(letters[0]) - ord("a")]
                if part.kind == "numeric":
                    assert item.result == part.shown_answer, (problem.id, problem.seed, item.line())


def test_a_large_what_if_ratio_is_written_by_the_formatter() -> None:
    """A what-if can scale an input thousands of times (batch 1 to 4,678): the ratio is a figure too."""
    from perfdrill.engine.problems.explanation.whatifs import moved, ratio_words

    problem = PROBLEMS[0]
    step = Step("flops", "FLOPs", None, None, "254\u00a0TFLOP", 4678.0)
    assert ratio_words(4678.0) == ("up", 4678)
    said = moved(problem.template, problem.variant, step, 1.0)
    assert said == "FLOPs grows 4,678× from 1\u00a0FLOP to 254\u00a0TFLOP"


def test_no_step_repeats_its_result_and_a_chosen_value_is_not_a_ratio() -> None:
    """A case that picks a constant reads "best draft length = 2, since…", not "= 2 = 2"; a
    scenario that sets k to the best length says so, not "twice the k" (k went 1 → 2)."""
    template = BANK.get("speculative/draft-length")
    # Seed 3303: α = 0.77, c = 0.37. By hand (Leviathan et al. 2023, speed-up
    # (1 − α^(k+1)) / ((1 − α)(k·c + 1))): k=1 1.292, k=2 1.357, k=3 1.341, so the best k is 2.
    problem = generate(template, 3303, SPECS)
    lines = [item.line() for s in problem.explanation.sections for item in s.items if isinstance(item, Step)]
    headings = [section.heading for section in problem.explanation.sections]
    assert any(line.startswith("best draft length = 2, since") for line in lines), lines
    assert any("k = 2 (the best draft length)" in heading for heading in headings), headings
    assert not any("twice the k" in heading for heading in headings)
    for p in PROBLEMS:
        for step in (i for s in p.explanation.sections for i in s.items if isinstance(i, Step)):
            assert f"= {step.result} = {step.result}" not in step.line(), (p.template_id, step.line())
