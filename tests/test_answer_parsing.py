"""The answer parser: what it accepts, what it refuses, and that nothing typed hangs it or escapes
as anything but the project's own format error."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.problems.answers import expected_form, letter, parse_choices, parse_numeric
from perfdrill.engine.problems.generation import ProblemPart

UNITS = ["ms", "GB", "FLOP/B", "TFLOP/s", "KiB/token", "params", "1", "day", "TFLOP", "us"]
LABELS = ("memory", "compute", "overhead")
# What a sweep over batch prints (performance_model/fits-sweep): 4 is a value and also a position.
BATCHES = ("batch = 1", "batch = 4", "batch = 16", "batch = 64", "batch = 256")
ROWS = ("m = 16", "m = 64", "m = 128", "m = 256", "m = 512", "m = 1,024", "m = 4,096")


def _numeric(unit: str, value: float = 1.0) -> ProblemPart:
    return ProblemPart("x", "numeric", "?", unit, (), value, (), ("relative", 0.05), ())


def _choice(kind: str, labels: tuple[str, ...] = LABELS) -> ProblemPart:
    return ProblemPart("x", kind, "?", "", labels, None, labels[1:2], ("relative", 0.05), ())


typed = st.one_of(
    st.text(max_size=40),
    st.from_regex(r"[-+−]?[0-9.,_e]{1,12} ?[A-Za-zµ/%*^() ·.²]{0,14}", fullmatch=True),
    # arithmetic a unit parser might evaluate: powers, brackets, towers
    st.from_regex(
        r"[0-9]{1,3} ?(\(?[0-9a-zA-Z]{1,3}(\*\*|\^)[0-9()]{1,6}\)?){1,4} ?[a-zA-Z/]{0,5}", fullmatch=True
    ),
)


@settings(max_examples=400, deadline=None)
@given(text=typed, unit=st.sampled_from(UNITS))
def test_numeric_parser_only_raises_format_errors_and_round_trips(text: str, unit: str) -> None:
    part = _numeric(unit)
    try:
        value = parse_numeric(part, text)
    except AnswerFormatError as exc:
        assert "\n" not in exc.message
        return
    assert isinstance(value, float) and math.isfinite(value) and value >= 0
    # Any accepted answer, written back in the part's own unit, reads as the same value.
    written = f"{value!r}" if unit == "1" else f"{value!r} {unit}"  # "3.0 1" is two numbers
    assert parse_numeric(part, written) == pytest.approx(value, rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(st.text(max_size=30), st.from_regex(r"[a-z0-9, ;=]{1,20}", fullmatch=True)),
    kind=st.sampled_from(["choice", "multi"]),
    labels=st.sampled_from([LABELS, BATCHES, ROWS]),
)
def test_choice_parser_only_raises_format_errors_and_round_trips(
    text: str, kind: str, labels: tuple[str, ...]
) -> None:
    part = _choice(kind, labels)
    try:
        picked = parse_choices(part, text)
    except AnswerFormatError as exc:
        assert "\n" not in exc.message
        return
    assert set(picked) <= set(labels)
    letters = ", ".join(letter(labels.index(c)) for c in picked) or "none"
    assert parse_choices(part, letters) == picked


# Issue 12: substrings used to match. `y`, `-` and `+` were graded correct, and so were `r`, `t`,
# `u` and `z` (each a substring of some option).
@pytest.mark.parametrize("text", ["y", "-", "+", "r", "t", "u", "z", "e", "co", "mo", "ute", "0", "4"])
def test_a_choice_is_a_letter_a_position_or_a_long_enough_prefix(text: str) -> None:
    with pytest.raises(AnswerFormatError):
        parse_choices(_choice("choice"), text)


@pytest.mark.parametrize(
    ("text", "picked"),
    [
        ("b", "compute"),
        ("B", "compute"),
        ("(b)", "compute"),
        ("b.", "compute"),
        ("2", "compute"),
        ("com", "compute"),
        ("Compute", "compute"),
        ("over", "overhead"),
        ("  MEMORY ", "memory"),
    ],
)
def test_choice_spellings(text: str, picked: str) -> None:
    assert parse_choices(_choice("choice"), text) == (picked,)


def test_a_short_prefix_says_how_long_one_must_be() -> None:
    with pytest.raises(AnswerFormatError, match="too short"):
        parse_choices(_choice("choice"), "co")


def test_a_prefix_shared_by_two_options_is_ambiguous() -> None:
    part = _choice("choice", ("tensor parallel", "tensor parallel + pipeline", "data parallel"))
    with pytest.raises(AnswerFormatError, match="matches several choices"):
        parse_choices(part, "tensor")
    assert parse_choices(part, "tensor parallel") == ("tensor parallel",)  # an exact label wins


def test_multi_select_spellings() -> None:
    part = _choice("multi")
    assert parse_choices(part, "a, c") == ("memory", "overhead")
    assert parse_choices(part, "a,c") == ("memory", "overhead")
    assert parse_choices(part, "3 1") == ("memory", "overhead")
    assert parse_choices(part, "memory and over") == ("memory", "overhead")
    assert parse_choices(part, "none") == ()


# Issue 12: matmul/compute-bound-rows seed 660679 read "512, 1,024, 4,096" as positions 5 and 1.
def test_numeric_labels_are_read_as_values() -> None:
    part = _choice("multi", ROWS)
    wanted = ("m = 512", "m = 1,024", "m = 4,096")
    for text in ("512, 1,024, 4,096", "512 1024 4096", "m = 512, m = 1,024, m = 4,096", "e f g", "e, f, g"):
        assert parse_choices(part, text) == wanted, text
    with pytest.raises(AnswerFormatError):
        parse_choices(part, "5")  # a position is never read where options are numbers
    assert expected_form(part) == "letters a-g or values separated by commas, or 'none'"


def test_a_number_that_is_both_a_value_and_a_position_is_the_value() -> None:
    # Options 1, 4, 16, 64, 256: "4" is batch = 4, not the fourth option (batch = 64), and
    # "64,256" is two values, since 64,256 is not an option.
    part = _choice("multi", BATCHES)
    assert parse_choices(part, "4") == ("batch = 4",)
    assert parse_choices(part, "1,4,16") == ("batch = 1", "batch = 4", "batch = 16")
    assert parse_choices(part, "64,256") == ("batch = 64", "batch = 256")
    assert parse_choices(_choice("choice", BATCHES), "4") == ("batch = 4",)


def test_a_negative_value_for_a_positive_quantity_is_a_format_error() -> None:
    with pytest.raises(AnswerFormatError, match="is negative"):
        parse_numeric(_numeric("ms", 3.0), "−5 ms")
    assert parse_numeric(_numeric("ms", -3.0), "−5 ms") == -5  # a quantity that is negative here


def test_a_rate_for_a_count_is_explained_once() -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_numeric(_numeric("TFLOP"), "48.31 TFLOPS")
    assert caught.value.message == "TFLOPS is a rate (FLOP/s); this asks for a FLOP count, e.g. 48.3 TFLOP"


HOSTILE = [
    "1 9**9**9 ms",
    "10**10**10",
    "(2**30)**(2**30)",
    "1 10**10**10 ms",
    "1 ms**(9**9**9)",
    "1 ms^9^9^9",
    "1e999999999",
    "9" * 10_000,
    "1 " + "ms/" * 5000,
    "1 " + "(" * 5000 + "ms" + ")" * 5000,
    "1 " + "Gi" * 5000 + "B",
    "1," * 5000,
    "1 × 10^99999999",
    "1 " + "µ" * 10_000 + "s",
    "\x00" * 1000,
    "a " * 5000,
    ", " * 5000,
    "and " * 5000,
]


_GRADE_HOSTILE = """
import json, sys
from perfdrill.engine.problems.generation import ProblemPart
from perfdrill.engine.problems.grading import grade_part
cases, hostile = json.load(sys.stdin)
statuses = set()
for kind, unit, labels in cases:
    value = 1.0 if kind == "numeric" else None
    part = ProblemPart("x", kind, "?", unit, tuple(labels), value, tuple(labels[1:2]), ("relative", 0.05), ())
    for text in hostile:
        statuses.add((kind, grade_part(part, text).status))
print(sorted(statuses))
"""


def test_hostile_answers_are_graded_invalid_and_finish() -> None:
    # Run in a child with a timeout: a hang fails the test instead of freezing the suite.
    cases = [("numeric", "ms", ()), ("numeric", "1", ()), ("numeric", "TFLOP/s", ())]
    cases += [("choice", "", LABELS), ("multi", "", ROWS)]
    done = subprocess.run(
        [sys.executable, "-c", _GRADE_HOSTILE],
        input=json.dumps([cases, HOSTILE]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # "memory memory …" is a valid (if odd) multi-select of one option; everything else is invalid.
    expected = [("choice", "invalid"), ("multi", "invalid"), ("numeric", "invalid")]
    assert done.stdout.strip() == str(expected)
