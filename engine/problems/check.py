"""`perfdrill check`: validate templates and self-test them over many seeds.

For every seed: the expected answer must grade correct, the answer ×1.5 and ×0.5 incorrect, and
garbage invalid. (A slip within the answer's tolerance is not offered for that variant, and slips
that share a value are named together, so neither is a finding.) Over 50 or
more seeds, a choice part must not give one answer in more than 90% of variants (an answer that can
be memorised is not earned) unless the part says why in `mostly_one_answer`. Each finding names the
file, the field and the line.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.problems.bank import (
    builtin_root,
    clash,
    load_folders,
    template_folders,
    templates_under,
)
from perfdrill.engine.problems.generation import FollowUpNotApplicable, Problem, ProblemPart, generate
from perfdrill.engine.problems.grading import grade_part
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import candidates

MIN_VARIANTS = 1000
GARBAGE = "banana"
MAX_ONE_ANSWER_SHARE = 0.9  # a choice part above this share of one answer needs `mostly_one_answer`
MIN_SHARE_SAMPLE = 50  # fewer seeds than this say too little about a part's answer shares


@dataclass(frozen=True)
class Finding:
    file: str
    line: int | None
    field: str | None
    message: str

    def one_line(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        return f"{where}: {self.field + ': ' if self.field else ''}{self.message}"


def _finding(error: PerfdrillError, fallback_file: str) -> Finding:
    return Finding(error.file or fallback_file, error.line, error.field, error.message)


def variant_count(template: Template, specs: SpecBook) -> int:
    """How many distinct parameter draws exist, before constraints."""
    total = 1
    for parameter in template.parameters:
        if parameter.kind != "range":
            total *= len(candidates(parameter, specs, template))
        elif parameter.step is not None:
            total *= int((parameter.high - parameter.low) // parameter.step) + 1
        else:
            assert parameter.sig_figs is not None
            total *= _sig_fig_values(parameter.low, parameter.high, parameter.sig_figs)
    return total


def _sig_fig_values(low: float, high: float, sig_figs: int) -> int:
    count = 0
    for exponent in range(math.floor(math.log10(max(low, 1e-300))), math.floor(math.log10(high)) + 1):
        step = 10.0 ** (exponent - sig_figs + 1)
        first = max(low, 10.0**exponent)
        last = min(high, 10.0 ** (exponent + 1) - step)
        if last >= first:
            count += round((last - first) / step) + 1
    return max(count, 1)


FOLLOW_UP_SEEDS = 20  # variants each follow-up is tried on


def self_test(
    template: Template, specs: SpecBook, seeds: int = 50, answers: dict[str, Counter[str]] | None = None
) -> list[Finding]:
    """Findings for `template` over `seeds` variants; `answers` (if given) collects how often each
    choice part gives each answer."""
    findings: list[Finding] = []
    answers = {} if answers is None else answers
    try:
        count = variant_count(template, specs)
        if count < MIN_VARIANTS:
            findings.append(
                Finding(template.file, template.line_of("parameters") or 1, "parameters",
                        f"only {count} distinct variants; a template needs at least {MIN_VARIANTS}")
            )  # fmt: skip
        for seed in range(seeds):
            problem = generate(template, seed, specs)
            for asked in problem.parts:
                if asked.kind != "numeric":
                    answers.setdefault(asked.name, Counter())[", ".join(asked.correct) or "none"] += 1
            for name, message in _part_problems(problem):
                findings.append(
                    Finding(
                        template.file, _part_line(template, name), f"parts.{name}", f"seed {seed}: {message}"
                    )
                )
            if len(findings) >= 5:  # one broken part fails every seed; five findings say enough
                break
    except PerfdrillError as exc:
        findings.append(_finding(exc, template.file))
    return findings + _one_answer_findings(template, answers) + _follow_up_findings(template, specs, seeds)


def _follow_up_findings(template: Template, specs: SpecBook, seeds: int) -> list[Finding]:
    """A follow-up no variant can take (it changes nothing, or always breaks a constraint) would
    never be asked: say so. Its parts must also grade their own answers."""
    findings = []
    for index, follow_up in enumerate(template.follow_ups):
        where = (template.file, template.line("follow_ups", index) or 1, f"follow_ups[{index}]")
        taken = 0
        for seed in range(min(seeds, FOLLOW_UP_SEEDS)):
            try:
                problem = generate(template, seed, specs, follow_up)
            except FollowUpNotApplicable:
                continue
            except PerfdrillError as exc:
                return [Finding(*where, f"seed {seed}: {exc.message}")]
            taken += 1
            findings += [
                Finding(*where, f"seed {seed}: parts.{name}: {said}")
                for name, said in _part_problems(problem)
            ]
        if not taken:
            findings.append(Finding(*where, f"applies to none of {min(seeds, FOLLOW_UP_SEEDS)} variants"))
    return findings


def _one_answer_findings(template: Template, answers: dict[str, Counter[str]]) -> list[Finding]:
    findings = []
    for part in template.parts:
        counts = answers.get(part.name)
        if not counts or part.mostly_one_answer:
            continue
        answer, count = counts.most_common(1)[0]
        total = sum(counts.values())
        if total >= MIN_SHARE_SAMPLE and count / total > MAX_ONE_ANSWER_SHARE:
            findings.append(
                Finding(template.file, part.line, f"parts.{part.name}",
                        f"the answer is {answer!r} in {count / total:.0%} of {total} variants; draw "
                        "variants where it changes, or say why in mostly_one_answer")
            )  # fmt: skip
    return findings


def distribution_line(template: Template, part: str, counts: Counter[str]) -> str:
    """One choice part's answers over the seeds, most common first: `id parts.x: a 60%, b 40%`."""
    total = sum(counts.values())
    shares = ", ".join(f"{answer} {count / total:.0%}" for answer, count in counts.most_common())
    return f"{template.id} parts.{part}: {shares}"


