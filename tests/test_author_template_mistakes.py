"""Template mistakes that used to pass `perfdrill check` silently (issue 20, section 4): each is now
one line naming the file, the line and the field. Expected values are worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import write_template
from tests.test_check_findings import GOOD

# A ring all-reduce on H100s: 2·(N−1)/N · bytes ÷ 450 GB/s one way.
COLLECTIVE = """
id: parallelism/mine
title: Mine
family: parallelism
difficulty: medium
workload: group_collective
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  size: {range: [0.1, 16], sig_figs: 3}
  gpus: {choice: [2, 4, 8]}
scenario: {chip: chip}
inputs:
  collective_bytes: size * 1000000000
  participants: gpus
parts:
  - name: fast
    kind: numeric
    prompt: How long does the all-reduce take?
    answer: all_reduce_time
    unit: ms
"""


def _first_finding(root: Path, run_cli) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("check", str(root), "--seeds", "3")
    assert err == "" and "Traceback" not in out
    return code, out.splitlines()[0]


@pytest.mark.parametrize(
    ("old", "new", "finding"),
    [
        # "a gradient buffer of 580 µs", answered "0.00000129 ns": a time fed to a size.
        ("  size: {range: [0.1, 16], sig_figs: 3}", "  size: {range: [0.1, 16], sig_figs: 3, unit: ms}",
         "question.yaml:12: inputs.collective_bytes: 'size * 1000000000' is a time (s), "
         "but collective_bytes is a size (byte)"),
        ("  participants: gpus", "  participants: \"4 GB\"",
         "question.yaml:13: inputs.participants: '4 GB' is a size (byte), but participants is a plain number"),
        ("  collective_bytes: size * 1000000000", "  collective_bytes: \"10 ms\"",
         "question.yaml:12: inputs.collective_bytes: '10 ms' is a time (s), but collective_bytes is a size"),
        ("  collective_bytes: size * 1000000000", "  collective_bytes: \"10 parsecs\"",
         "question.yaml:12: inputs.collective_bytes: 'parsecs' is not a unit perfdrill knows"),
        # A misspelt sweep input was a no-op: every option got the same answer.
        ("    unit: ms\n", "    unit: ms\n  - {name: s, kind: multi, prompt: Which?, answer: all_reduce_time > 0.001,"
                          " sweep: {input: participantss, values: [2, 4]}}\n",
         "question.yaml:20: parts[1].sweep.input: unknown engine input 'participantss'; did you mean "
         "participants"),
        # Derived values are worked out top to bottom; a cycle used to say "unknown name".
        ("scenario: {chip: chip}", "scenario: {chip: chip}\nderived:\n  a: {value: b + 1}\n  b: {value: a + 1}",
         "question.yaml:12: derived.a.value: 'a' and 'b' are each worked out from the other (a cycle)"),
        ("scenario: {chip: chip}", "scenario: {chip: chip}\nderived:\n  a: {value: b + 1}\n  b: {value: size}",
         "question.yaml:12: derived.a.value: reads 'b', which is worked out below it"),
    ],
)  # fmt: skip
def test_what_feeds_the_engine_is_checked(tmp_path: Path, run_cli, old: str, new: str, finding: str) -> None:  # type: ignore[no-untyped-def]
    assert old in COLLECTIVE
    write_template(tmp_path, "parallelism/mine", COLLECTIVE.replace(old, new))
    code, line = _first_finding(tmp_path, run_cli)
    assert code == 1
    assert line.startswith(f"{tmp_path.name}/parallelism/mine/{finding}"), line


def test_a_parameter_named_like_an_engine_input_must_feed_it(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # The prompt showed mfu 0.4 while the scenario's mfu stayed 1: the parameter was shadowed.
    question = GOOD.replace("  batch: {range", "  mfu: {range: [0.3, 0.6], step: 0.05}\n  batch: {range")
    question = question.replace("  - fits == 1", "  - fits == 1\n  - mfu < 0.7")
    write_template(tmp_path, "kv_cache/mine", question)
    code, line = _first_finding(tmp_path, run_cli)
    assert code == 1
    assert line.startswith(
        f"{tmp_path.name}/kv_cache/mine/question.yaml:10: parameters.mfu: 'mfu' is also the name of an "
        "engine input, which the scenario sets itself"
    ), line
    write_template(tmp_path, "kv_cache/mine", question.replace("  batch: batch", "  batch: batch\n  mfu: mfu"))
    code, line = _first_finding(tmp_path, run_cli)
    assert code == 0, line


def test_quantities_with_units_feed_inputs_and_derived_values(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    from perfdrill.engine.model.specs import load_specs
    from perfdrill.engine.problems.generation import generate
    from perfdrill.engine.problems.templates import load_template

    # 2·(4−1)/4 × 1 GB ÷ 450 GB/s = 3.333 ms; with "1 GB" written as a quantity.
    question = COLLECTIVE.replace("  collective_bytes: size * 1000000000", '  collective_bytes: "1 GB"')
    question = question.replace("  gpus: {choice: [2, 4, 8]}", "  gpus: {choice: [4]}")
    question = question.replace("scenario: {chip: chip}", 'scenario: {chip: chip}\nderived:\n  budget: {value: "10 us"}')
    folder = write_template(tmp_path, "parallelism/mine", question, "A budget of {{ given.budget }}.\n")
    problem = generate(load_template(folder), 1, load_specs())
    assert problem.parts[0].value == pytest.approx(2 * 3 / 4 * 1e9 / 450e9 * 1e3)
    assert problem.prompt == "A budget of 10\u00a0µs."


@pytest.mark.parametrize(
    ("prompt", "finding"),
    [
        ("{{ batch | nmu }}", "prompt.md.j2:1: prompt: no filter named 'nmu'; did you mean num?"),
        ("Fine.\n{% if batch > 9999 %}{{ bacth }}{% endif %}",
         "prompt.md.j2:2: prompt: undefined in template: 'bacth' is undefined; did you mean batch?"),
    ],
)  # fmt: skip
def test_unknown_prompt_names_suggest_the_nearest(tmp_path: Path, run_cli, prompt: str, finding: str) -> None:  # type: ignore[no-untyped-def]
    write_template(tmp_path, "kv_cache/mine", GOOD, prompt)
    code, line = _first_finding(tmp_path, run_cli)
    assert code == 1 and line == f"{tmp_path.name}/kv_cache/mine/{finding}", line


def test_num_plural_and_a_an_are_functions_too() -> None:
    from perfdrill.engine.problems.prompts import render

    context = {"batch": 1024, "one": 1, "chip": "H100"}
    as_functions = "{{ num(batch) }} | {{ plural(one, 'sequence') }} | {{ a_an(chip) }}"
    as_filters = "{{ batch | num }} | {{ one | plural('sequence') }} | {{ chip | a_an }}"
    expected = "1,024 | 1\u00a0sequence | an H100"
    assert render(as_functions, context, file="f", field="prompt") == expected
    assert render(as_filters, context, file="f", field="prompt") == expected
