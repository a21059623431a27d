"""`perfdrill check`: validate templates and self-test them over many seeds.

For every seed: the expected answer must grade correct, the answer ×1.5 and ×0.5 incorrect, and
garbage invalid. (A slip within the answer's tolerance is not offered for that variant, and slips
that share a value are named together, so neither is a finding.) Over 50 or
more seeds, a choice part must not give one answer in more than 90% of variants (an answer that can
be memorised is not earned) unless the part says why in `mostly_one_answer`; and every variant must
keep the plausibility rules (plausibility.py). Each finding names the file, the field and the line.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.model.evaluation import INPUTS
from perfdrill.engine.model.input_bounds import LONGEST_RUN, implausible
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.model.spoken import counted
from perfdrill.engine.problems.answer_units import name_units
from perfdrill.engine.problems.bank import (
    builtin_root,
    clash,
    load_folders,
    template_folders,
    templates_under,
)
from perfdrill.engine.problems.explanation import letter
from perfdrill.engine.problems.families import FAMILY_FILE
from perfdrill.engine.problems.generation import FollowUpNotApplicable, Problem, ProblemPart, generate
from perfdrill.engine.problems.grading import grade_part
from perfdrill.engine.problems.parameter_draws import candidates
from perfdrill.engine.problems.plausibility import broken_rules
from perfdrill.engine.problems.quantities import unit_scale
from perfdrill.engine.problems.templates import QUESTION_FILE, Template
from perfdrill.engine.safe_text import safe_line

MIN_VARIANTS = 1000
GARBAGE = "banana"
MAX_ONE_ANSWER_SHARE = 0.9  # a choice part above this share of one answer needs `mostly_one_answer`
MIN_SHARE_SAMPLE = 50  # fewer seeds than this say too little about a part's answer shares
SEEDS_LISTED = 5  # seeds named in one finding; the rest are counted


@dataclass(frozen=True)
class Finding:
    file: str
    line: int | None
    field: str | None
    message: str

    def one_line(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        return safe_line(f"{where}: {self.field + ': ' if self.field else ''}{self.message}")


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
    """Findings for `template` over `seeds` variants, each problem once with the seeds it shows in;
    `answers` (if given) collects how often each choice part gives each answer."""
    answers = {} if answers is None else answers
    failing: dict[tuple[str | None, str], list[int]] = {}  # (field, problem) -> seeds
    details: dict[tuple[str | None, str], str] = {}  # (field, problem) -> its value at the first seed
    applied: dict[tuple[str, str], int] = {}  # (part, listed mistake) -> seeds where it applies
    findings: list[Finding] = []
    try:
        count = variant_count(template, specs)
        if count < MIN_VARIANTS:
            variants = counted(count, "distinct variant")
            findings.append(
                Finding(template.file, template.line_of("parameters") or 1, "parameters",
                        f"only {variants}; a template needs at least {MIN_VARIANTS}")
            )  # fmt: skip
        for seed in range(seeds):
            problem = generate(template, seed, specs)
            for field, message, detail in _variant_problems(template, problem):
                failing.setdefault((field, message), []).append(seed)
                details.setdefault((field, message), f" (seed {seed}: {detail})" if detail else "")
            for message in broken_rules(problem.variant):
                failing.setdefault(("constraints", message), []).append(seed)
                details.setdefault(("constraints", message), "")
            for asked, part in zip(problem.parts, template.parts, strict=True):
                if asked.kind != "numeric":
                    answers.setdefault(asked.name, Counter())[", ".join(asked.correct) or "none"] += 1
                for mistake, _ in asked.mistakes:
                    applied[part.name, mistake] = applied.get((part.name, mistake), 0) + 1
            if len(failing) >= 5:  # five different problems say enough
                break
        else:
            findings += _idle_mistakes(template, seeds, applied)
    except PerfdrillError as exc:
        findings.append(_finding(exc, template.file))
    located = [
        _located(template, field, message + details[field, message], seen)
        for (field, message), seen in failing.items()
    ]
    follow_ups = _follow_up_findings(template, specs, seeds)
    return located + findings + _one_answer_findings(template, answers) + follow_ups


def _located(template: Template, field: str | None, message: str, seeds: list[int]) -> Finding:
    """One problem with the seeds that show it: `seeds 0, 1, 2 and 47 more: …`."""
    shown = ", ".join(map(str, seeds[:SEEDS_LISTED]))
    more = f" and {len(seeds) - SEEDS_LISTED} more" if len(seeds) > SEEDS_LISTED else ""
    where = f"seed{'s' if len(seeds) > 1 else ''} {shown}{more}"
    line = None
    if field is not None:
        kind, _, name = field.partition(".")
        path = (kind, name) if name else (kind,)
        line = _part_line(template, name) if kind == "parts" else template.line(*path)
    return Finding(template.file, line, field, f"{where}: {message}")


def _idle_mistakes(template: Template, seeds: int, applied: dict[tuple[str, str], int]) -> list[Finding]:
    """A listed mistake that applies in none of the seeds is never diagnosed: drop it or say why."""
    if seeds < MIN_SHARE_SAMPLE:
        return []
    return [
        Finding(template.file, template.line("parts", index, "mistakes") or part.line,
                f"parts.{part.name}.mistakes",
                f"{mistake!r} applies in none of {seeds} variants (the slip cannot happen or changes "
                "nothing here), so it is never named: leave it out")
        for index, part in enumerate(template.parts)
        for mistake in part.mistakes
        if not applied.get((part.name, mistake))
    ]  # fmt: skip


def _variant_problems(template: Template, problem: Problem) -> list[tuple[str | None, str, str]]:
    """(field, problem, its value here) for what is wrong with one variant: its parts, and inputs no
    real system has. The problem's words are the same at every seed, so seeds group under it."""
    found: list[tuple[str | None, str, str]] = [
        (f"parts.{name}", message, detail) for name, message, detail in _part_problems(problem)
    ]
    inputs = problem.variant.inputs
    for wrong in implausible(inputs):
        detail = ", ".join(f"{n} = {inputs[n]:,.4g}" for n in wrong.names)
        found.append((_input_field(template, wrong.names[0]), wrong.said(str), detail))
    units = name_units(template)
    for derived in template.derived:  # a duration the prompt shows: "takes 254,000,…(290 digits) years"
        seconds = inputs[derived.name]
        if units.get(derived.name) == "s" and derived.name not in INPUTS and abs(seconds) > LONGEST_RUN:
            found.append(
                (f"derived.{derived.name}", "is over a century: no run lasts that long", f"{seconds:,.4g} s")
            )
    return found


