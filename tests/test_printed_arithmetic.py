"""Every printed step re-evaluates to its own result (issue 21).

Each template is rendered at a few seeds; each step's printed `substituted = result` is read back
into numbers with the printed rounding and units (tests/printed_arithmetic.py, written apart from
the engine's formatter) and evaluated with interval arithmetic. A step fails when its figures, as
rounded, cannot give its result; when a word stands inside the arithmetic; when brackets are
unbalanced or a root of a power of ten is unbracketed; or when it uses a figure neither the prompt
nor an earlier line has shown.

And it fails unless it recomputes to its last digit, as a teacher checks it: the printed figures,
each taken exactly as printed, must give the printed result within half a unit in its last printed
place (the result's own rounding; "0.0777 days" is 0.07765…0.07775 days). The operands' rounding
is not allowed for on top: where it would move the result, the step prints those operands with
the figures they need (1.0368 EFLOP/s, after an earlier line showed 1.04 EFLOP/s), which the
"shown before" check accepts as the same value to more figures. This also catches a rounding
that swamps the result (948 ms − 948 ms = 189 µs).

The default run draws 20 seeds per template (about 1,600 problems, a few seconds on one core);
PERFDRILL_ARITHMETIC_SEEDS sets another count.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.explain import Step
from perfdrill.engine.model.maths import text
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate
from tests.printed_arithmetic import (
    PrintedError,
    bracket_faults,
    evaluate,
    face_value,
    figures,
    last_place,
    result_interval,
    shown_as,
)

BANK, SPECS = load_bank([]), load_specs([])
SEEDS_PER_TEMPLATE = int(os.environ.get("PERFDRILL_ARITHMETIC_SEEDS", "20"))


def _seeds(template_id: str) -> list[int]:
    base = sum(map(ord, template_id)) * 7919
    return [base + 104729 * i for i in range(SEEDS_PER_TEMPLATE)]


def _walk(problem: Problem) -> Iterator[tuple[Step, str]]:
    """Each step with everything printed before it: the prompt, its parts, earlier lines."""
    shown = [problem.prompt, *(part.prompt for part in problem.parts), *problem.explanation.lead]
    explanation = problem.explanation
    for section in explanation.sections:
        shown.append(section.heading)
        shown += [f"{given.label} = {given.value}" for given in section.givens]
        for item in section.items:
            if isinstance(item, Step):
                yield item, "\n".join(shown)
                shown.append(item.line())
            else:
                shown.append(item)


def step_faults(step: Step, before: str) -> list[str]:
    """What is wrong with one printed step, read as a reader reads it."""
    if step.formula is None or step.substituted is None:
        return []
    printed = text(step.substituted)
    line = step.line()
    if f"{printed} = {step.result}" not in line:
        return [f"the line does not print `{printed} = {step.result}`"]
    faults = bracket_faults(printed) + bracket_faults(text(step.formula))
    try:
        value = evaluate(printed)
        result = result_interval(step.result)
    except PrintedError as error:
        return [*faults, str(error)]
    slack = 1e-9 * max(abs(result.low), abs(result.high))
    if not value.meets(result, slack=slack):
        faults.append(f"evaluates to {value.low:.4g}…{value.high:.4g}, not {step.result}")
    elif (
        not (last := last_place(step.result)).low - slack
        <= (face := face_value(printed))
        <= last.high + slack
    ):
        faults.append(f"its figures as printed give {face:.6g}, not {step.result} to its last digit")
    formula = f"{step.label} {text(step.formula)}"  # an option's value in its label: "KV cache at batch 64"
    for used in figures(printed):
        if not shown_as(used, before) and used not in formula and not _as_percent(used, before):
            faults.append(f"uses {used!r}, shown nowhere before")
    return faults


def _as_percent(figure: str, before: str) -> bool:
    """A fraction (0.45, 0.1515) that an earlier line showed as a percentage (45%, 15.2 %), to
    the percentage's own rounding, or a percentage (45 %) the prompt wrote without its space."""
    spaced = "\u00a0%"
    if figure.endswith(spaced) and figure.removesuffix(spaced) + "%" in before:
        return True
    try:
        percent = float(figure) * 100
    except ValueError:
        return False
    for shown in re.finditer(r"(\d+(?:\.(\d+))?)[ \u00a0]?%", before):
        half = 0.5 * 10.0 ** -len(shown[2] or "")
        if abs(float(shown[1]) - percent) <= half + 1e-9:
            return True
    return False


