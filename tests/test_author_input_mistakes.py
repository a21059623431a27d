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


# `perfdrill calc`'s numbers: one value, written once, with the digits 0-9.
DECODE = ["calc", "decode", "--chip", "h100-sxm", "--model", "llama-3.1-8b", "--context", "128"]
SPECULATIVE = ["calc", "speculative", "--acceptance-rate", "0.8", "--draft-tokens", "4"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([*DECODE, "--batch", "1,5"], "--batch '1,5' is not one number"),  # used to be batch 15
        ([*SPECULATIVE, "--cost-ratio", "1,5"], "--cost-ratio '1,5' is not one number"),  # was 15
        ([*DECODE, "--batch", "1,50"], "--batch '1,50' is not one number"),
        ([*DECODE, "--batch", "\u0663"], "--batch '\u0663' is not a number: write it with the digits 0-9"),
        ([*DECODE, "--batch", "\uff18"], "--batch '\uff18' is not a number"),  # a full-width 8
        ([*DECODE, "--batch", "1", "--bandwidth", "\u0663 TB/s"], "write it with the digits 0-9"),
        ([*DECODE, "--batch", "1", "--batch", "8"], "--batch is given twice; give it once"),
        ([*DECODE, "--batch", "1", "--chip", "a100-80gb"], "--chip is given twice; give it once"),
    ],
)
def test_calc_refuses_numbers_that_are_not_one_plain_value(run_cli, args: list[str], said: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli(*args)
    assert code == 2 and out == ""
    assert said in err and err.count("\n") == 1 and "Traceback" not in err


def test_calc_still_reads_grouped_thousands(run_cli) -> None:  # type: ignore[no-untyped-def]
    import json

    for typed in ("1,024", "1_024", "1024"):
        code, out, _ = run_cli(*DECODE, "--batch", typed, "--json")
        assert code == 0 and json.loads(out)["inputs"]["batch"] == 1024, typed


def test_calc_refuses_a_cache_reserved_shorter_than_its_context(run_cli) -> None:  # type: ignore[no-untyped-def]
    # (reserved − context) / reserved was (1 − 2048) / 1 = −2,047 as a "waste fraction".
    args = ["calc", "kv-paging", "--chip", "h100-sxm", "--model", "llama-3.1-8b", "--context", "2048"]
    code, out, err = run_cli(*args, "--reserved-tokens", "1")
    assert (code, out) == (2, "")
    assert err == (
        "perfdrill: error: --reserved-tokens 1 is below --context 2,048: "
        "a cache reserved up front holds at least the tokens already in it\n"
    )
    code, out, _ = run_cli(*args, "--reserved-tokens", "4096", "--json")
    # Half of each 4,096-token reservation holds the 2,048 tokens: a waste fraction of 0.5.
    import json

    assert code == 0 and json.loads(out)["results"]["reserved_waste_fraction"]["value"] == 0.5


def test_an_answer_in_other_scripts_digits_is_refused() -> None:
    # Python's float() reads "٣" (Arabic-Indic three) and "３" (full-width three) as 3.
    for typed in ("\u0663 ms", "\uff13 ms"):
        with pytest.raises(AnswerFormatError, match="write it with the digits 0-9"):
            parse_numeric(_numeric("ms", 3.0), typed)


def test_the_reported_mfu_claim_grades_a_ratio_as_a_ratio(run_cli) -> None:  # type: ignore[no-untyped-def]
    # The case: training/mfu-claim seed 728804 asks for an MFU of 97.97 %.
    import json

    def status(answer: str) -> str:
        args = ("grade", "--question", "training/mfu-claim", "--seed", "728804", "--json")
        code, out, _ = run_cli(*args, "--answer", f"mfu={answer}")
        assert code == 0
        return str(json.loads(out)["parts"]["mfu"]["status"])

    assert status("97.97") == "correct"
    assert status("0.98x") == "correct"  # 0.98 of the peak is 98 %
    assert status("98x") == "incorrect"  # 98 times the peak, not 98 %
