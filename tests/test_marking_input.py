"""`perfdrill mark` on answers as forms and LMS exports really write them: columns named their own
way, students who handed nothing in, rows cut short, and the wrong key file. Nothing may be lost
unsaid (an instructor's walk-through, 2026-11-25, found parts and students silently dropped).

The set is the hand-worked matmul of tests/test_instructor.py: two problems of three parts, one
point a part, 6 in all; KINDS there gives the points a hand grader gives each kind of student.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.test_instructor import KINDS, RIGHT, _matmul_set


def _mark(tmp_path: Path, run_cli, key: Path, questions: Path, header: list[str], rows: list[list[str]]):  # type: ignore[no-untyped-def]
    """Run mark over a CSV of `header` and `rows`; the exit code, stderr, the gradebook's rows,
    canvas.csv's rows and the summary."""
    answers = tmp_path / "answers.csv"
    with answers.open("w", newline="", encoding="utf-8") as out:
        csv.writer(out).writerows([header, *rows])
    book, canvas, summary = tmp_path / "book.csv", tmp_path / "canvas.csv", tmp_path / "summary.md"
    code, _, err = run_cli(
        "mark", "--questions", str(questions), "--key", str(key), "--answers", str(answers), "-o", str(book),
        "--canvas", str(canvas), "--feedback", str(tmp_path / "fb"), "--summary", str(summary),
    )  # fmt: skip
    if code == 2:
        return code, err, [], [], ""
    with book.open(encoding="utf-8") as gradebook, canvas.open(encoding="utf-8") as lms:
        return (
            code,
            err,
            list(csv.reader(gradebook)),
            list(csv.reader(lms)),
            summary.read_text(encoding="utf-8"),
        )


@pytest.mark.parametrize("id_column", ["id", "Student ID", "ID number", "SIS User ID", "student_id"])
def test_part_and_id_columns_named_as_forms_name_them_are_read(
    tmp_path: Path, run_cli, id_column: str
) -> None:  # type: ignore[no-untyped-def]
    """`Question 1a`, `1b (µs)`, `2(a) [GFLOP]`: the old reader took these for a form's own columns
    and marked the class out of fewer parts; `Student ID` got a message about versions."""
    questions, key, _ = _matmul_set(tmp_path, run_cli, 8)
    header = ["Timestamp", id_column, "Question 1a", "1b (µs)", "1.c", "2(a) [GFLOP]", "Q2 b", "2c"]
    rows = [["2026-11-25 10:00", f"s{i:03d}", *KINDS[i % 4][0].values()] for i in range(8)]
    code, err, book, _, summary = _mark(tmp_path, run_cli, key, questions, header, rows)
    assert code == 1  # s003 and s007 wrote 'fast' and '12 GB' for times
    assert book[0] == ["id", "name", "1a", "1b", "1c", "2a", "2b", "2c", "total", "out of"]
    assert [(r[0], r[-2], r[-1]) for r in book[1:]] == [
        (f"s{i:03d}", "" if KINDS[i % 4][1] is None else str(KINDS[i % 4][1]), "6") for i in range(8)
    ]
    # Unread cells are named by the column as the CSV writes it, on stderr and in the summary.
    for row, student in ((5, "s003"), (9, "s007")):
        assert f"row {row}, column 1b (µs) ({student}): 'fast' could not be read" in err
        assert f"row {row}, column Q2 b ({student}): '12 GB' could not be read" in summary


