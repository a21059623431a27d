"""The built-in bank as a whole: it checks clean, covers every family, and varies with the seed."""

from __future__ import annotations

import json
import os
import re
import stat
import threading
from collections import Counter
from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import draw_variant, generate
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.templates import DIFFICULTIES, FAMILIES

BANK = load_bank()


@pytest.mark.slow
def test_whole_bank_passes_check(run_cli) -> None:
    """The CI check: 500 seeds per template, and no choice part with a single answer over them all
    (over 90% of one answer fails check itself unless the part declares mostly_one_answer)."""
    code, out, _ = run_cli("check", "--seeds", "500")
    assert code == 0, out
    assert out.strip().endswith(f"{len(BANK.templates)} passed, 0 failed")
    shares = [line for line in out.splitlines() if line.startswith("  ") and " parts." in line]
    choice_parts = [(t.id, p.name) for t in BANK.templates.values() for p in t.parts if p.kind != "numeric"]
    assert len(shares) == len(choice_parts)
    for line in shares:
        assert len(re.findall(r" \d+%", line)) >= 2, line


def test_bank_covers_every_family_with_mixed_difficulty() -> None:
    assert len(BANK.templates) >= 30
    assert set(Counter(t.family for t in BANK.templates.values())) == set(FAMILIES)
    assert set(t.difficulty for t in BANK.templates.values()) == set(DIFFICULTIES)


def test_catalogue_has_the_issue_mistakes_and_templates_use_them() -> None:
    required = {
        "matmul-missing-2", "sparse-peak", "bits-as-bytes", "gib-as-gb", "kv-one-tensor",
        "query-heads-for-kv", "fp32-bytes", "weights-per-sequence", "all-reduce-one-pass",
        "all-reduce-whole-buffer", "training-2n", "unit-slip-high", "total-for-active", "summed-not-max",
    }  # fmt: skip
    assert required <= set(CATALOGUE)
    used = {m for t in BANK.templates.values() for p in t.parts for m in p.mistakes}
    assert used == set(CATALOGUE)


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_seeds_give_distinct_variants(template_id: str) -> None:
    specs = load_specs()
    template = BANK.get(template_id)
    seen = set()
    for seed in range(100):
        problem = generate(template, seed, specs)
        seen.add((problem.prompt, tuple(p.shown_answer for p in problem.parts)))
    assert len(seen) >= 90  # a space of 1000+ variants gives ~95 distinct draws in 100


def test_same_arguments_give_identical_output(run_cli) -> None:
    args = ("generate", "--count", "40", "--seed", "11", "--format", "md")
    first, second = run_cli(*args), run_cli(*args)
    assert first[0] == 0 and first == second
    assert run_cli("generate", "--count", "40", "--seed", "12")[1] != first[1]


def test_generate_json_contract(run_cli) -> None:
    count = len(BANK.templates)
    code, out, _ = run_cli("generate", "--count", str(count), "--seed", "3", "--format", "json")
    assert code == 0
    problems = json.loads(out)
    assert len(problems) == count
    assert len({p["family"] for p in problems}) == len(FAMILIES)  # one round covers every template
    for problem in problems:
        assert {"question", "seed", "title", "family", "prompt", "explanation", "parts"} <= set(problem)
        for part in problem["parts"]:
            assert {"name", "prompt", "kind", "unit"} <= set(part)
            if part["kind"] == "numeric":
                assert set(part["answer"]) == {"value", "unit"} and part["tolerance"]
            else:
                assert "choices" in part and "answer" in part


def test_generate_filters_and_answer_modes(run_cli) -> None:
    _, out, _ = run_cli(
        "generate", "--count", "5", "--family", "kv_cache", "--format", "json", "--answers", "none"
    )
    problems = json.loads(out)
    assert {p["family"] for p in problems} == {"kv_cache"}
    assert all("answer" not in part for p in problems for part in p["parts"])
    _, inline, _ = run_cli("generate", "--count", "2", "--answers", "inline")
    assert inline.count("<details>") == 2 and "Answer key" not in inline
    _, keyed, _ = run_cli("generate", "--count", "2", "--difficulty", "hard")
    assert "# Answer key" in keyed


