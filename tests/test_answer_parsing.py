"""The answer parser never raises anything but the project's own format error, whatever is typed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.problems.answers import parse_choices, parse_numeric
from perfdrill.engine.problems.generation import ProblemPart

UNITS = ["ms", "GB", "FLOP/B", "TFLOP/s", "KiB/token", "params", "1", "day"]


def _numeric(unit: str) -> ProblemPart:
    return ProblemPart("x", "numeric", "?", unit, (), 1.0, (), ("relative", 0.05), ())


def _choice(kind: str) -> ProblemPart:
    return ProblemPart(
        "x", kind, "?", "", ("memory", "compute", "overhead"), None, ("compute",), ("relative", 0.05), ()
    )


typed = st.one_of(
    st.text(max_size=40),
    st.from_regex(r"[-+]?[0-9.,e]{1,12} ?[A-Za-zµ/%*^() ·.]{0,14}", fullmatch=True),
)


@settings(max_examples=400, deadline=None)
@given(text=typed, unit=st.sampled_from(UNITS))
def test_numeric_parser_only_raises_format_errors(text: str, unit: str) -> None:
    try:
        value = parse_numeric(_numeric(unit), text)
    except AnswerFormatError as exc:
        assert "\n" not in exc.message
    else:
        assert isinstance(value, float)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=30), kind=st.sampled_from(["choice", "multi"]))
def test_choice_parser_only_raises_format_errors(text: str, kind: str) -> None:
    try:
        picked = parse_choices(_choice(kind), text)
    except AnswerFormatError:
        return
    assert set(picked) <= {"memory", "compute", "overhead"}


def test_multi_select_spellings() -> None:
    part = _choice("multi")
    assert parse_choices(part, "a, c") == ("memory", "overhead")
    assert parse_choices(part, "3 1") == ("memory", "overhead")
    assert parse_choices(part, "none") == ()
