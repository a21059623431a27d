"""What marking writes: a gradebook CSV, a Canvas gradebook import, a feedback file per student,
and the instructor's per-part summary of the mistakes most often made.

The gradebook has one row per student: id, name, a column per part (points, one a part), the
total and the points possible. Moodle's grade import (CSV) maps the id column to a user field
(ID number) and each grade column to a grade item. Canvas's gradebook import needs its own
leading columns (Student, ID, SIS User ID, SIS Login ID, Section), then one column per assignment.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Sequence

from perfdrill.engine.output.markdown import answers_markdown
from perfdrill.engine.output.marking import Marked
from perfdrill.engine.problems.mistakes import CATALOGUE

_MARKS = {"correct": "✓", "incorrect": "✗", "invalid": "–"}


def _points(value: float) -> str:
    return f"{value:g}"


def _csv(rows: Sequence[Sequence[str]]) -> str:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue()


def gradebook_csv(marked: Sequence[Marked]) -> str:
    """Per part, per student, the total: a malformed cell's part and the total stay empty."""
    labels = list(marked[0].grades)
    rows = [["id", "name", *labels, "total", "out of"]]
    for row in marked:
        parts = ["" if label in row.malformed else _points(row.grades[label].score) for label in labels]
        total = "" if row.total is None else _points(row.total)
        rows.append([row.student, row.name, *parts, total, str(len(labels))])
    return _csv(rows)


def canvas_csv(marked: Sequence[Marked], assignment: str) -> str:
    """Canvas's gradebook import: its five leading columns, then the set as one assignment whose
    score is the total. The roster id goes in SIS User ID, which Canvas matches students by."""
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment]]
    for row in marked:
        rows.append([row.name, "", row.student, "", "", "" if row.total is None else _points(row.total)])
    return _csv(rows)


def feedback_markdown(row: Marked, title: str) -> str:
    """One student's feedback: each part right or wrong with the named mistake, and the worked
    solution of every problem with a part that was not right."""
    if row.total is None:
        total = f"to follow: {len(row.malformed)} answer(s) could not be read, and your instructor will look"
    else:
        total = f"{_points(row.total)} of {len(row.grades)} points"
    lines = [f"# {title} — {row.name} ({row.student})", "", f"**Score:** {total}", ""]
    for index, (code, problem) in enumerate(row.copy.problems, start=1):
        labels = [label for label in row.grades if label.rstrip("abcdefghijklmnopqrstuvwxyz") == str(index)]
        lines += [f"## {index}. {problem.template.title} · problem {code}", ""]
        missed = False
        for label in labels:
            grade, answer = row.grades[label], row.answers[label]
            said = f"you wrote “{answer}”" if answer else "no answer"
            if label in row.malformed:
                note = f"could not be read ({grade.feedback}); your instructor will look at it"
            else:
                note = grade.feedback
            lines.append(f"- **({label[-1]})** {_MARKS[grade.status]} {said}: {note}")
            missed = missed or grade.status != "correct"
        lines.append("")
        if missed:
            lines += ["**Answers and worked solution**", "", answers_markdown(problem), ""]
    return "\n".join(lines).rstrip() + "\n"


def summary_markdown(marked: Sequence[Marked]) -> str:
    """Per part: how many were right, and the named mistakes most often made; then every
    malformed cell by row and column."""
    lines = ["| part | right | answered | unreadable | most common mistakes |", "|---|---|---|---|---|"]
    for label in marked[0].grades:
        grades = [row.grades[label] for row in marked]
        right = sum(g.status == "correct" for g in grades)
        answered = sum(bool(row.answers[label]) for row in marked)
        unreadable = sum(label in row.malformed for row in marked)
        slips = Counter(m for g in grades for m in ((g.mistake,) if g.mistake else g.mistakes))
        common = "; ".join(f"{CATALOGUE[m].title} ×{n}" for m, n in slips.most_common(3)) or "—"
        lines.append(f"| {label} | {right} | {answered} | {unreadable} | {common} |")
    problems = [
        f"- row {row.line}, column {label} ({row.student}): “{row.answers[label]}”: "
        + row.grades[label].feedback
        for row in marked
        for label in row.malformed
    ]
    if problems:
        lines += [
            "",
            "Cells that could not be read (left ungraded; the total waits for them):",
            "",
            *problems,
        ]
    return "\n".join(lines) + "\n"
