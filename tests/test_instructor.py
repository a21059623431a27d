"""The instructor's loop: a copy per student from a roster, `grade --code` from a printed sheet,
and `perfdrill mark` turning a class's answers into a gradebook, feedback and a summary.

The marking tests use the hand-worked matmul of tests/helpers.py, whose numbers are the same in
every variant: 2·4096³ = 137.44 GFLOP, 137.44e9 / 989e12 FLOP/s = 138.97 µs, compute-bound
(138.97 µs > 30.05 µs of memory time). Forgetting the 2 gives 68.72 GFLOP.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from tests.helpers import MATMUL, write_template

NAMES = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"]


def _roster(tmp_path: Path, count: int, name: str = "roster.csv") -> Path:
    path = tmp_path / name
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["ID", "Name", "email"])
        for index in range(count):
            writer.writerow([f"s{index:03d}", f"{NAMES[index % 4]} {index}", f"s{index:03d}@uni.example"])
    return path


def _json(run_cli, *args: str) -> list[dict]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("generate", "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def test_each_student_gets_a_reproducible_copy_seeded_by_their_id(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    roster = _roster(tmp_path, 4)
    first = _json(run_cli, "--count", "3", "--seed", "11", "--roster", str(roster))
    assert _json(run_cli, "--count", "3", "--seed", "11", "--roster", str(roster)) == first
    # The same student's copy whatever their place in the roster: seeded by id, not by position.
    reordered = tmp_path / "reordered.csv"
    lines = roster.read_text().splitlines()
    reordered.write_text("\n".join([lines[0], *reversed(lines[1:])]) + "\n")
    again = _json(run_cli, "--count", "3", "--seed", "11", "--roster", str(reordered))
    by_student = {(i["student"]["id"], i["number"]): (i["question"], i["seed"]) for i in first}
    assert by_student == {(i["student"]["id"], i["number"]): (i["question"], i["seed"]) for i in again}
    assert first[0]["student"] == {"id": "s000", "name": "Ada Lovelace 0", "email": "s000@uni.example"}
    templates = {s: [q for (sid, _), (q, _) in sorted(by_student.items()) if sid == s] for s, _ in by_student}
    assert len({tuple(t) for t in templates.values()}) == 1  # same templates in the same order
    seeds = {
        s: [seed for (sid, _), (_, seed) in sorted(by_student.items()) if sid == s] for s, _ in by_student
    }
    assert len({tuple(s) for s in seeds.values()}) == 4  # numbers of their own


def test_a_students_copy_names_them_and_its_points(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    roster = _roster(tmp_path, 2)
    target = tmp_path / "exam.md"
    code, _, err = run_cli(
        "generate", "--count", "2", "--seed", "5", "--roster", str(roster), "--split", "-o", str(target)
    )
    assert code == 0, err
    copy = (tmp_path / "exam-s001.md").read_text()
    assert copy.startswith("# perfdrill problem set — Grace Hopper 1 (s001)")
    assert re.search(r"\d+ points, one a part", copy) and "point" in copy.split("## 2.")[0]
    key = (tmp_path / "exam-key.md").read_text()
    assert key.count("### Answer grid") == 2  # one compact grid per student's copy
    grid = key.split("### Answer grid")[1].split("\n# ")[0]
    assert grid.count("\n| 1 |") == 1 and grid.count("\n| 2 |") == 1


def test_a_printed_pdf_copy_shows_name_points_and_the_answer_grid(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    import pypdf

    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices.\n")
    target = tmp_path / "exam.pdf"
    code, _, err = run_cli(
        "generate", "--questions", str(questions), "--question", "matmul/h100-4096", "--no-builtin",
        "--count", "1", "--roster", str(_roster(tmp_path, 1)), "--no-plots", "--format", "pdf",
        "-o", str(target),
    )  # fmt: skip
    assert code == 0, err
    pages = [page.extract_text() for page in pypdf.PdfReader(target).pages]
    assert "Ada Lovelace 0 (s000)" in pages[0] and "3 points, one a part" in pages[0]
    key = " ".join(p for p in pages if "Answer key" in p)
    assert "Answer grid" in key and re.search(r"\(a\) 137\sGFLOP\s+\(b\) 139\sµs\s+\(c\) \w\. compute", key)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("name\nAda\n", "roster.csv:1: column 'id': the roster needs a header row with columns id, name"),
        ("id,name\ns1,Ada\ns1,Bob\n", "roster.csv:3: column 'id': 's1' is already the id of line 2"),
        ("id,name\n,Ada\n", "roster.csv:2: column 'id': empty: every student needs an id"),
        ("id,name\ns1,Ada,extra\n", "roster.csv:2: column 'name': 3 cells where the header has 2"),
        ("id,name\n", "roster.csv:2: column 'id': the roster has no students"),
    ],
)
def test_a_bad_roster_is_one_line_naming_file_line_and_column(
    tmp_path: Path, run_cli, rows: str, message: str
) -> None:  # type: ignore[no-untyped-def]
    roster = tmp_path / "roster.csv"
    roster.write_text(rows)
    code, out, err = run_cli("generate", "--roster", str(roster))
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def _matmul_set(tmp_path: Path, run_cli, students: int):  # type: ignore[no-untyped-def]
    """A two-problem set of the hand-worked matmul, one copy per student, and its JSON key."""
    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices.\n")
    common = ("--questions", str(questions), "--question", "matmul/h100-4096", "--no-builtin", "--count", "2")
    roster = _roster(tmp_path, students)
    key = tmp_path / "key.json"
    code, _, err = run_cli("generate", *common, "--roster", str(roster), "--format", "json", "-o", str(key))
    assert code == 0, err
    code, page, err = run_cli("generate", *common, "--roster", str(roster), "--answers", "none")
    assert code == 0, err
    return questions, key, page


def test_grade_takes_the_code_and_the_letters_a_sheet_shows(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    questions, _, page = _matmul_set(tmp_path, run_cli, 1)
    code_on_sheet = re.search(r"problem (\w{4}-\w{4})", page).group(1)  # type: ignore[union-attr]
    base = ("grade", "--questions", str(questions), "--code", code_on_sheet.lower())  # as copied by hand
    code, out, err = run_cli(
        *base, "--answer", "a=137.4 GFLOP", "--answer", "b=139 us", "--answer", "c=compute"
    )
    assert code == 0 and "score 100%" in out, err
    code, out, _ = run_cli(*base, "--answer", "a=68.72 GFLOP", "--answer", "runtime=0.139 ms")
    assert code == 0 and "Missing the 2 in FLOPs" in out and "✓ (b) runtime" in out
    code, out, _ = run_cli(*base, "--answer", "a=68.72 GFLOP", "--json")
    assert code == 0 and "expected" not in out  # a printed problem's answers are the key's
    code, _, err = run_cli(*base, "--solution")
    assert code == 2 and "--solution is not shown for a printed problem" in err
    code, _, err = run_cli("grade", "--questions", str(questions), "--code", "ZZZZ-ZZZZ")
    assert code == 2 and "check it against the sheet" in err and err.count("\n") == 1


# What each kind of student writes, and the points a hand grader gives it (1 a part, 6 in all).
RIGHT = {
    "1a": "137.4 GFLOP",
    "1b": "139 µs",
    "1c": "compute",
    "2a": "1.374e11 FLOP",
    "2b": "0.139 ms",
    "2c": "Compute",
}
KINDS = [
    (dict(RIGHT), 6),
    ({**RIGHT, "1a": "68.72 GFLOP", "2a": "68.7 GFLOP"}, 4),  # forgot the 2 in 2·m·k·n, twice
    ({**RIGHT, "2c": "memory", "1b": ""}, 4),  # a wrong choice and a part left empty
    ({**RIGHT, "1b": "fast", "2b": "12 GB"}, None),  # two unreadable cells: not graded, no total
]


def _answers(tmp_path: Path, students: int) -> Path:
    path = tmp_path / "answers.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "name", "Timestamp", *RIGHT])  # a form's export adds its own columns
        for index in range(students):
            cells, _ = KINDS[index % 4]
            writer.writerow([f"s{index:03d}", "", "2026-11-25 10:00", *cells.values()])
    return path


def test_mark_turns_a_class_of_32_into_a_gradebook_feedback_and_a_summary(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    students = 32
    questions, key, _ = _matmul_set(tmp_path, run_cli, students)
    answers, book, canvas, feedback = (
        _answers(tmp_path, students),
        tmp_path / "book.csv",
        tmp_path / "canvas.csv",
        tmp_path / "fb",
    )
    code, summary, err = run_cli(
        "mark", "--questions", str(questions), "--key", str(key), "--answers", str(answers),
        "-o", str(book), "--canvas", str(canvas), "--feedback", str(feedback), "--title", "Quiz 3",
    )  # fmt: skip
    assert code == 1  # unreadable cells need the instructor: the run says so
    rows = list(csv.DictReader(book.open(encoding="utf-8")))
    assert len(rows) == students and list(rows[0]) == ["id", "name", *RIGHT, "total", "out of"]
    for index, row in enumerate(rows):
        _, points = KINDS[index % 4]
        assert row["id"] == f"s{index:03d}" and row["name"] == f"{NAMES[index % 4]} {index}"
        assert row["total"] == ("" if points is None else str(points)) and row["out of"] == "6"
    assert rows[1]["1a"] == "0" and rows[2]["1b"] == "0" and rows[3]["1b"] == "" and rows[3]["1a"] == "1"
    # Every unreadable cell by row (the header is row 1) and column, and nothing else.
    unread = re.findall(r"row (\d+), column (\w+)", err)
    assert sorted(unread, key=lambda x: int(x[0])) == [
        (str(i + 2), c) for i in range(3, students, 4) for c in ("1b", "2b")
    ]
    # The summary: 8 students forgot the 2 on 1a and on 2a; 8 ticked memory on 2c.
    lines = {line.split("|")[1].strip(): line for line in summary.splitlines() if line.startswith("| ")}
    assert "Missing the 2 in FLOPs ×8" in lines["1a"] and "Missing the 2 in FLOPs ×8" in lines["2a"]
    assert lines["2c"].split("|")[2:5] == [" 24 ", " 32 ", " 0 "]
    assert lines["1b"].split("|")[2:5] == [" 16 ", " 24 ", " 8 "]
    canvas_rows = list(csv.reader(canvas.open(encoding="utf-8")))
    assert canvas_rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Quiz 3"]
    assert canvas_rows[1] == ["Points Possible", "", "", "", "", "6"]  # as Canvas's own export has it
    assert canvas_rows[3] == ["Grace Hopper 1", "", "s001", "", "", "4"]
    note = (feedback / "s001.md").read_text(encoding="utf-8")
    assert "**Score:** 4 of 6 points" in note and "Missing the 2 in FLOPs" in note
    assert "137\u00a0GFLOP" in note  # the worked solution of the problem missed
    assert "could not be read" in (feedback / "s003.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("header", "cells", "message"),
    [
        (
            ["id", "1a", "3a"],
            ["s000", "1", "2"],
            "answers.csv:1: column '3a': names no part of the set's problems",
        ),
        (["id", "1a", "1 a"], ["s000", "1", "2"], "answers.csv:1: column '1 a': a second column for part 1a"),
        (
            ["id", *RIGHT],
            ["nobody", *RIGHT.values()],
            "answers.csv:2: column 'id': 'nobody' is not in the key",
        ),
        (["id", "total"], ["s000", "1"], "answers.csv:1: no answer columns"),
        # A column the old reader took for an LMS's own, so the part left the quiz unsaid.
        (
            ["id", "1a - GFLOP", *list(RIGHT)[1:]],
            ["s000", *RIGHT.values()],
            "answers.csv:1: column '1a - GFLOP': looks like a part but is not read as one: name it 1a,",
        ),
        (
            ["id", *list(RIGHT)[:4], "2c"],
            ["s000", *list(RIGHT.values())[:4], "compute"],
            "answers.csv:1: no column for part 2b (the part columns read: 1a, 1b, 1c, 2a, 2c);",
        ),
        (  # as "1,374 GFLOP" unquoted writes it: every cell after the comma is in doubt
            ["id", *RIGHT],
            ["s000", "1", "374 GFLOP", *list(RIGHT.values())[1:]],
            "answers.csv:2: 8 cells where the header has 7: quote an answer holding a comma",
        ),
    ],
)
def test_bad_answers_files_are_one_line_naming_row_and_column(
    tmp_path: Path, run_cli, header, cells, message
) -> None:  # type: ignore[no-untyped-def]
    questions, key, _ = _matmul_set(tmp_path, run_cli, 2)
    answers = tmp_path / "answers.csv"
    with answers.open("w", newline="") as out:
        csv.writer(out).writerows([header, cells])
    code, _, err = run_cli(
        "mark",
        "--questions",
        str(questions),
        "--key",
        str(key),
        "--answers",
        str(answers),
        "-o",
        str(tmp_path / "b.csv"),
    )
    assert code == 2 and message in err and err.count("\n") == 1


def test_a_roster_is_refused_beside_versions_and_for_lms_pools(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    roster = str(_roster(tmp_path, 2))
    code, out, err = run_cli("generate", "--roster", roster, "--versions", "2")
    assert code == 2 and out == "" and "leave out --versions" in err and err.count("\n") == 1
    code, _, err = run_cli("generate", "--roster", roster, "--format", "qti", "-o", str(tmp_path / "p.zip"))
    assert code == 2 and err.endswith("a pool of variants; --roster is for printed sets\n")
