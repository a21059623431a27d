"""Problem sets as Markdown and JSON, written one problem at a time. The same Problem objects feed
the TUI and printed sets, so every number here comes from the engine, formatted in one place.

Student text names each problem by its opaque code; only the key (and JSON that carries answers)
gives the template id and seed. Memory stays flat for any count: a version's key is spooled to a
temporary file while its problems are written, then appended.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from perfdrill.engine.model.spoken import counted
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.output.versions import ParallelSet, Slot
from perfdrill.engine.problems.answers import letter, lettered
from perfdrill.engine.problems.generation import Problem, ProblemPart

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


@dataclass(frozen=True)
class ExplanationLine:
    """One line of a worked explanation, as plain Unicode: Markdown and the terminal style it."""

    kind: str  # "lead", "heading", "given" or "item" (a step or a what-if's change)
    text: str
    letters: str = ""  # the parts a step answers, e.g. "a" or "b, c"
    result: str = ""  # the result that answers them, which the text ends with


def explanation_lines(problem: Problem) -> list[ExplanationLine]:
    """The worked explanation line by line: the answers first, then each section's heading,
    givens and steps (a what-if as what it changes), the parts in the order asked."""
    explanation = problem.explanation
    lines = [ExplanationLine("lead", " ".join(explanation.lead))] if explanation.lead else []
    for section in explanation.sections:
        if section.heading:
            lines.append(ExplanationLine("heading", f"{section.heading}:"))
        if section.givens:
            given = " · ".join(f"{g.label} = {g.value}" for g in section.givens)
            lines.append(ExplanationLine("given", f"Given: {given}"))
        for item in section.items:
            if isinstance(item, str):
                lines.append(ExplanationLine("item", item))
            else:
                lines.append(_step_line(item, section.parts.get(item.name, "")))
    return lines


def _step_line(step: Step, letters: str) -> ExplanationLine:
    """A step; one that answers a part ends in its answer (a result, or a decided case's phrase),
    which is shown in bold."""
    if not letters or (step.formula is not None and step.reasons):  # ", since …" follows the result
        answer = ""
    else:
        answer = (step.phrase or "") if step.formula is None else step.result
    return ExplanationLine("item", step.line(), letters, answer)


def explanation_markdown(problem: Problem) -> str:
    """The worked explanation as Markdown: the conclusion, the givens, then the steps; each what-if
    as what it changes. A step that answers a part is marked with the part's letter."""
    blocks: list[str] = []
    for line in explanation_lines(problem):
        if line.kind == "item":
            text = _escape(line.text)
            if line.result:
                text = f"{_escape(line.text.removesuffix(line.result))}**{_escape(line.result)}**"
            marked = f"**({line.letters})** {text}" if line.letters else text
            if blocks and blocks[-1].startswith("- "):
                blocks[-1] += f"\n- {marked}"
            else:
                blocks.append(f"- {marked}")
        else:
            blocks.append(f"*{_escape(line.text)}*" if line.kind == "heading" else _escape(line.text))
    return "\n\n".join(blocks)


def _escape(text: str) -> str:
    """Text as Markdown shows it literally: a label or a template's value never turns into markup."""
    return re.sub(r"([\\`*_\[\]])", r"\\\1", text)


def part_markdown(index: int, part: ProblemPart) -> str:
    unit = f" *\\[{part.unit}\\]*" if part.kind == "numeric" and part.unit not in ("", "1") else ""
    text = f"**({letter(index)})** {part.prompt}{unit}"
    if part.kind != "numeric":
        note = " *(select all that apply)*" if part.kind == "multi" else " *(choose one)*"
        options = "  \n".join(f"&nbsp;&nbsp;☐ {letter(i)}. {choice}" for i, choice in enumerate(part.choices))
        text += f"{note}  \n{options}"
    return text


def answers_markdown(problem: Problem) -> str:
    lines = []
    for index, part in enumerate(problem.parts):
        if part.kind == "numeric":
            lines.append(f"**({letter(index)})** {part.keyed_answer}")
        else:
            lines.append(f"**({letter(index)})** {lettered(part, part.correct)}")
    return "  \n".join(lines) + "\n\n" + explanation_markdown(problem)


def _reference(problem: Problem) -> str:
    return f"*`{problem.id}` · seed {problem.seed} · `perfdrill preview {problem.id} --seed {problem.seed}`*"


def meta_line(slot: Slot) -> str:
    """What a problem's heading says under it: family, difficulty, points (one a part), code."""
    template = slot.problem.template
    points = counted(len(slot.problem.parts), "point")
    return f"{template.family_title} · {template.difficulty} · {points} · problem {slot.code}"


def problem_markdown(slot: Slot, *, inline_answer: bool) -> str:
    """One problem as a student reads it: its code, never its template id or seed."""
    problem, template = slot.problem, slot.problem.template
    header = f"## {slot.number}. {template.title}\n\n*{meta_line(slot)}*"
    body = "\n\n".join(part_markdown(i, part) for i, part in enumerate(problem.parts))
    text = f"{header}\n\n{problem.prompt}\n\n{body}\n"
    if inline_answer:
        answer = f"{_reference(problem)}\n\n{answers_markdown(problem)}"
        text += f"\n<details><summary>Answer</summary>\n\n{answer}\n\n</details>\n"
    return text


def key_markdown(slot: Slot) -> str:
    """One problem's key: code, template id and seed, answers and derivation."""
    problem = slot.problem
    return (
        f"## {slot.number}. {problem.template.title} · problem {slot.code}\n\n"
        f"{_reference(problem)}\n\n{answers_markdown(problem)}\n"
    )


def answer_text(part: ProblemPart) -> str:
    """A part's answer as a key shows it: the value, or the right options' letters and text."""
    return part.shown_answer if part.kind == "numeric" else lettered(part, part.correct)


def _grid_answers(problem: Problem) -> str:
    """Every part's answer on one line, as the key's answer grid lists them."""
    return "   ".join(f"({letter(i)}) {answer_text(part)}" for i, part in enumerate(problem.parts))


def _title(pset: ParallelSet, version: int, title: str) -> str:
    return " — ".join(filter(None, [title, pset.label(version)]))


def key_header(pset: ParallelSet, version: int, title: str, seed: int) -> str:
    return (
        f"# Answer key: {_title(pset, version, title)}\n\n*set seed {seed} · each problem's code maps to "
        "its template and seed; `perfdrill preview ID --seed SEED` shows that variant again*\n\n"
    )


def write_markdown_version(
    pset: ParallelSet,
    version: int,
    out: BinaryIO,
    *,
    title: str,
    date: str,
    answers: str,
    key: BinaryIO | None,
) -> None:
    """Version `version` as Markdown into `out`; with a `key` file, its key goes there instead of
    after the problems (`answers` "key" with no `key` file: the key follows the problems)."""
    points = f" · {counted(pset.points(), 'point')}, one a part" if pset.students else ""
    problems = counted(pset.count, "problem")
    out.write(f"# {_title(pset, version, title)}\n\n*{date} · {problems}{points}*\n\n".encode())
    with contextlib.ExitStack() as stack:
        spool = key
        if spool is None and answers == "key":
            spool = stack.enter_context(tempfile.TemporaryFile())  # deleted however the run ends
        # The answer grid ends the key; its lines wait on disk too (100,000 of them took 60 MB).
        grid = stack.enter_context(tempfile.TemporaryFile())  # stays empty without a key
        if spool is not None:
            spool.write(key_header(pset, version, title, pset.seed).encode())
        for slot in pset.slots(version):
            out.write((problem_markdown(slot, inline_answer=answers == "inline") + "\n").encode())
            if spool is not None:
                spool.write((key_markdown(slot) + "\n").encode())
                line = f"| {slot.number} | `{slot.code}` | {_escape(_grid_answers(slot.problem))} |\n"
                grid.write(line.encode())
        if spool is not None:
            spool.write(b"### Answer grid\n\n| # | code | answers |\n|---|---|---|\n")
            grid.seek(0)
            shutil.copyfileobj(grid, spool)
            spool.write(b"\n")
        if spool is not None and key is None:
            out.write(b"---\n\n")
            spool.seek(0)
            shutil.copyfileobj(spool, out)


def json_items(pset: ParallelSet, answers: str) -> Iterator[dict[str, Any]]:
    """Every problem of every version as JSON data. Without answers, the template id and seed go
    too, since `perfdrill preview` would give the answers back."""
    for version in range(pset.versions):
        for slot in pset.slots(version):
            item = {"code": slot.code, "number": slot.number, **problem_json(slot.problem)}
            if pset.students:
                student = pset.students[version]
                item["student"] = {"id": student.id, "name": student.name, **student.extra}
            elif pset.versions > 1:
                item["version"] = pset.label(version)
            if answers == "none":
                for name in ("question", "seed", "explanation"):
                    item.pop(name)
                for part in item["parts"]:
                    part.pop("answer")
            yield item


def write_json(items: Iterator[dict[str, Any]], out: BinaryIO) -> None:
    """A JSON array written item by item, laid out as `json.dumps(list, indent=2)` would."""
    out.write(b"[")
    for index, item in enumerate(items):
        text = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        out.write(f"{',' if index else ''}\n  {text}".encode())
    out.write(b"\n]\n")
