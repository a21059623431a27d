"""What `perfdrill check` used to miss or word badly (issue 17), each now one precise line: file
relative to the checked folder, line, field, and what to do. And a broken template of the user's
own never takes the bank down: `list` and `generate` name it in one line and go on without it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import write_template

GOOD = """
id: kv_cache/mine
title: Mine
family: kv_cache
difficulty: easy
tags: [kv-cache]
workload: decode
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  model: {model: {ids: [llama-3.1-8b]}}
  batch: {range: [1, 1024], step: 1}
scenario: {chip: chip, model: model}
inputs:
  batch: batch
  context: 4096
constraints:
  - fits == 1
parts:
  - name: cache
    kind: numeric
    prompt: How large is the KV cache?
    answer: kv_cache_bytes
    unit: GB
hints:
  - Two tensors per layer.
"""


def _check(root: Path, run_cli) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("check", str(root), "--seeds", "2")
    assert err == ""
    return code, [line for line in out.splitlines() if not line.startswith(("  ", "choice answers"))]


@pytest.mark.parametrize(
    ("old", "new", "finding"),
    [
        ("  context: 4096", "  context: 4096\n  contxt: 5",
         "question.yaml:15: inputs.contxt: unknown engine input 'contxt'; did you mean context"),
        ("  - fits == 1", "  - max_batch + 2",
         "question.yaml:16: constraints[0]: a constraint must be true or false, such as 'x >= 2', "
         "but 'max_batch + 2' is a number"),
        ("    answer: kv_cache_bytes", "    answer: kv_bytes_per_tokn",
         "question.yaml:21: parts[0].answer: unknown name 'kv_bytes_per_tokn'; "
         "did you mean kv_bytes_per_token"),
        ("    answer: kv_cache_bytes", "    answer: kv_bytes_per_token",
         "question.yaml:21: parts.cache.unit: answer 'kv_bytes_per_token' computes B / tokens "
         "but the unit is 'GB'"),
        ("    answer: kv_cache_bytes", "    answer: drafting.runtime",
         "question.yaml:21: parts[0].answer: unknown scenario 'drafting' in 'drafting.runtime'; "
         "scenarios: none"),
        ("{range: [1, 1024], step: 1}", "{range: [1, 1024], step: -4}",
         "question.yaml:10: parameters.batch.step: must be positive, not -4"),
        ("tags: [kv-cache]", "tags: [kv-cache, 5]", "question.yaml:5: tags[1]: must be text, not 5"),
        ("  - Two tensors per layer.", "  - {a: 1}",
         "question.yaml:24: hints[0]: must be text, not a mapping"),
        ("  - Two tensors per layer.", "  - Two tensors: K and V",
         "question.yaml:24: hints[0]: must be text, not a mapping (a ': ' in unquoted text makes one"),
        ("    prompt: How large is the KV cache?", "    prompt: |\n      How large\n      is {% if %} it?",
         "question.yaml:20: parts.cache.prompt: Jinja syntax error: Expected an expression, got 'end of "
         "statement block' (line 2 of this text)"),
        # text choices are fine until used as a number
        ("  batch: {range: [1, 1024], step: 1}",
         "  batch: {range: [1, 1024], step: 1}\n  kind: {choice: [a, b]}", None),
        ("scenario: {chip: chip, model: model}", "scenario: {chip: chip, model: model, chips: model}",
         "question.yaml:11: scenario: chips must be a whole number, not the model 'llama-3.1-8b'"),
    ],
)  # fmt: skip
def test_check_names_each_problem_on_its_line(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, old: str, new: str, finding: str | None
) -> None:
    assert old in GOOD
    write_template(tmp_path, "kv_cache/mine", GOOD.replace(old, new))
    code, lines = _check(tmp_path, run_cli)
    if finding is None:
        assert code == 0, lines
        return
    assert code == 1 and lines[-1].endswith("0 passed, 1 failed"), lines
    assert lines[0].startswith(f"{tmp_path.name}/kv_cache/mine/{finding}"), lines[0]


def test_text_used_as_a_chip_count_is_located(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    question = GOOD.replace("  batch: {range", "  count: {choice: [a, b]}\n  batch: {range").replace(
        "scenario: {chip: chip, model: model}", "scenario: {chip: chip, model: model, chips: count}"
    )
    write_template(tmp_path, "kv_cache/mine", question)
    code, lines = _check(tmp_path, run_cli)
    assert code == 1
    assert re.fullmatch(
        f"{tmp_path.name}/kv_cache/mine/question.yaml:12: scenario: chips must be a whole number, not '[ab]'",
        lines[0],
    )


def test_a_choice_answer_must_be_one_labelled_quantity(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # Found by tests/test_template_fuzz.py: `answer: 0` on a choice part ended in a traceback.
    question = GOOD.replace(
        "    unit: GB\n", "    unit: GB\n  - {name: larger, kind: choice, prompt: Which?, answer: 0}\n"
    )
    write_template(tmp_path, "kv_cache/mine", question)
    code, lines = _check(tmp_path, run_cli)
    assert code == 1 and lines[0].startswith(
        f"{tmp_path.name}/kv_cache/mine/question.yaml:23: parts[1].answer: a choice answer names one "
        "labelled quantity (bound, fits, larger_read,"
    ), lines[0]
    assert lines[0].endswith("not '0'")


@pytest.mark.parametrize(
    ("prompt", "finding"),
    [
        # Located at its line, in the file as the checked folder names it (not an absolute path).
        ("The model.\n{{ modle.name }}\n",
         "prompt.md.j2:2: prompt: undefined in template: 'modle' is undefined"),
        # No Python class names: what is missing, and what is there.
        ("{{ given.kv_bytes }}", "prompt.md.j2:1: prompt: undefined in template: given has no quantity "
                                 "'kv_bytes' in this template (`perfdrill quantities decode` lists them)"),
        ("{{ chip.nmae }}",
         "prompt.md.j2:1: prompt: undefined in template: no field 'nmae' here; fields: id, name,"),
        ("{{ chip.name.nope }}", "prompt.md.j2:1: prompt: undefined in template: text has no field 'nope'"),
    ],
)  # fmt: skip
def test_prompt_problems_are_located_in_their_own_words(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, prompt: str, finding: str
) -> None:
    write_template(tmp_path, "kv_cache/mine", GOOD, prompt)
    code, lines = _check(tmp_path, run_cli)
    assert code == 1 and lines[0].startswith(f"{tmp_path.name}/kv_cache/mine/{finding}"), lines[0]
    assert "engine.problems" not in lines[0] and "object" not in lines[0]


def test_duplicate_and_shadowing_ids_fail_check(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_template(tmp_path, "kv_cache/mine", GOOD)
    write_template(tmp_path, "kv_cache/copy", GOOD)
    write_template(tmp_path, "kv_cache/shadow", GOOD.replace("kv_cache/mine", "kv_cache/max-batch"))
    write_template(
        tmp_path, "kv_cache/stray", GOOD.replace("kv_cache/mine", "kv_cache/stray").replace(
            "tags:", "override: true\ntags:"
        ),
    )  # fmt: skip
    code, lines = _check(tmp_path, run_cli)
    name = tmp_path.name
    assert code == 1
    assert lines == [
        f"{name}/kv_cache/mine/question.yaml:1: id: id 'kv_cache/mine' is already defined in "
        f"{name}/kv_cache/copy/question.yaml; ids must be unique",
        f"{name}/kv_cache/shadow/question.yaml:1: id: id 'kv_cache/max-batch' is already defined in "
        "questions/kv_cache/max-batch/question.yaml; set `override: true` to replace a built-in",
        f"{name}/kv_cache/stray/question.yaml:5: override: override: true, but no built-in question "
        "has this id",
        "4 templates checked over 2 seeds: 1 passed, 3 failed",
    ]
    code, _, err = run_cli("new", "kv_cache/max-batch", "--into", str(tmp_path / "new"))
    assert code == 2 and "'kv_cache/max-batch' is a built-in question; pick another slug" in err
    assert not (tmp_path / "new").exists()


def test_one_broken_template_never_takes_the_bank_down(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_template(tmp_path, "kv_cache/mine", GOOD)
    write_template(tmp_path, "kv_cache/broken", GOOD.replace("kv_cache/mine", "kv_cache/broken").replace(
        "difficulty: easy", "difficulty: brutal"
    ))  # fmt: skip
    warning = (
        f"perfdrill: warning: {tmp_path.name}/kv_cache/broken/question.yaml:4: difficulty: unknown "
        "difficulty 'brutal'; allowed: easy, medium, hard (left out)\n"
    )
    code, out, err = run_cli("list", "--questions", str(tmp_path))
    assert (code, err) == (0, warning) and "kv_cache/mine" in out and "kv_cache/broken" not in out
    code, out, err = run_cli(
        "generate", "--questions", str(tmp_path), "--question", "kv_cache/mine", "--count", "1"
    )
    assert (code, err) == (0, warning) and "## 1. Mine" in out
    code, out, err = run_cli(
        "grade", "--questions", str(tmp_path), "--question", "kv_cache/mine", "--seed", "1"
    )
    assert code == 0 and err == warning
    assert _check(tmp_path, run_cli)[0] == 1  # only check fails on it