def test_generated_answers_grade_correct_through_the_cli(run_cli) -> None:
    _, out, _ = run_cli("generate", "--count", "36", "--seed", "5", "--format", "json")
    for problem in json.loads(out):
        answers = []
        for part in problem["parts"]:
            if part["kind"] == "numeric":
                value, unit = part["answer"]["value"], part["answer"]["unit"]
                written = f"{value!r}" if unit == "1" else f"{value!r} {unit}"  # "5.0 1" is two numbers
                answers.append(f"{part['name']}={written}")
            elif part["kind"] == "choice":
                answers.append(f"{part['name']}={part['answer']}")
            else:
                letters = [chr(97 + part["choices"].index(c)) for c in part["answer"]]
                answers.append(f"{part['name']}={','.join(letters) or 'none'}")
        args = ["grade", "--question", problem["question"], "--seed", str(problem["seed"]), "--json"]
        for answer in answers:
            args += ["--answer", answer]
        code, graded, err = run_cli(*args)
        assert code == 0, err
        assert json.loads(graded)["score"] == 1.0, (problem["question"], graded)


def test_grade_json_contract(run_cli) -> None:
    code, out, _ = run_cli(
        "grade", "--question", "matmul/square-time", "--seed", "4", "--answer", "runtime=16.8 GB", "--json"
    )
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"score", "parts"}
    runtime = result["parts"]["runtime"]
    assert set(runtime) == {"status", "score", "expected", "feedback", "mistake"}
    assert runtime["status"] == "invalid" and "a time" in runtime["feedback"]
    assert set(runtime["expected"]) == {"value", "unit"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("grade", "--question", "matmul/square-tim", "--seed", "1"), "did you mean matmul/square-time"),
        (
            ("grade", "--question", "matmul/square-time", "--seed", "1", "--answer", "nope=1"),
            "has no part 'nope'",
        ),
        (
            ("grade", "--question", "matmul/square-time", "--seed", "1", "--answer", "runtime"),
            "write PART=TEXT",
        ),
        (("generate", "--count", "0"), "--count must be at least 1"),
        (("check", "/no/such/folder"), "no such file or folder"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(run_cli, args: tuple[str, ...], message: str) -> None:
    code, _, err = run_cli(*args)
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_list_json(run_cli) -> None:
    code, out, _ = run_cli("list", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(BANK.templates)
    assert set(rows[0]) >= {"id", "title", "family", "difficulty"}


def test_output_to_a_device_or_pipe_keeps_it_one(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`-o /dev/null` or a pipe is written through; renaming over it would replace the device."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    code, _, err = run_cli("generate", "--count", "1", "--seed", "3", "-o", str(pipe))
    reader.join(timeout=30)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert received and received[0].startswith(b"# perfdrill problem set")


def test_check_fails_a_choice_part_that_never_changes_unless_it_says_why(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    from tests.helpers import write_template

    # One chip, 1,024-cubed bf16 matmuls: always compute-bound on an H100 (intensity ≈ 341 > 295).
    constant = """
id: matmul/always
title: Always
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  k: {range: [1024, 2048], step: 1}
scenario: {chip: chip, dtype: bf16}
inputs: {m: 4096, k: k, n: 4096, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: bound, kind: choice, prompt: Bound?, answer: bound}
"""
    write_template(tmp_path, "matmul/always", constant)
    code, out, _ = run_cli("check", str(tmp_path), "--seeds", "60")
    assert code == 1
    assert "matmul/always parts.bound: compute 100%" in out  # the reported distribution
    assert "parts.bound: the answer is 'compute' in 100% of 60 variants" in out
    declared = constant.replace(
        "answer: bound}", "answer: bound, mostly_one_answer: big matmuls are compute-bound}"
    )
    write_template(tmp_path, "matmul/always", declared)
    code, out, _ = run_cli("check", str(tmp_path), "--seeds", "60")
    assert code == 0, out


def test_per_operation_knee_is_the_bf16_ridge() -> None:
    """Per operation, the weight matmuls turn compute-bound where 2·params·batch / peak equals
    2·params / bandwidth (bf16 weights): batch = peak / bandwidth, the ridge point, rounded up."""
    import math

    template = BANK.get("performance_model/optimal-batch")
    for seed in range(100):
        problem = generate(template, seed, load_specs())
        chip = problem.chips[0]
        ridge = chip.flops("bf16") / chip.memory_bandwidth.value
        assert problem.part("per_op").value == math.ceil(ridge), seed


def test_a_two_model_template_finds_a_variant_for_every_seed() -> None:
    """speculative/measured-rounds accepts about one draw in 20 (a draft must share the target's
    tokenizer); with a budget of 200 draws, seed 1864 found none, and a 10,000-problem set failed."""
    variant = draw_variant(BANK.get("speculative/measured-rounds"), 1864, load_specs())
    assert variant.params["draft"].vocab == variant.params["target"].vocab
