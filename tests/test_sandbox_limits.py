"""Every escape and exhaustion attempt on template text, each rejected as one located line.

Each attempt is a small template that once leaked a local file, hung for more than 20 s, ate
gigabytes, printed a gigabyte-long message or a traceback (issue 17). They all run through the
real `perfdrill check` in one child process with a timeout, so a hang fails the test instead of
the run. No assertion is about speed: only that each attempt is refused, with its file, its line
and the limit or wall it met.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import write_template
from tests.test_hostile_files import billion_laughs

GOOD = """
id: matmul/attempt
title: An attempt
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  m: {range: [16, 16384], step: 16}
scenario: {chip: chip, dtype: bf16}
inputs: {m: m, k: 1024, n: 1024, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: runtime, kind: numeric, prompt: Runtime?, answer: runtime, unit: us}
"""
ANSWER = "answer: runtime, unit: us}"
INPUT = "k: 1024,"


def nested(depth: int) -> str:
    return "(" * depth + "1" + ")" * depth


def long_sum(terms: int) -> str:
    return "+".join(["1"] * terms)


# name -> (question.yaml, prompt.md.j2, what the finding must say)
PROMPTS = {
    "text-times-ten-billion": ("{{ 'a' * 10**10 }}", "resource limit: repeating would make 10,000,000,000"),
    "power-tower": ("{{ 9 ** (9 ** 9) }}", "resource limit: 9 ** 387420489 would make"),
    "nested-loops": (
        "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
        "resource limit: the template ran more than 200,000 steps",
    ),
    "nested-loops-writing": (
        "{% for i in range(99999) %}{% for j in range(99999) %}x{% endfor %}{% endfor %}",
        "resource limit: the text grows past 100,000 characters",
    ),
    "recursive-loop": (
        "{% for x in range(99999) recursive %}{% if loop.depth < 2 %}{{ loop(range(99999)) }}"
        "{% endif %}{% endfor %}",
        "resource limit: the template ran more than 200,000 steps",
    ),
    "heavy-loop-body": (
        "{% for x in range(99999) %}{{ range(99999) | list | sort | length }}{% endfor %}",
        "resource limit",
    ),
    "lipsum": ("{{ lipsum(10**7) }}", "'lipsum' is undefined"),
    "format-width": ("{{ '{:>999999999}'.format(1) }}", "resource limit: a format width or precision"),
    "format-precision": ("{{ '{:.999999999f}'.format(1.0) }}", "resource limit: a format width or precision"),
    "printf-width": ("{{ '%999999999s' % 1 }}", "resource limit: a % format width"),
    "printf-filter": ("{{ '%999999999s' | format(1) }}", "resource limit: a % format width"),
    "center": ("{{ 'x' | center(10**9) }}", "resource limit: a width would make"),
    "ljust": ("{{ 'x'.ljust(10**9) }}", "resource limit: a width would make"),
    "list-times-a-billion": ("{{ [1] * 10**9 }}", "resource limit: repeating would make 1,000,000,000 items"),
    "join-amplified": ("{{ (['a' * 1000] * 1000) | join }}", "resource limit: joining would make"),
    "replace-amplified": (
        "{{ ('a' * 1000).replace('a', 'b' * 1000) }}",
        "resource limit: replacing would make",
    ),
    "doubling-namespace": (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}{{ ns.s | length }}",
        "resource limit: the text grows past 100,000 characters",
    ),
    "doubling-blocks": (
        "{% set a = 'x' * 60000 %}{% set b %}{{ a }}{{ a }}{% endset %}{{ b | length }}",
        "resource limit: the text grows past 100,000 characters",
    ),
    "recursive-macro": (
        "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
        "resource limit: recursion too deep",
    ),
    "nested-brackets": ("{{ " + nested(300) + " }}", "resource limit: the template is nested too deeply"),
    "fifty-thousand-terms": ("{{ " + long_sum(50_000) + " }}", "resource limit: the template is nested too"),
    "class-walk": ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "security error"),
    "translate": ("{{ 'a'.translate({97: 'b' * 99999}) }}", "security error: str.translate"),
    "random": ("{{ [1, 2] | random }}", "no filter named 'random'"),
    "append": ("{% set l = [] %}{{ l.append(1) }}", "security error"),
    "internal-class-name": ("{{ given.nothing }}", "given has no quantity 'nothing'"),
}
EXPRESSIONS = {
    "answer-power-tower": ((ANSWER, "answer: 9**9**9 * bytes, unit: us}"), "a number too large to compute"),
    "constraint-power-tower": (
        (ANSWER, ANSWER + "\nconstraints:\n  - m >= 10**10**10"),
        "a number too large to compute",
    ),
    "text-in-expression": ((INPUT, "k: \"'a' * 10**9\","), "can't multiply sequence by non-int"),
    "nested-expression": ((INPUT, f'k: "{nested(300)}",'), "too many nested parentheses"),
    "long-expression": ((INPUT, f'k: "{long_sum(50_000)}",'), "characters long; at most 1,000"),
    "billion-laughs": ((ANSWER, ANSWER + "\n" + billion_laughs()), "YAML anchors and aliases"),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every attempt under one root, checked by one child process; its lines by attempt name."""
    root = tmp_path_factory.mktemp("attempts")
    for name, (prompt, _) in PROMPTS.items():
        write_template(root, f"matmul/{name}", GOOD.replace("matmul/attempt", f"matmul/{name}"), prompt)
    for name, ((old, new), _) in EXPRESSIONS.items():
        question = GOOD.replace("matmul/attempt", f"matmul/{name}").replace(old, new)
        write_template(root, f"matmul/{name}", question)
    leak = write_template(root, "matmul/leaky-prompt", GOOD.replace("matmul/attempt", "matmul/leaky-prompt"))
    (leak / "prompt.md.j2").unlink()
    os.symlink("/etc/passwd", leak / "prompt.md.j2")
    outside = root.parent / f"{root.name}-outside.yaml"
    outside.write_text(GOOD.replace("matmul/attempt", "matmul/leaky-question"), encoding="utf-8")
    leak = write_template(root, "matmul/leaky-question", "")
    (leak / "question.yaml").unlink()
    os.symlink(outside, leak / "question.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "perfdrill", "check", str(root), "--seeds", "2"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and done.stderr == "", done.stderr[-2000:]
    assert "Traceback" not in done.stdout
    lines: dict[str, str] = {}
    for line in done.stdout.splitlines():
        match = re.match(rf"{root.name}/matmul/([a-z-]+)/", line)
        if match:
            assert match[1] not in lines, f"two findings for {match[1]}"
            lines[match[1]] = line
    return lines


@pytest.mark.parametrize("name", list(PROMPTS))
def test_a_prompt_attempt_is_one_located_line(findings: dict[str, str], name: str) -> None:
    line = findings[name]
    assert re.match(rf"\S+/matmul/{name}/prompt\.md\.j2(:\d+)?: prompt: ", line), line
    assert PROMPTS[name][1] in line and len(line) < 400


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_an_expression_attempt_is_one_located_line(findings: dict[str, str], name: str) -> None:
    line = findings[name]
    assert re.match(rf"\S+/matmul/{name}/question\.yaml:\d+: ", line), line
    assert EXPRESSIONS[name][1] in line and len(line) < 400


@pytest.mark.parametrize("name", ["leaky-prompt", "leaky-question"])
def test_a_file_linked_from_outside_its_folder_is_refused(findings: dict[str, str], name: str) -> None:
    assert "is a link to a file outside its folder" in findings[name]
    assert "root:" not in findings[name]


def _perfdrill(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfdrill", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_20_mb_prompt_is_refused_by_preview(tmp_path: Path) -> None:
    folder = write_template(tmp_path, "matmul/attempt", GOOD)
    (folder / "prompt.md.j2").write_text("word " * 4_000_000, encoding="utf-8")
    done = _perfdrill("preview", str(folder))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "perfdrill: error: matmul/attempt/prompt.md.j2: is larger than 1 MiB, the most perfdrill reads "
        "from one file\n"
    )


def test_terminal_control_characters_never_reach_the_output(tmp_path: Path) -> None:
    prompt = "Red \x1b[31mtext\x1b[0m, a bell \x07, a title \x1b]0;pwned\x07 and a tab\tstays.\n"
    folder = write_template(tmp_path, "matmul/attempt", GOOD, prompt)
    done = _perfdrill("preview", str(folder))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "Red text, a bell" in done.stdout
    done = _perfdrill(
        "generate", "--questions", str(tmp_path), "--question", "matmul/attempt", "--count", "1"
    )
    assert done.returncode == 0, done.stderr
    assert "Red text, a bell , a title  and a tab\tstays." in done.stdout and "\x1b" not in done.stdout
