"""Answer forms people type that used to be refused (issue 24 §2): dollars before the number,
cents, zetta-FLOP, "TF/s", a factor written "x2" or "2.0 times", "memory-bound" for the choice
"memory", and "4.5 bits" where the part asks "how many bits". Each value below is worked by hand."""

from __future__ import annotations

import pytest

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.model import load_specs
from perfdrill.engine.problems import generate, load_bank
from perfdrill.engine.problems.answers import parse_choices, parse_numeric
from perfdrill.engine.problems.generation import ProblemPart


def _numeric(unit: str, prompt: str = "?") -> ProblemPart:
    return ProblemPart("x", "numeric", prompt, unit, (), 1.0, (), ("relative", 0.05), ())


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("$0.24", "USD", 0.24),
        ("US$0.24", "USD", 0.24),
        ("24 cents", "USD", 0.24),  # a cent is a hundredth of a dollar
        ("$3.40/h", "USD/h", 3.40),
        ("18 ZFLOP", "FLOP", 18e21),  # zetta = 10^21
        ("18 ZFLOP", "EFLOP", 18_000.0),
        ("4.6 TF/s", "TFLOP/s", 4.6),
        ("4.6 TF/s", "FLOP/s", 4.6e12),
        ("x2", "1", 2.0),
        ("×1.5", "1", 1.5),
        ("2.0 times", "1", 2.0),
    ],
)
def test_natural_numeric_forms_are_read(text: str, unit: str, value: float) -> None:
    assert parse_numeric(_numeric(unit), text) == pytest.approx(value)


@pytest.mark.parametrize(("text", "unit"), [("x2", "ms"), ("$2", "ms"), ("4.5 bits", "ms")])
def test_those_forms_still_refuse_the_wrong_dimension(text: str, unit: str) -> None:
    with pytest.raises(AnswerFormatError):
        parse_numeric(_numeric(unit), text)


def test_a_count_may_carry_the_word_its_prompt_counts() -> None:
    part = _numeric("1", "How many bits does each FP4 weight take in memory?")
    assert parse_numeric(part, "4.5 bits") == 4.5
    assert parse_numeric(part, "4.5 bits per weight") == 4.5
    with pytest.raises(AnswerFormatError):  # a word the prompt does not use is not guessed
        parse_numeric(part, "4.5 bytes")


@pytest.mark.parametrize("template", ["quantization/fp4-blackwell", "quantization/group-scales"])
def test_bits_parts_of_the_quantization_templates_take_bits(template: str) -> None:
    problem = generate(load_bank().get(template), 1, load_specs())
    (bits,) = [part for part in problem.parts if part.name == "bits"]
    assert parse_numeric(bits, "4.5 bits") == 4.5


def test_bound_spelled_out_names_the_choice() -> None:
    part = ProblemPart(
        "b", "choice", "?", "", ("memory", "compute"), None, ("memory",), ("relative", 0.05), ()
    )
    assert parse_choices(part, "memory-bound") == ("memory",)
    assert parse_choices(part, "compute bound") == ("compute",)
    assert parse_choices(part, "Memory-Bound") == ("memory",)