def _part_line(template: Template, name: str) -> int | None:
    return next((p.line for p in template.parts if p.name == name), None)


def _part_problems(problem: Problem) -> list[tuple[str, str]]:
    problems = []
    for part in problem.parts:
        for message in _numeric_problems(part) if part.kind == "numeric" else _choice_problems(part):
            problems.append((part.name, message))
        if grade_part(part, GARBAGE).status != "invalid":
            problems.append((part.name, f"garbage {GARBAGE!r} was not reported as invalid"))
    return problems


def _numeric_problems(part: ProblemPart) -> list[str]:
    assert part.value is not None
    problems = []
    if not math.isfinite(part.value) or part.value == 0:
        return [f"answer is {part.value}; a numeric answer must be finite and non-zero"]
    if grade_part(part, part.shown_answer).status != "correct":
        problems.append(f"the expected answer {part.shown_answer!r} does not grade correct")
    for factor in (1.5, 0.5):
        if grade_part(part, f"{part.value * factor!r} {part.unit}").status != "incorrect":
            problems.append(f"the answer ×{factor} does not grade incorrect")
    return problems


def _choice_problems(part: ProblemPart) -> list[str]:
    problems = []
    right = ", ".join(chr(ord("a") + part.choices.index(c)) for c in part.correct) or "none"
    if grade_part(part, right).status != "correct":
        problems.append(f"the expected choice {right!r} does not grade correct")
    if part.kind == "choice":
        for index, choice in enumerate(part.choices):
            if choice not in part.correct and grade_part(part, chr(ord("a") + index)).status != "incorrect":
                problems.append(f"the wrong choice {choice!r} does not grade incorrect")
    return problems


def _clash(
    template: Template, checked: dict[str, Template], builtins: dict[str, Template]
) -> TemplateError | None:
    """A template that could not join the bank beside the others checked and the built-in ones."""
    first = checked.get(template.id) or builtins.get(template.id)
    problem = clash(template, first, set(builtins))
    if problem is None and template.override and template.id not in builtins:
        return TemplateError(
            "override: true, but no built-in question has this id", file=template.file,
            line=template.line("override"), field="override",
        )  # fmt: skip
    return problem


def check_paths(
    paths: list[Path], specs: SpecBook, seeds: int, distributions: list[str] | None = None
) -> tuple[int, list[Finding]]:
    """Load and self-test every template under `paths`; returns (templates seen, findings).

    A template is also a finding when it could not join the bank: an id used twice, or a built-in
    id taken without `override: true`. `distributions`, if given, receives one line per choice
    part with its answers over the seeds.
    """
    seen = 0
    findings: list[Finding] = []
    home = builtin_root().resolve()
    builtins: dict[str, Template] | None = None
    checked: dict[str, Template] = {}
    for root in paths:
        own = not root.resolve().is_relative_to(home)
        if own and builtins is None:
            builtins = {t.id: t for t in load_folders(template_folders(home), home)}
        for loaded in templates_under(root):
            seen += 1
            if isinstance(loaded, PerfdrillError):
                findings.append(_finding(loaded, str(root)))
                continue
            problem = _clash(loaded, checked, builtins if own and builtins else {})
            if problem is not None:
                findings.append(_finding(problem, loaded.file))
                continue
            checked[loaded.id] = loaded
            answers: dict[str, Counter[str]] = {}
            findings += self_test(loaded, specs, seeds, answers)
            if distributions is not None:
                distributions += [distribution_line(loaded, part, c) for part, c in answers.items()]
    return seen, findings
