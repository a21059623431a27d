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
from perfdrill.engine.output.marking import Marked, Marking
from perfdrill.engine.problems.mistakes import CATALOGUE

_MARKS = {"correct": "✓", "incorrect": "✗", "invalid": "–"}


def _points(value: float) -> str:
    return f"{value:g}"


def _csv(rows: Sequence[Sequence[str]]) -> str:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue()


def gradebook_csv(marking: Marking) -> str:
    """Per part, per student, the total: a malformed cell's part and the total stay empty, and so
    do a student's with no row (an empty cell leaves a grade as it is on import)."""
    labels = marking.labels
    rows = [["id", "name", *labels, "total", "out of"]]
    for row in marking.rows:
        parts = ["" if label in row.malformed else _points(row.grades[label].score) for label in labels]
        total = "" if row.total is None else _points(row.total)
        rows.append([row.student, row.name, *parts, total, str(len(labels))])
    for copy in marking.absent:
        rows.append([copy.key, copy.name, *("" for _ in labels), "", str(len(labels))])
    return _csv(rows)


def canvas_csv(marking: Marking, assignment: str) -> str:
    """Canvas's gradebook import: its five leading columns, the "Points Possible" row its own
    export has (the importer sets a new assignment's points from it), then the set as one
    assignment whose score is the total. The roster id goes in SIS User ID, which Canvas matches
    students by; a student with no row gets an empty score, which Canvas leaves as it is."""
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment],
        ["Points Possible", "", "", "", "", str(len(marking.labels))],
    ]
    for row in marking.rows:
        rows.append([row.name, "", row.student, "", "", "" if row.total is None else _points(row.total)])
    for copy in marking.absent:
        rows.append([copy.name, "", copy.key, "", "", ""])
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


def unread_cells(marking: Marking) -> list[str]:
    """Every cell left ungraded, by row and by the column as the CSV names it; a short row's
    missing cells in one line."""
    header, lines = marking.header, []
    for row in marking.rows:
        short = [label for label in row.malformed if header.parts[label][0] >= row.cells]
        if short:
            lines.append(
                f"row {row.line} ({row.student}): {row.cells} cells where the header has"
                f" {len(header.names)}, none for column {', '.join(header.column(label) for label in short)}"
            )
        for label, why in row.malformed.items():
            if label not in short:
                feedback = row.grades[label].feedback
                lines.append(
                    f"row {row.line}, column {header.column(label)} ({row.student}): {why} ({feedback})"
                )
    return lines


def summary_markdown(marking: Marking) -> str:
    """Per part: how many were right, and the named mistakes most often made; then every
    ungraded cell by row and column, and the key's students with no row."""
    marked = marking.rows
    lines = ["| part | right | answered | unreadable | most common mistakes |", "|---|---|---|---|---|"]
    for label in marking.labels:
        grades = [row.grades[label] for row in marked]
        right = sum(g.status == "correct" for g in grades)
        answered = sum(bool(row.answers[label]) for row in marked)
        unreadable = sum(label in row.malformed for row in marked)
        slips = Counter(m for g in grades for m in ((g.mistake,) if g.mistake else g.mistakes))
        common = "; ".join(f"{CATALOGUE[m].title} ×{n}" for m, n in slips.most_common(3)) or "—"
        lines.append(f"| {label} | {right} | {answered} | {unreadable} | {common} |")
    unread = unread_cells(marking)
    if unread:
        lines += [
            "",
            "Cells left ungraded (the total waits for them):",
            "",
            *(f"- {cell}" for cell in unread),
        ]
    if marking.absent:
        absent = absent_students(marking)
        lines += ["", f"In the key but with no row in the answers (left empty in the gradebook): {absent}"]
    return "\n".join(lines) + "\n"


def absent_students(marking: Marking) -> str:
    """The key's students with no row, e.g. "s2030 (Ada Lovelace), s2031 (Alan Turing)"."""
    return ", ".join(f"{copy.key} ({copy.name})" for copy in marking.absent)
