"""Grading against hand-derived and published answers, typed in many spellings, with named mistakes.

Every variant here comes from a template whose parameters each have one value, so the expected
numbers are worked out by hand in the test, never by the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfdrill.engine.model.specs import load_specs
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.grading import grade, grade_part
from tests.helpers import MATMUL, RIDGE, write_template

KV = """
id: kv_cache/llama2-7b
title: The seed's 7B KV cache
family: kv_cache
difficulty: easy
workload: decode
parameters:
  model: {model: {ids: [llama-2-7b]}}
scenario: {model: model}
inputs: {batch: 1, context: 4096}
parts:
  - name: per_token
    kind: numeric
    prompt: Bytes per token?
    answer: kv_bytes_per_token
    unit: KiB/token
    mistakes: [kv-one-tensor, fp32-bytes]
  - name: cache
    kind: numeric
    prompt: Cache at 4K?
    answer: kv_cache_bytes
    unit: GB
    mistakes: [gib-as-gb]
"""

SCORES = """
id: attention_memory/seed-17gb
title: The seed's score matrix
family: attention_memory
difficulty: easy
workload: attention
parameters:
  chip: {chip: {ids: [a100-80gb]}}
scenario: {chip: chip}
inputs: {batch: 4, heads: 32, sequence: 8192, activation_bytes: 2, head_dim: 128}
parts:
  - name: scores
    kind: numeric
    prompt: Size?
    answer: score_matrix_bytes
    unit: GB
    mistakes: [gib-as-gb, fp32-bytes]
  - {name: fits, kind: choice, prompt: Fits in 80 GB?, answer: score_matrix_fits}
