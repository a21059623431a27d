"""Author and input mistakes that used to pass silently (issue 20, section 4), each pinned here:
the grader's ratio marks, cancelling units and doubled numbers; valued choices read by their
whole label. Expected values are worked by hand in each test."""

from __future__ import annotations

import pytest

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.problems.answers import parse_choices, parse_numeric
from perfdrill.engine.problems.generation import ProblemPart
from perfdrill.engine.problems.grading import grade_part

BATCHES = ("batch = 1", "batch = 4", "batch = 16", "batch = 64")


def _numeric(unit: str, value: float) -> ProblemPart:
    return ProblemPart("x", "numeric", "?", unit, (), value, (), ("relative", 0.05), ())


def test_a_ratio_mark_on_a_percentage_is_read_as_a_ratio() -> None:
    # training/mfu-claim seed 728804 asks for 97.97 %: "98x" was graded correct, "0.98x" wrong.
    part = _numeric("%", 97.97)
    assert parse_numeric(part, "0.98x") == pytest.approx(98.0)  # 0.98 of the whole is 98 %
    assert parse_numeric(part, "98x") == pytest.approx(9800.0)  # 98 times the whole
    assert grade_part(part, "0.98x").status == "correct"
    assert grade_part(part, "98x").status == "incorrect"
    assert grade_part(part, "98").status == "correct"  # a plain number is read in the part's %


@pytest.mark.parametrize(
    ("typed", "unit", "said"),
    [
        ("15.7 ms*token/token", "ms", "units that cancel"),
        ("15.7 ms*token/token", "ms/token", "units that cancel"),
        ("1570 ms%", "ms", "side by side"),
        ("15.7 ms/seq", "ms", "'seq', which is no unit of its own"),
        ("1 1", "1", "two numbers"),
        ("1 1 ms", "ms", "two numbers"),
    ],
)
def test_units_that_change_nothing_but_the_number_are_refused(typed: str, unit: str, said: str) -> None:
    with pytest.raises(AnswerFormatError, match=said):
        parse_numeric(_numeric(unit, 15.7), typed)
    assert grade_part(_numeric(unit, 15.7), typed).status == "invalid"


def test_units_that_do_not_cancel_still_read() -> None:
    assert parse_numeric(_numeric("byte/token", 1.0), "128 KiB per token") == 131072.0  # 128 × 1024
    assert parse_numeric(_numeric("parameter", 1.0), "46.7 billion params") == pytest.approx(46.7e9)
    assert parse_numeric(_numeric("GB/s", 1.0), "3.35 TB/s") == pytest.approx(3350.0)
    assert parse_numeric(_numeric("%", 1.0), "15%") == 15.0


def test_text_before_the_equals_sign_of_a_valued_choice_must_name_it() -> None:
    part = ProblemPart("x", "multi", "?", "", BATCHES, None, BATCHES[1:2], ("relative", 0.05), ())
    assert parse_choices(part, "batch = 4") == ("batch = 4",)
    assert parse_choices(part, "4") == ("batch = 4",)
    with pytest.raises(AnswerFormatError):
        parse_choices(part, "m = 4")  # another name: not "batch = 4"
    with pytest.raises(AnswerFormatError):
        parse_choices(part, "banana = 4")