def problem_faults(problem: Problem) -> list[str]:
    return [
        f"{problem.id} --seed {problem.seed}: {fault} in `{step.line()}`"
        for step, before in _walk(problem)
        for fault in step_faults(step, before)
    ]


def test_the_reader_catches_what_issue_21_found() -> None:
    """The checks can fail: each printed fault the issue quotes is caught by hand-written steps."""
    nbsp = "\u00a0"

    def step(substituted: str, result: str) -> Step:
        from perfdrill.engine.model.maths import word

        return Step("x", "x", word("formula"), word(substituted), result, 0.0)

    cases = [
        # moe/all-experts-profile (d): as printed this is about 240, not 256.
        (
            f"(20.6{nbsp}ms × 38.4{nbsp}TB/s × 0.85 − 37.7{nbsp}GB − 20.4{nbsp}GB)"
            f" ÷ (58 × 44M{nbsp}params × 1{nbsp}B/param)",
            "256",
        ),
        ("8 × (1 − 1 − 2 ÷ 8)", "2"),  # experts touched at batch 1: as printed −2
        (f"57.8{nbsp}MB × (1 − no: every call reads them from HBM)", f"57.8{nbsp}MB"),  # a choice's text
        (f"948{nbsp}ms − 948{nbsp}ms", f"189{nbsp}µs"),  # disaggregation-pays: cancellation
        ("2.45 × √1.59 × 10²⁴", "3"),  # compute-optimal: a root of a power of ten, unbracketed
        ("(2 × 3", "6"),
        # chinchilla-check --seed 523305 (issue 21): 6.96e21 ÷ 1.04e18 s = 6,692 s = 0.07746 days,
        # which a teacher rounds to 0.0775, not the printed 0.0777
        (f"6.96 × 10²¹{nbsp}FLOP ÷ 1.04{nbsp}EFLOP/s", f"0.0777{nbsp}days"),
        # tp-comm-ratio: 2 × 130 µs is 260 µs, not 0.261 ms
        (f"2 × 130{nbsp}µs", f"0.261{nbsp}ms"),
    ]
    for substituted, result in cases:
        assert step_faults(step(substituted, result), "formula " + substituted), substituted
    # and a correct step passes: 70.3 kB/token × 2,048 tokens = 144 MB (70.3 × 2,048 = 143,974 kB)
    good = step(f"70.3{nbsp}kB/token × 2,048{nbsp}tokens", f"144{nbsp}MB")
    assert step_faults(good, f"70.3{nbsp}kB/token and 2,048{nbsp}tokens") == []
    # (4,096 tokens)² ÷ 2 = 8.39M: 4,096² = 16,777,216, halved 8,388,608
    square = step(f"(4,096{nbsp}tokens)² ÷ 2", "8.39M")
    assert step_faults(square, f"4,096{nbsp}tokens formula 2") == []
    assert face_value("⌈10 ÷ 3⌉ + max(1, 2) × √(9)") == 10.0  # 4 + 2 × 3
    # the same step with the figures it needs: 6.964e21 ÷ 1.0368e18 s = 6,717 s = 0.07774 days
    more = step(f"6.964 × 10²¹{nbsp}FLOP ÷ 1.0368{nbsp}EFLOP/s", f"0.0777{nbsp}days")
    assert step_faults(more, f"6.96 × 10²¹{nbsp}FLOP and 1.04{nbsp}EFLOP/s") == []
    # a whole result stands for half its last digit: 64 × 403.33 × 2 ÷ 16 = 3,226.64, printed 3,227
    assert step_faults(step("64 × 403.33 × 2 ÷ (2 × 8)", "3,227"), "64 and 403.33 and 2 and 8") == []


@pytest.mark.parametrize("template_id", [t.id for t in BANK.select()])
def test_every_printed_step_re_evaluates_to_its_result(template_id: str) -> None:
    template = BANK.get(template_id)
    faults = [
        fault for seed in _seeds(template_id) for fault in problem_faults(generate(template, seed, SPECS))
    ]
    assert faults == []
