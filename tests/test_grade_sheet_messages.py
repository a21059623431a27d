"""What `perfdrill grade` and `mark` tell a student checking a printed sheet (instructor walk-through
findings 6-9): the sheet's letters, never the template's names; the student's own number in a
slip's explanation, never a fixed example; no app jargon; a percent part's own hint.

The matmul here is the hand-worked one of tests/helpers.py: 2·4096³ = 137,438,953,472 FLOP, at
989 TFLOP/s 138.97 µs; 3·4096²·2 = 100,663,296 bytes, at 3.35 TB/s 30.05 µs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.output.codes import problem_code
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.grading import grade_part
from perfdrill.engine.problems.mistakes import ANSWER, CATALOGUE
from tests.helpers import MATMUL, write_template
from tests.test_instructor import _answers, _matmul_set

# The memory time's share of the runtime, asked in percent: 30.05 / 138.97 = 21.6 %.
SHARES = """
id: matmul/h100-shares
title: 4096 cubed on an H100, as shares
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
scenario: {chip: chip, dtype: bf16}
inputs: {m: 4096, k: 4096, n: 4096, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - name: share
    kind: numeric
    prompt: What share of the runtime do the memory reads take?
    answer: memory_time / runtime
    unit: "%"
    mistakes: [percent-as-fraction]
  - {name: flops, kind: numeric, prompt: FLOPs?, answer: flops, unit: TFLOP, mistakes: [base-unit-for-tera]}
  - {name: count, kind: numeric, prompt: How many GPUs?, answer: "1", unit: "1"}
"""


@pytest.fixture
def shares(tmp_path: Path) -> Problem:
    folder = write_template(tmp_path, "matmul/h100-shares", SHARES)
    (template,) = load_folders([folder], tmp_path)
    return generate(template, 0, load_specs())


# Finding 6: a printed sheet's code names the problem; parts are its letters.
@pytest.fixture
def on_sheet(tmp_path: Path) -> tuple[str, ...]:
    write_template(tmp_path / "q", "matmul/h100-4096", MATMUL)
    code = problem_code("matmul/h100-4096", 0)
    return ("grade", "--questions", str(tmp_path / "q"), "--code", code)


@pytest.mark.parametrize("label", ["a", "A", "(a)", "a)", "1a", "1(a)", "3.a"])
def test_grade_reads_a_part_as_the_sheet_prints_it(on_sheet: tuple[str, ...], run_cli, label: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli(*on_sheet, "--answer", f"{label}=137.4 GFLOP")
    assert code == 0, err
    assert out.splitlines()[0] == "✓ (a) flops: Correct."


def test_an_unknown_part_on_a_sheet_names_its_letters_and_never_the_template(
    on_sheet: tuple[str, ...], run_cli
) -> None:  # type: ignore[no-untyped-def]
    for label in ("d", "(d)", "1d", "runtim"):
        code, out, err = run_cli(*on_sheet, "--answer", f"{label}=3")
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"no part {label!r}; it has parts a, b, c" in err
        assert "matmul" not in err and "runtime" not in err and "flops" not in err


def test_one_code_cannot_take_two_problems_numbers_nor_one_part_twice(
    on_sheet: tuple[str, ...], run_cli
) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_cli(*on_sheet, "--answer", "1a=137.4 GFLOP", "--answer", "2b=139 us")
    assert code == 2 and "--answer 1a and 2b: the code names one problem" in err and err.count("\n") == 1
    code, _, err = run_cli(*on_sheet, "--answer", "1a=137.4 GFLOP", "--answer", "b=139 us")
    assert code == 0, err  # one number, the other part bare: one problem
    code, _, err = run_cli(*on_sheet, "--answer", "a=137.4 GFLOP", "--answer", "(A)=68.7 GFLOP")
    assert code == 2 and "part (a) is answered twice" in err and err.count("\n") == 1


def test_grade_by_template_id_keeps_its_part_names(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_template(tmp_path / "q", "matmul/h100-4096", MATMUL)
    base = ("grade", "--questions", str(tmp_path / "q"), "--question", "matmul/h100-4096", "--seed", "0")
    code, _, err = run_cli(*base, "--answer", "d=3")
    assert code == 2 and "question 'matmul/h100-4096' has no part 'd'; parts: flops, runtime, bound" in err
    code, out, _ = run_cli(*base, "--answer", "b=139 us", "--answer", "flops=137.4 GFLOP")
    assert code == 0 and "score 67%" in out


# Finding 7: a slip that scales the answer quotes the student's own number.
@pytest.mark.parametrize(
    ("part", "typed", "told"),
    [
        ("share", "0.216", "The part asks for a percent: 0.216 as a fraction is 21.6 %."),
        ("share", "0.2162", "The part asks for a percent: 0.2162 as a fraction is 21.62 %."),
        (
            "flops",
            "1.374e11",  # 137.4 GFLOP typed in FLOP where TFLOP is asked
            "A plain number is read in the unit shown next to the part (TFLOP): 1.374e11 in base "
            "units is 0.1374 TFLOP.",
        ),
    ],
)
def test_a_slip_is_explained_with_the_students_own_number(
    shares: Problem, part: str, typed: str, told: str
) -> None:
    result = grade_part(shares.part(part), typed)
    assert result.status == "incorrect" and result.feedback.endswith(told)
    assert "0.198" not in result.feedback and "19.8" not in result.feedback


# A decimal number, or an amount of bandwidth or FLOPs, in a fixed explanation reads like an answer
# (the old "0.198 as a fraction is 19.8%", "one direction (450 GB/s)", "400 Gb/s is 50 GB/s");
# a rule such as "2 FLOP per parameter" is the method, not an example.
_EXAMPLE_VALUE = re.compile(r"\d\.\d|\d\s*(?:[kMGTP]?[Bb]/s|[kMGTP]?FLOP(?! per))")


def test_no_catalogued_explanation_quotes_a_fixed_example_value() -> None:
    quoting = [m.id for m in CATALOGUE.values() if _EXAMPLE_VALUE.search(m.explanation)]
    assert quoting == []
    with_number = [m for m in CATALOGUE.values() if m.with_number]
    assert {m.id for m in with_number} >= {"percent-as-fraction", "base-unit-for-tera"}
    assert all(ANSWER in m.targets for m in with_number)  # {undone} undoes a factor on the answer


# Finding 8: no app jargon where no app attempt is involved.
def test_a_part_left_empty_or_unreadable_is_told_without_app_jargon(shares: Problem) -> None:
    assert grade_part(shares.part("share"), "").feedback == "No answer given."
    assert grade_part(shares.part("share"), "  ").feedback == "No answer given."
    unreadable = grade_part(shares.part("share"), "banana")
    assert unreadable.status == "invalid" and "attempt" not in unreadable.feedback


def test_grade_and_mark_feedback_say_no_answer_given(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    questions, key, _ = _matmul_set(tmp_path, run_cli, 3)  # s002 leaves 1b empty
    feedback = tmp_path / "fb"
    run_cli(
        "mark", "--questions", str(questions), "--key", str(key), "--answers", str(_answers(tmp_path, 3)),
        "-o", str(tmp_path / "book.csv"), "--feedback", str(feedback),
    )  # fmt: skip
    note = (feedback / "s002.md").read_text(encoding="utf-8")
    assert "No answer given." in note and "attempt" not in note
    code = problem_code("matmul/h100-4096", 0)
    _, out, _ = run_cli("grade", "--questions", str(questions), "--code", code)
    assert out.splitlines()[0] == "? (a) flops: No answer given." and "attempt" not in out


# Finding 9: a percent part's hint, and a decimal comma refused, never guessed.
@pytest.mark.parametrize("typed", ["21,6 %", "21,6", "21,62%"])
def test_a_decimal_comma_in_a_percent_part_is_refused_with_a_percent_hint(
    shares: Problem, typed: str
) -> None:
    result = grade_part(shares.part("share"), typed)
    assert result.status == "invalid" and result.score == 0
    assert result.feedback == (
        f"answer {typed!r} has a decimal comma, which is not read: write a point; "
        "expected a percentage, e.g. 12.5 % or 12.5"
    )


def test_a_percent_part_asks_for_a_percentage_and_a_plain_part_for_a_number(shares: Problem) -> None:
    assert grade_part(shares.part("share"), "21.6 ms").feedback == (
        "answer '21.6 ms' is not a percentage (e.g. 12.5 % or 12.5)"
    )
    assert grade_part(shares.part("share"), "21.6 %").status == "correct"
    assert grade_part(shares.part("share"), "21.6").status == "correct"
    assert grade_part(shares.part("count"), "1,5").feedback == (
        "answer '1,5' has a decimal comma, which is not read: write a point; expected a plain number, e.g. 64"
    )
    assert grade_part(shares.part("count"), "1,000").status == "incorrect"  # a thousands comma still reads
