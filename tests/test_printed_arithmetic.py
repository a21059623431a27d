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

A comparison printed as a reason ("since …", or a verdict's "a ≥ b, so …") is held to the same
rule: a side worked from other values prints its figures ("k × c = 6 × 0.1147 = 0.688") and
recomputes to its last digit, and the relation holds for both sides as printed ("180 µs <
180 µs" does not).

The default run draws 20 seeds per template (about 1,600 problems, a few seconds on one core);
PERFDRILL_ARITHMETIC_SEEDS sets another count.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable, Iterator

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.display_nodes import text
from perfdrill.engine.model.printed import extra_figures
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate
from tests.printed_arithmetic import (
    MINUS,
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
    faults = [fault for reason in step.reasons for fault in reason_faults(text(reason), before)]
    if step.formula is None or step.substituted is None:
        return faults
    printed = text(step.substituted)
    line = step.line()
    if f"{printed} = {step.result}" not in line:
        return [*faults, f"the line does not print `{printed} = {step.result}`"]
    formula = f"{step.label} {text(step.formula)}"  # an option's value in its label: "KV cache at batch 64"
    return (
        faults + bracket_faults(text(step.formula)) + arithmetic_faults(printed, step.result, before, formula)
    )


def arithmetic_faults(printed: str, result: str, before: str, formula: str = "") -> list[str]:
    """What is wrong with `printed = result`: it must recompute to the result's last digit from
    figures an earlier line (or the `formula` it substitutes) showed."""
    faults = bracket_faults(printed)
    try:
        value = evaluate(printed)
        interval = result_interval(result)
    except PrintedError as error:
        return [*faults, str(error)]
    slack = 1e-9 * max(abs(interval.low), abs(interval.high))
    if not value.meets(interval, slack=slack):
        faults.append(f"evaluates to {value.low:.4g}…{value.high:.4g}, not {result}")
    elif not (last := last_place(result)).low - slack <= (face := face_value(printed)) <= last.high + slack:
        faults.append(f"its figures as printed give {face:.6g}, not {result} to its last digit")
    for used in figures(printed):
        if not shown_as(used, before) and used not in formula and not _as_percent(used, before):
            faults.append(f"uses {used!r}, shown nowhere before")
    return faults


_RELATIONS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "≤": operator.le,
    ">": operator.gt,
    "≥": operator.ge,
    "≠": operator.ne,
}
# A side that names a quantity ends in its figure: "compute time 154 µs", "margin −25.7 µs".
_LAST_FIGURE = re.compile(rf"(?:^|\s)({MINUS}?\d[\d,]*(?:\.\d+)?[KMBT]?(?: × 10\S+)?(?:\u00a0\S+)?)$")


def reason_faults(reason: str, before: str) -> list[str]:
    """What is wrong with one printed comparison ("compute time 5.13 ms ≥ memory time 367 µs",
    "verification cost 1 ≥ k × c = 4 × 0.1045 = 0.418"): each side's arithmetic recomputes to its
    last digit from figures shown before, and the relation holds for the sides as printed. A
    reason in words has nothing to check."""
    split = [(symbol, sides) for symbol in _RELATIONS if len(sides := reason.split(f" {symbol} ")) == 2]
    if len(split) != 1:
        return [] if not split else [f"more than one relation in `{reason}`"]
    ((symbol, sides),) = split
    faults: list[str] = []
    faces: list[float] = []
    for side in sides:
        pieces = side.split(" = ")
        if len(pieces) == 2:  # "k × c = 0.418": a reader cannot check what it does not show
            faults.append(f"`{side}` does not print the figures it reads")
        elif len(pieces) > 2:
            faults += arithmetic_faults(pieces[-2], pieces[-1], before, pieces[0])
        shown = _LAST_FIGURE.search(pieces[-1])
        if shown is None:
            return [*faults, f"no figure ends `{side}`"]
        named = len(pieces) == 1 and shown[1] != side  # "compute time 154 µs", not a constant "10"
        if named and not shown_as(shown[1], before) and not _as_percent(shown[1], before):
            faults.append(f"uses {shown[1]!r}, shown nowhere before")
        try:
            faces.append(face_value(shown[1]))
        except PrintedError as error:
            return [*faults, str(error)]
    if not _RELATIONS[symbol](*faces):
        faults.append(f"as printed, {faces[0]:.6g} {symbol} {faces[1]:.6g} does not hold")
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
        from perfdrill.engine.model.display_nodes import word

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


def test_the_reader_catches_a_reason_that_does_not_hold_as_printed() -> None:
    """Each reason these templates printed before comparisons were held to the rule is caught."""
    nbsp = "\u00a0"
    # speculative/measured-rounds --seed 22189038: k = 6 and c = 1.14 ms ÷ 9.94 ms = 0.115 shown
    # above; 6 × 0.115 = 0.69, which no teacher rounds to the printed 0.688
    before = f"k = 6\nc = draft step time ÷ runtime = 1.14{nbsp}ms ÷ 9.94{nbsp}ms = 0.115"
    assert reason_faults("verification cost 1 ≥ k × c = 0.688", before)  # as printed: no figures
    assert reason_faults("verification cost 1 ≥ k × c = 6 × 0.115 = 0.688", before)
    # c to four figures: 1.14 ÷ 9.94 = 0.11469, and 6 × 0.1147 = 0.6882, which is 0.688
    assert reason_faults("verification cost 1 ≥ k × c = 6 × 0.1147 = 0.688", before) == []
    # matmul/compute-bound-rows --seed 22102329: "180 µs < 180 µs" is false as printed
    before = f"compute time = 180{nbsp}µs\nmemory time = 180{nbsp}µs"
    assert reason_faults(f"compute time 180{nbsp}µs < memory time 180{nbsp}µs", before)
    assert reason_faults(f"compute time 179.9{nbsp}µs < memory time 180.2{nbsp}µs", before) == []
    # attention_memory/score-matrix --seed 24662539: "34.36 GB ≥ 34.4 GB" is false as printed
    before = f"memory per chip = 32{nbsp}GiB = 34.36{nbsp}GB\nscore matrix = 34.4{nbsp}GB"
    assert reason_faults(f"memory per chip 34.36{nbsp}GB ≥ score matrix 34.4{nbsp}GB", before)
    assert reason_faults(f"memory per chip 34.36{nbsp}GB ≥ score matrix 34.36{nbsp}GB", before) == []
    # a figure no earlier line showed, and a threshold in percent: 16 % < 30 % holds
    assert reason_faults(f"compute time 181{nbsp}µs < memory time 190{nbsp}µs", before)
    assert reason_faults(f"achieved MFU 16{nbsp}% < 30{nbsp}%", f"achieved MFU = 16{nbsp}%") == []
    assert reason_faults("the timed code copies its data through the host", "") == []  # words


def test_a_whole_count_is_exact_from_its_printed_figures() -> None:
    """A ceiling (like a floor) is worked exactly from its figures: performance_model/optimal-batch
    --seed 31187213 prints system FLOP/s 8 × 756 TFLOP/s = 6.048 PFLOP/s and weight bytes 8.03B ×
    2 B = 16.06 GB. 6.048e15 × 16.06e9 = 9.713088e25 and 2 × 16e12 × 8.03e9 = 2.5696e23, whose
    quotient is 378 exactly, so ⌈…⌉ is 378; floats make it 378.00000000000006, whose ceiling 379
    no teacher writes. To 3 figures, 6.05 × 16.1 ÷ (2 × 16 × 8.03) = 379.07, whose ceiling is 380."""
    nbsp = "\u00a0"
    knee = f"⌈6.048{nbsp}PFLOP/s × 16.06{nbsp}GB ÷ (2 × 16{nbsp}TB/s × 8.03B{nbsp}params)⌉"
    assert face_value(knee) == 378
    assert face_value(knee.replace("6.048", "6.05").replace("16.06", "16.1")) == 380
    assert face_value(f"⌊6.048{nbsp}PFLOP/s × 16.06{nbsp}GB ÷ (2 × 16{nbsp}TB/s × 8.03B{nbsp}params)⌋") == 378
    tree = ("ceil", ("*", "flops", ("^", "bandwidth", -1), ("^", "params", -1), "weights", ("^", 2, -1)))
    shown = {  # as the step prints each figure with 0 or 1 more figures
        0: {"flops": "6.05 PFLOP/s", "bandwidth": "16 TB/s", "params": "8.03B", "weights": "16.1 GB"},
        1: {"flops": "6.048 PFLOP/s", "bandwidth": "16 TB/s", "params": "8.03B", "weights": "16.06 GB"},
    }
    units = {"flops": "FLOP/s", "bandwidth": "B/s", "params": "parameter", "weights": "B"}
    assert extra_figures(tree, lambda extra: shown[min(extra, 1)], units.__getitem__, "378", "1") == 1


def test_a_whole_count_is_exact_in_the_key_and_as_a_reader_works_it() -> None:
    """performance_model/optimal-batch --seed 347 gives 8 chips of 756 TFLOP/s and 2 TB/s and a
    69B-parameter model at 2 B/param: the weight-matmul knee batch is ⌈8 × 756e12 × 2 ÷ (2 × 8 ×
    2e12)⌉ = ⌈6.048e15 ÷ 16e12⌉ = ⌈378⌉ = 378 (the params cancel: weight bytes ÷ params = 2).
    Floats made the key 379, and the step's figures, 6.048 PFLOP/s × 138 GB ÷ (2 × 16 TB/s × 69B),
    gave a reader 379 too."""
    nbsp = "\u00a0"
    problem = generate(BANK.get("performance_model/optimal-batch"), 347, SPECS)
    givens = {
        given.label: given.value for section in problem.explanation.sections for given in section.givens
    }
    assert (givens["chips"], givens["peak FLOP/s"], givens["memory bandwidth"]) == (
        "8",
        f"756{nbsp}TFLOP/s",
        f"2{nbsp}TB/s",
    )
    assert givens["bytes per weight"] == f"2{nbsp}B/param"
    assert next(part.value for part in problem.parts if part.name == "per_op") == 378
    assert face_value(f"⌈6.048{nbsp}PFLOP/s × 138{nbsp}GB ÷ (2 × 16{nbsp}TB/s × 69B{nbsp}params)⌉") == 378
    assert problem_faults(problem) == []


def test_a_result_on_a_rounding_tie_gets_the_figures_that_reach_it() -> None:
    """training/dp-overlap --seed 17967029: all-reduce time = 2 × 18.48 GB ÷ (2 × 900 GB/s) =
    20.5333… ms, and critical tokens = 20.5333… ms × 2.25 PFLOP/s × 0.55 ÷ (4 × 9.24B) =
    2 × 2.25e15 × 0.55 ÷ (900e9 × 4) = 687.5 exactly, which the key rounds to 688. Figures rounded
    to the nearest approach 687.5 from below: 20.5 ms gives 686.38 and 20.5333 ms 687.4989, both
    687. Ten figures, 20.53333333 ms, give 687.49999989: 1.1e-7 short of 687.5, within the reader's
    slack of a billionth of the result (6.9e-7), so 688; nine, 20.5333333 ms, give 687.4999989,
    1.1e-6 short, which is not."""
    nbsp = "\u00a0"
    tokens = f"{{}}{nbsp}ms × 2.25{nbsp}PFLOP/s × 0.55 ÷ (4 × 9.24B{nbsp}params)"
    before = f"20.5{nbsp}ms 2.25{nbsp}PFLOP/s 55 % 9.24B{nbsp}params formula"
    for short in ("20.5", "20.5333", "20.5333333"):
        assert arithmetic_faults(tokens.format(short), f"688{nbsp}tokens", before), short
    assert arithmetic_faults(tokens.format("20.53333333"), f"688{nbsp}tokens", before) == []
    tree = ("*", ("^", "params", -1), "time", "flops", "mfu", ("^", 4, -1))
    units = {"params": "parameter", "time": "s", "flops": "FLOP/s", "mfu": "1"}

    def shown(extra: int) -> dict[str, str]:
        time = "20.5" + "3" * extra
        return {"params": "9.24B", "time": f"{time} ms", "flops": "2.25 PFLOP/s", "mfu": "0.55"}

    assert extra_figures(tree, shown, units.__getitem__, "688 tokens", "token") == 7


@pytest.mark.parametrize(
    ("template_id", "seed", "before_the_fix"),
    [
        ("speculative/measured-rounds", 22189038, "verification cost 1 ≥ k × c = 0.688"),
        ("matmul/compute-bound-rows", 22102329, "compute time 180\u00a0µs < memory time 180\u00a0µs"),
        (
            "attention_memory/score-matrix",
            24662539,
            "memory per chip 34.36\u00a0GB ≥ score matrix 34.4\u00a0GB",
        ),
    ],
)
def test_the_reasons_that_failed_before_now_hold_as_printed(
    template_id: str, seed: int, before_the_fix: str
) -> None:
    problem = generate(BANK.get(template_id), seed, SPECS)
    reasons = [text(reason) for step, _ in _walk(problem) for reason in step.reasons]
    assert reasons and before_the_fix not in reasons
    assert problem_faults(problem) == []


@pytest.mark.parametrize(
    ("template_id", "seed", "before_the_fix"),
    [
        ("performance_model/optimal-batch", 31187213, "⌈6.05\u00a0PFLOP/s × 16.1\u00a0GB"),
        ("performance_model/optimal-batch", 32129774, "⌈3.02\u00a0PFLOP/s × 16.1\u00a0GB"),
        ("training/dp-overlap", 17967029, "= 20.5\u00a0ms × 2.25\u00a0PFLOP/s"),
    ],
)
def test_the_steps_that_failed_at_100_seeds_now_recompute(
    template_id: str, seed: int, before_the_fix: str
) -> None:
    problem = generate(BANK.get(template_id), seed, SPECS)
    lines = [step.line() for step, _ in _walk(problem)]
    assert lines and not any(before_the_fix in line for line in lines)
    assert problem_faults(problem) == []


@pytest.mark.parametrize("template_id", [t.id for t in BANK.select()])
def test_every_printed_step_re_evaluates_to_its_result(template_id: str) -> None:
    template = BANK.get(template_id)
    faults = [
        fault for seed in _seeds(template_id) for fault in problem_faults(generate(template, seed, SPECS))
    ]
    assert faults == []