def test_a_canvas_export_is_matched_by_sis_user_id_not_canvas_own_id(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Canvas's export has both its own `ID` (numbers of its own) and `SIS User ID` (the roster's)."""
    questions, key, _ = _matmul_set(tmp_path, run_cli, 4)
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *RIGHT]
    rows = [[f"Student {i}", str(90210 + i), f"s{i:03d}", "", "", *RIGHT.values()] for i in range(4)]
    code, err, book, _, _ = _mark(tmp_path, run_cli, key, questions, header, rows)
    assert code == 0, err
    assert [r[:2] + r[-2:] for r in book[1:]] == [[f"s{i:03d}", f"Student {i}", "6", "6"] for i in range(4)]


def test_a_roster_key_without_an_id_column_names_the_id_columns_read(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    questions, key, _ = _matmul_set(tmp_path, run_cli, 2)
    rows = [[f"s{i:03d}@uni.example", *RIGHT.values()] for i in range(2)]
    code, err, *_ = _mark(tmp_path, run_cli, key, questions, ["Email", *RIGHT], rows)
    assert code == 2 and err.count("\n") == 1 and "versions" not in err
    assert (
        "answers.csv:1: no column of the students' ids: name it id, Student ID, ID number, SIS User ID or"
        " Student number" in err
    )


def test_students_of_the_key_with_no_row_are_listed_empty_and_named(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """8 students in the key, 5 rows: s003, s006 and s007 handed nothing in. Their grades are left
    empty (an empty cell leaves a grade as it is on Moodle's and Canvas's import), never dropped."""
    questions, key, _ = _matmul_set(tmp_path, run_cli, 8)
    handed_in = [0, 1, 2, 4, 5]  # kinds 6, 4, 4, 6, 4 points
    rows = [[f"s{i:03d}", *KINDS[i % 4][0].values()] for i in handed_in]
    code, err, book, canvas, summary = _mark(tmp_path, run_cli, key, questions, ["id", *RIGHT], rows)
    assert code == 0, err
    assert [(r[0], r[-2]) for r in book[1:]] == [
        ("s000", "6"), ("s001", "4"), ("s002", "4"), ("s004", "6"), ("s005", "4"),
        ("s003", ""), ("s006", ""), ("s007", ""),
    ]  # fmt: skip
    assert book[-1] == ["s007", "Edsger Dijkstra 7", "", "", "", "", "", "", "", "6"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "6"]
    assert canvas[-3:] == [
        ["Edsger Dijkstra 3", "", "s003", "", "", ""],
        ["Alan Turing 6", "", "s006", "", "", ""],
        ["Edsger Dijkstra 7", "", "s007", "", "", ""],
    ]
    absent = "s003 (Edsger Dijkstra 3), s006 (Alan Turing 6), s007 (Edsger Dijkstra 7)"
    assert f"no row in the answers (left empty in the gradebook): {absent}" in summary
    assert f"no row for 3 student(s) of the key, left empty in the gradebook: {absent}" in err
    assert sorted(p.name for p in (tmp_path / "fb").iterdir()) == [f"s{i:03d}.md" for i in handed_in]


def test_a_short_row_is_reported_and_its_missing_cells_left_ungraded(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """s001's row stops after 1b: the old reader graded 1c…2c as blanks (2 of 6, exit 0)."""
    questions, key, _ = _matmul_set(tmp_path, run_cli, 3)
    rows = [["s000", *RIGHT.values()], ["s001", RIGHT["1a"], RIGHT["1b"]], ["s002", *RIGHT.values()]]
    code, err, book, canvas, _ = _mark(tmp_path, run_cli, key, questions, ["id", *RIGHT], rows)
    assert code == 1  # the instructor must look: the total waits
    assert book[2] == ["s001", "Grace Hopper 1", "1", "1", "", "", "", "", "", "6"]
    assert canvas[3][-1] == "" and book[1][-2] == book[3][-2] == "6"
    assert (
        "row 3 (s001): 3 cells where the header has 7, none for column 1c, 2a, 2b, 2c; left ungraded" in err
    )
    note = (tmp_path / "fb" / "s001.md").read_text(encoding="utf-8")
    assert "to follow: 4 answer(s) could not be read" in note


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("quiz3-key.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "quiz3-key.pdf: not text: "),
        ("quiz3-key.md", b"# Quiz 3\n", "quiz3-key.md:1: not JSON (Expecting value): "),
    ],
)
def test_a_key_that_is_not_the_json_one_says_which_to_pass(
    tmp_path: Path, run_cli, name: str, content: bytes, message: str
) -> None:  # type: ignore[no-untyped-def]
    key = tmp_path / name
    key.write_bytes(content)
    answers = tmp_path / "answers.csv"
    answers.write_text("id,1a\ns000,1\n")
    code, _, err = run_cli(
        "mark", "--key", str(key), "--answers", str(answers), "-o", str(tmp_path / "b.csv")
    )
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert message + "the key must be the JSON written by generate … -o quiz3-key.json" in err
