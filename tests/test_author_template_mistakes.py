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


DERIVED = "derived:\n  a: {value: b + 1}\n"


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
         "question.yaml:13: inputs.participants: '4 GB' is a size (byte), but participants is a plain "
         "number"),
        ("  collective_bytes: size * 1000000000", "  collective_bytes: \"10 ms\"",
         "question.yaml:12: inputs.collective_bytes: '10 ms' is a time (s), but collective_bytes is a size"),
        ("  collective_bytes: size * 1000000000", "  collective_bytes: \"10 parsecs\"",
         "question.yaml:12: inputs.collective_bytes: 'parsecs' is not a unit perfdrill knows"),
        # A misspelt sweep input was a no-op: every option got the same answer.
        ("    unit: ms\n", "    unit: ms\n  - {name: s, kind: multi, prompt: Which?, "
                          "answer: all_reduce_time > 0.001, sweep: {input: participantss, values: [2, 4]}}\n",
         "question.yaml:20: parts[1].sweep.input: unknown engine input 'participantss'; did you mean "
         "participants"),
        # Derived values are worked out top to bottom; a cycle used to say "unknown name".
        ("scenario: {chip: chip}", f"scenario: {{chip: chip}}\n{DERIVED}  b: {{value: a + 1}}",
         "question.yaml:12: derived.a.value: 'a' and 'b' are each worked out from the other (a cycle)"),
        ("scenario: {chip: chip}", f"scenario: {{chip: chip}}\n{DERIVED}  b: {{value: size}}",
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
    write_template(
        tmp_path, "kv_cache/mine", question.replace("  batch: batch", "  batch: batch\n  mfu: mfu")
    )
    code, line = _first_finding(tmp_path, run_cli)
    assert code == 0, line


def test_quantities_with_units_feed_inputs_and_derived_values(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    from perfdrill.engine.model import load_specs
    from perfdrill.engine.problems.generation import generate
    from perfdrill.engine.problems.template_loading import load_template

    # 2·(4−1)/4 × 1 GB ÷ 450 GB/s = 3.333 ms; with "1 GB" written as a quantity.
    question = COLLECTIVE.replace("  collective_bytes: size * 1000000000", '  collective_bytes: "1 GB"')
    question = question.replace("  gpus: {choice: [2, 4, 8]}", "  gpus: {choice: [4]}")
    question = question.replace(
        "scenario: {chip: chip}", 'scenario: {chip: chip}\nderived:\n  budget: {value: "10 us"}'
    )
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


@pytest.mark.parametrize(
    ("old", "new", "finding"),
    [
        # "−1.29 ms", graded correct: a negative buffer.
        ("  collective_bytes: size * 1000000000", "  collective_bytes: -size * 1000000000",
         "question.yaml:15: parts.fast: seeds 0, 1, 2: the answer is negative, and no time, size or count is "
         "(seed 0: −"),
        ("  participants: gpus", "  participants: gpus\n  link_latency: 1e12",
         "question.yaml:14: inputs.link_latency: seeds 0, 1, 2: link_latency is over a century: no run lasts "
         "that long (seed 0: link_latency = 1e+12)"),
    ],
)  # fmt: skip
def test_values_no_real_system_has_are_reported_once_with_their_seeds(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, old: str, new: str, finding: str
) -> None:
    assert old in COLLECTIVE
    write_template(tmp_path, "parallelism/mine", COLLECTIVE.replace(old, new))
    code, out, _ = run_cli("check", str(tmp_path), "--seeds", "3")
    lines = out.splitlines()
    assert code == 1 and lines[-1].endswith("0 passed, 1 failed")
    assert lines[0].startswith(f"{tmp_path.name}/parallelism/mine/{finding}"), lines[0]
    assert len(lines) == 3 if "collective_bytes" in new else 2, lines  # each once, not once per seed
    if "collective_bytes" in new:
        assert lines[1].startswith(
            f"{tmp_path.name}/parallelism/mine/question.yaml:12: inputs.collective_bytes: seeds 0, 1, 2: "
            "collective_bytes is negative: no size, count or time is (seed 0: collective_bytes = -"
        ), lines[1]


SCENARIO = "scenario: {chip: chip, model: model}"
WAIT = 'derived:\n  wait: {value: "1e300 s"}'


@pytest.mark.parametrize(
    ("base", "changes", "finding"),
    [
        (GOOD, (("  context: 4096", "  context: -4096"), ("  - fits == 1", "  - batch >= 1")),
         "question.yaml:14: inputs.context: seeds 0, 1, 2: context is negative: no size, count or time is "
         "(seed 0: context = -4,096)"),
        # A "0 params" model.
        (GOOD, ((SCENARIO, f"{SCENARIO}\nderived:\n  params: {{value: 0}}"),),
         "question.yaml:13: derived.params: seeds 0, 1, 2: params is zero: no real chip or model has none"),
        # A GB takes milliseconds over 450 GB/s (2·(4−1)/4 · 1e9 ÷ 450e9 s = 3.3 ms), so 1e21 times
        # as much takes some 1e11 years at the least.
        (COLLECTIVE, (("size * 1000000000", "size * 1e30"), ("unit: ms", "unit: s")),
         "question.yaml:15: parts.fast: seeds 0, 1, 2: the answer is over a century, and no run lasts that "
         "long (seed 0: "),
        # "takes 253,999,…(290 digits) years" in a prompt: a derived duration.
        (COLLECTIVE, (("scenario: {chip: chip}", f"scenario: {{chip: chip}}\n{WAIT}"),),
         "question.yaml:12: derived.wait: seeds 0, 1, 2: is over a century: no run lasts that long "
         "(seed 0: 1e+300 s)"),
    ],
)  # fmt: skip
def test_impossible_variants_are_reported(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, base: str, changes: tuple[tuple[str, str], ...], finding: str
) -> None:
    question = base
    for old, new in changes:
        assert old in question
        question = question.replace(old, new)
    template_id = "kv_cache/mine" if base is GOOD else "parallelism/mine"
    write_template(tmp_path, template_id, question)
    code, out, _ = run_cli("check", str(tmp_path), "--seeds", "3")
    assert code == 1 and f"{tmp_path.name}/{template_id}/{finding}" in out, out


def test_a_listed_mistake_that_never_applies_is_reported(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # An H100 all-reduce has no sparse peak to misread: `sparse-peak` can never be named here.
    question = COLLECTIVE.replace(
        "    unit: ms\n", "    unit: ms\n    mistakes: [sparse-peak, all-reduce-one-pass]\n"
    )
    write_template(tmp_path, "parallelism/mine", question)
    code, out, _ = run_cli("check", str(tmp_path), "--seeds", "50")
    assert code == 1
    assert (
        f"{tmp_path.name}/parallelism/mine/question.yaml:20: parts.fast.mistakes: 'sparse-peak' applies in "
        "none of 50 variants"
    ) in out
    assert "'all-reduce-one-pass' applies" not in out


def test_a_mistake_applies_where_one_of_its_replacements_can() -> None:
    from perfdrill.engine.model import load_specs
    from perfdrill.engine.problems.bank import load_bank
    from perfdrill.engine.problems.generation import generate

    # latency-once also replaces measured_step_latency, which reads a measured runtime this question
    # has not got; that used to drop the whole slip. Seed 3: 8 A100s (300 GB/s one way through the
    # switch), 46 MB, α = 8 µs. Ring: 2·7·8 µs + 2·7/8 · 46 MB ÷ 300 GB/s = 112 + 268.33 = 380.33 µs;
    # with α counted once: 8 + 268.33 = 276.33 µs.
    part = generate(load_bank().get("parallelism/alpha-beta"), 3, load_specs()).part("ring")
    assert part.value == pytest.approx(112 + 268.3333, rel=1e-6)
    assert dict(part.mistakes)["latency-once"] == pytest.approx(8 + 268.3333, rel=1e-6)


def test_checking_one_folder_sees_a_duplicate_id_in_a_sibling(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    prompt = "The KV cache.\n"
    write_template(tmp_path, "kv_cache/first", GOOD, prompt)
    second = write_template(tmp_path, "kv_cache/second", GOOD, prompt)  # the same id, kv_cache/mine
    code, out, _ = run_cli("check", str(second), "--seeds", "2")
    assert code == 1
    assert out.splitlines()[0] == (
        f"second/question.yaml:1: id: id 'kv_cache/mine' is already defined in "
        f"{tmp_path.name}/kv_cache/first/question.yaml; ids must be unique"
    )
    code, out, _ = run_cli("check", str(tmp_path / "kv_cache"), "--seeds", "2")
    assert code == 1 and out.count("is already defined") == 1  # once, for the second met


def test_generate_names_a_left_out_question_once(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # It used to warn, then say "unknown question 'kv_cache/mine'; did you mean kv_cache/max-batch…".
    write_template(tmp_path, "kv_cache/mine", GOOD.replace("difficulty: easy", "difficulty: eazy"), "KV.\n")
    code, out, err = run_cli("generate", "--questions", str(tmp_path), "--question", "kv_cache/mine")
    assert (code, out) == (2, "")
    assert err == (
        f"perfdrill: error: question 'kv_cache/mine' was left out: {tmp_path.name}/kv_cache/mine/"
        "question.yaml:4: difficulty: unknown difficulty 'eazy'; allowed: easy, medium, hard\n"
    )


def test_generate_prints_nothing_on_stdout_when_it_fails_half_way(run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from perfdrill.cli import printing
    from perfdrill.engine.errors import TemplateError

    def header_then_fail(pset, version, out, **_):  # type: ignore[no-untyped-def]
        out.write(b"# perfdrill problem set\n")
        raise TemplateError("could not be met", file="x/question.yaml", line=3)

    monkeypatch.setattr(printing, "write_markdown_version", header_then_fail)
    code, out, err = run_cli("generate", "--question", "kv_cache/max-batch", "--count", "1")
    assert (code, out) == (2, "")
    assert err == "perfdrill: error: x/question.yaml:3: could not be met\n"


@pytest.mark.parametrize(
    ("old", "new", "finding"),
    [
        ("title: Mine", "title: Time: 5 ms",
         "question.yaml:2: column 12: the value of 'title' holds ': ', which YAML reads as a second key: "
         "put the value in quotes"),
        ("  batch: batch", "\tbatch: batch",
         "question.yaml:13: column 1: a tab indents this line: YAML indents with spaces only"),
    ],
)  # fmt: skip
def test_yaml_slips_are_told_in_the_authors_terms(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, old: str, new: str, finding: str
) -> None:
    assert old in GOOD
    write_template(tmp_path, "kv_cache/mine", GOOD.replace(old, new))
    code, line = _first_finding(tmp_path, run_cli)
    assert code == 1 and line == f"{tmp_path.name}/kv_cache/mine/{finding}", line