def _input_field(template: Template, name: str) -> str | None:
    """The field that sets engine input `name`, where the template sets it."""
    if name in template.inputs:
        return f"inputs.{name}"
    if any(d.name == name for d in template.derived):
        return f"derived.{name}"
    return "scenario" if template.scenario else None


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
                Finding(*where, f"seed {seed}: parts.{name}: {said}" + (f" ({detail})" if detail else ""))
                for name, said, detail in _part_problems(problem)
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


def _part_problems(problem: Problem) -> list[tuple[str, str, str]]:
    """(part, problem, its value in this variant) for every part."""
    problems = []
    for part in problem.parts:
        for message, detail in _numeric_problems(part) if part.kind == "numeric" else _choice_problems(part):
            problems.append((part.name, message, detail))
        if grade_part(part, GARBAGE).status != "invalid":
            problems.append((part.name, f"garbage {GARBAGE!r} was not reported as invalid", ""))
    return problems


def _numeric_problems(part: ProblemPart) -> list[tuple[str, str]]:
    assert part.value is not None
    problems = []
    if not math.isfinite(part.value) or part.value == 0:
        return [("a numeric answer must be finite and non-zero", f"answer {part.value}")]
    dimension, factor = unit_scale(part.unit)
    if part.value < 0 and dimension != "1":
        return [("the answer is negative, and no time, size or count is", part.shown_answer)]
    if dimension == "s" and part.value * factor > LONGEST_RUN:
        return [("the answer is over a century, and no run lasts that long", part.shown_answer)]
    if grade_part(part, part.shown_answer).status != "correct":
        problems.append(("the expected answer does not grade correct", repr(part.shown_answer)))
    for times in (1.5, 0.5):
        unit = "" if part.unit == "1" else f" {part.unit}"  # "3.0", not "3.0 1": two numbers
        if grade_part(part, f"{part.value * times!r}{unit}").status != "incorrect":
            problems.append((f"the answer ×{times} does not grade incorrect", ""))
    return problems


def _choice_problems(part: ProblemPart) -> list[tuple[str, str]]:
    problems = []
    right = ", ".join(letter(part.choices.index(c)) for c in part.correct) or "none"
    if grade_part(part, right).status != "correct":
        problems.append(("the expected choice does not grade correct", repr(right)))
    if part.kind == "choice":
        for index, choice in enumerate(part.choices):
            if choice not in part.correct and grade_part(part, letter(index)).status != "incorrect":
                problems.append((f"the wrong choice {choice!r} does not grade incorrect", ""))
    return problems


def _clash(
    template: Template, checked: dict[str, Template], builtins: dict[str, Template]
) -> TemplateError | None:
    """A template that could not join the bank beside the others checked and the built-in ones."""
    first = checked.get(template.id) or builtins.get(template.id)
    if first is not None and first.folder.resolve() == template.folder.resolve():
        first = None  # itself, met first as a sibling of a folder checked before it
    problem = clash(template, first, set(builtins))
    if problem is None and template.override and template.id not in builtins:
        return TemplateError(
            "override: true, but no built-in question has this id", file=template.file,
            line=template.line("override"), field="override",
        )  # fmt: skip
    return problem


def _siblings(path: Path) -> list[Template]:
    """The templates of the root that holds `path` (a template or a family folder) outside `path`
    itself: their ids count as taken, as they will in the bank. Those that do not load are theirs
    to report, when they are checked."""
    if (path / QUESTION_FILE).is_file():
        root = path.parent.parent
    elif (path / FAMILY_FILE).is_file() or any((child / QUESTION_FILE).is_file() for child in path.iterdir()):
        root = path.parent
    else:
        return []
    inside = path.resolve()
    return [
        loaded
        for loaded in templates_under(root)
        if isinstance(loaded, Template) and not loaded.folder.resolve().is_relative_to(inside)
    ]


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
        for template in _siblings(root) if own else []:
            checked.setdefault(template.id, template)
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
