"""Whole counts are flagged in the engine and explained by their own rule, for every template."""

from __future__ import annotations

from sympy import ceiling, floor

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.workloads import WORKLOADS
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import generate
from perfdrill.engine.problems.grading import grade_part

# Rounded, but read to napkin precision: a context capacity runs to millions of tokens, where the
# last token is noise beside the 2–3 significant figures of the specs it comes from.
NAPKIN_COUNTS = {"context_capacity"}


def test_every_rounded_formula_is_an_exact_count_with_a_rule_that_names_real_quantities() -> None:
    for workload, build in WORKLOADS.items():
        for formula in build():
            if formula.expr.has(floor, ceiling) and formula.name not in NAPKIN_COUNTS:
                assert formula.exact, f"{formula.name}@{workload} rounds, so it is a whole count"
            rule = info(workload, formula.name).count_rule
            if rule is not None:
                assert rule.counted in INPUTS
                assert {rule.need, rule.have} <= set(computed(workload)) | set(INPUTS)  # a target is an input


def test_each_rule_explains_the_counts_on_both_sides_of_every_bank_answer() -> None:
    # The rule (need ≤ have at the count) must agree with the floor/ceiling formula: one past the
    # answer breaks it and one short keeps it, so the grader never falls back to "too high".
    bank, specs = load_bank(), load_specs()
    explained = 0
    for template in bank.templates.values():
        for seed in range(20):
            for part in generate(template, seed, specs).parts:
                if part.exact is None or part.exact.rule is None:
                    continue
                assert part.value is not None
                for neighbour in (part.value + 1, part.value - 1):
                    if neighbour >= 0:
                        feedback = grade_part(part, f"{neighbour:.0f}").feedback
                        assert not feedback.startswith("Too"), (template.id, seed, feedback)
                        explained += 1
    assert explained > 100
