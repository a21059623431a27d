"""Problem sets as Markdown and JSON. The same Problem objects feed the TUI and printed sets, so
every number here comes from the engine, formatted in one place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfdrill.engine.problems.answers import letter, lettered
from perfdrill.engine.problems.generation import Problem, ProblemPart
from perfdrill.engine.problems.templates import FAMILIES

ANSWER_MODES = ("key", "inline", "none")


def part_json(part: ProblemPart) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": part.name,
        "prompt": part.prompt,
        "kind": part.kind,
        "unit": part.unit or None,
    }
    if part.kind == "numeric":
        data["answer"] = {"value": part.value, "unit": part.unit}
        data["tolerance"] = {part.tolerance[0]: part.tolerance[1]}
    else:
        data["choices"] = list(part.choices)
        data["answer"] = part.correct[0] if part.kind == "choice" else list(part.correct)
    return data


def problem_json(problem: Problem) -> dict[str, Any]:
    template = problem.template
    return {
        "question": problem.id,
        "seed": problem.seed,
        "title": template.title,
        "family": template.family,
        "difficulty": template.difficulty,
        "prompt": problem.prompt,
        "explanation": explanation_markdown(problem),
        "parts": [part_json(part) for part in problem.parts],
        "hints": list(problem.hints),
    }


def explanation_markdown(problem: Problem) -> str:
    lines: list[str] = []
    for section in problem.sections:
        if section.heading:
            lines.append(f"\n*With {section.heading}:*\n")
        for step in section.steps:
            lines.append(f"- `{step.formula}` = {step.substituted} = **{step.result}** — {step.doc}")
    if problem.insights:
        lines.append("")
        lines += [f"> {sentence}" for sentence in problem.insights]
    return "\n".join(lines).strip()


def part_markdown(index: int, part: ProblemPart) -> str:
    unit = f" *[{part.unit}]*" if part.kind == "numeric" and part.unit not in ("", "1") else ""
    text = f"**({letter(index)})** {part.prompt}{unit}"
    if part.kind != "numeric":
        note = " *(select all that apply)*" if part.kind == "multi" else ""
        options = "  \n".join(f"&nbsp;&nbsp;{letter(i)}. {choice}" for i, choice in enumerate(part.choices))
        text += f"{note}  \n{options}"
    return text


def answers_markdown(problem: Problem) -> str:
    lines = []
    for index, part in enumerate(problem.parts):
        if part.kind == "numeric":
            lines.append(f"**({letter(index)})** {part.shown_answer}")
        else:
            lines.append(f"**({letter(index)})** {lettered(part, part.correct)}")
    return "  \n".join(lines) + "\n\n" + explanation_markdown(problem)


def problem_markdown(number: int, problem: Problem, *, inline_answer: bool) -> str:
    template = problem.template
    header = (
        f"## {number}. {template.title}\n\n"
        f"*{FAMILIES[template.family]} · {template.difficulty} · `{problem.id}` seed {problem.seed}*"
    )
    body = "\n\n".join(part_markdown(i, part) for i, part in enumerate(problem.parts))
    text = f"{header}\n\n{problem.prompt}\n\n{body}\n"
    if inline_answer:
        text += f"\n<details><summary>Answer</summary>\n\n{answers_markdown(problem)}\n\n</details>\n"
    return text


def set_markdown(problems: Sequence[Problem], *, title: str, date: str, seed: int, answers: str) -> str:
    out = [f"# {title}\n\n*{date} · seed {seed} · {len(problems)} problems*\n"]
    out += [problem_markdown(i + 1, p, inline_answer=answers == "inline") for i, p in enumerate(problems)]
    if answers == "key":
        out.append("---\n\n# Answer key\n")
        out += [f"## {i + 1}. {p.template.title}\n\n{answers_markdown(p)}\n" for i, p in enumerate(problems)]
    return "\n".join(out)