"""


def _problem(tmp_path: Path, template_id: str, text: str) -> Problem:
    folder = write_template(tmp_path, template_id, text)
    (template,) = load_folders([folder], tmp_path)
    return generate(template, 0, load_specs())


@pytest.fixture
def matmul(tmp_path: Path) -> Problem:
    return _problem(tmp_path, "matmul/h100-4096", MATMUL)


# 2·4096³ = 137,438,953,472 FLOP; at 989 TFLOP/s that is 138.97 µs. Bytes: 3·4096²·2 = 100,663,296,
# at 3.35 TB/s 30.05 µs, so compute-bound at 138.97 µs.
@pytest.mark.parametrize("text", ["139 us", "139us", "0.139 ms", "1.39e-4 s", "139 µs", "138970 ns", "139"])
def test_matmul_runtime_in_many_spellings(matmul: Problem, text: str) -> None:
    assert grade_part(matmul.part("runtime"), text).status == "correct"


@pytest.mark.parametrize("text", ["137 GFLOP", "0.137 TFLOP", "1.374e11 FLOP", "137,439 MFLOP", "137.4"])
def test_matmul_flops_in_many_spellings(matmul: Problem, text: str) -> None:
    assert grade_part(matmul.part("flops"), text).status == "correct"


@pytest.mark.parametrize(
    ("part", "text", "mistake"),
    [
        ("flops", "68.7 GFLOP", "matmul-missing-2"),  # m·k·n
        ("runtime", "69.5 us", "sparse-peak"),  # at 1979 TFLOP/s
        ("runtime", "169 us", "summed-not-max"),  # 138.97 + 30.05
        ("runtime", "139 ms", "unit-slip-high"),
        ("runtime", "0.139 us", "unit-slip-low"),
    ],
)
def test_wrong_answers_name_the_mistake(matmul: Problem, part: str, text: str, mistake: str) -> None:
    result = grade_part(matmul.part(part), text)
    assert (result.status, result.mistake) == ("incorrect", mistake)
    assert "139" not in result.feedback  # feedback never gives the answer away


def test_unexplained_wrong_answer_says_direction_only(matmul: Problem) -> None:
    result = grade_part(matmul.part("runtime"), "400 us")
    assert result.status == "incorrect" and result.mistake is None
    assert result.feedback == "Not within 5%: too high."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("16.8 GB", "is not a time (e.g. 12 ms)"),
        ("banana", "does not start with a number"),
        ("12 parsecs", "unknown unit"),
        ("", "No answer given"),
    ],
)
def test_invalid_answers_cost_nothing_and_say_what_is_expected(
    matmul: Problem, text: str, message: str
) -> None:
    result = grade_part(matmul.part("runtime"), text)
    assert result.status == "invalid" and result.score == 0
    assert message in result.feedback and "no attempt used" in result.feedback


@pytest.mark.parametrize("text", ["b", "B", "2", "compute", "Compute", "comp"])
def test_choice_by_letter_number_or_text(matmul: Problem, text: str) -> None:
    assert grade_part(matmul.part("bound"), text).status == "correct"


def test_question_score_is_the_mean_of_its_parts(matmul: Problem) -> None:
    result = grade(matmul, {"flops": "137 GFLOP", "runtime": "69.5 us", "bound": "a"})
    assert result.score == pytest.approx(1 / 3, abs=1e-3)
    assert [p.status for p in result.parts.values()] == ["correct", "incorrect", "incorrect"]


def test_seed_kv_cache_half_a_megabyte_per_token(tmp_path: Path) -> None:
    # Seed: 2 × 32 layers × 32 heads × 128 × 2 bytes = 524,288 B = 0.5 MiB per token; 4K tokens = 2 GiB.
    problem = _problem(tmp_path, "kv_cache/llama2-7b", KV)
    for text in ("512 KiB", "0.5 MiB", "512", "524.288 kB", "524288 B/token", "512 KiB/token"):
        assert grade_part(problem.part("per_token"), text).status == "correct", text
    assert grade_part(problem.part("per_token"), "256 KiB").mistake == "kv-one-tensor"
    assert grade_part(problem.part("per_token"), "1 MiB").mistake == "fp32-bytes"
    assert grade_part(problem.part("cache"), "2 GiB").status == "correct"
    assert grade_part(problem.part("cache"), "2 GB").mistake == "gib-as-gb"


def test_seed_score_matrix_is_17_gb(tmp_path: Path) -> None:
    # Seed: 4 × 32 × 8192 × 8192 × 2 bytes = 17 GB per layer (17,179,869,184 B = 16 GiB exactly).
    problem = _problem(tmp_path, "attention_memory/seed-17gb", SCORES)
    for text in ("17 GB", "17.2 GB", "16 GiB", "1.718e10 B", "17.18"):
        assert grade_part(problem.part("scores"), text).status == "correct", text
    assert grade_part(problem.part("scores"), "16 GB").mistake == "gib-as-gb"
    assert grade_part(problem.part("scores"), "34.4 GB").mistake == "fp32-bytes"
    assert problem.part("fits").correct == ("yes",)


def test_workshop_l4_ridge_point(tmp_path: Path) -> None:
    # Workshop FAQ: 121 TFLOP/s ÷ 300 GB/s = 403.33 FLOP/byte; the sparse 242 TFLOP/s would give 806.67.
    part = _problem(tmp_path, "roofline/l4-ridge", RIDGE).part("ridge")
    for text in ("403 FLOP/B", "403.33", "403 flop/byte", "0.403 kFLOP/B"):
        assert grade_part(part, text).status == "correct", text
    assert grade_part(part, "807 FLOP/B").mistake == "sparse-peak"


def test_mistakes_that_collide_name_nothing(matmul: Problem) -> None:
    # 2·4096³ at 1979 TFLOP/s and m·k·n at 989 TFLOP/s are the same slip in disguise; listing both
    # would be ambiguous, so an answer matching two mistakes names neither.
    from dataclasses import replace

    part = matmul.part("runtime")
    doubled = replace(part, mistakes=(*part.mistakes, ("matmul-missing-2", part.mistakes[0][1])))
    assert grade_part(doubled, "69.5 us").mistake is None
