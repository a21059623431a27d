import re

import pytest

from perfdrill.engine.errors import UnitError
from perfdrill.engine.model.units import parse_quantity, parse_unit, registry


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("3.35 TB/s", "byte/s", 3.35e12),
        ("0.45 TB/s", "byte/s", 450e9),
        ("450 GB/s", "byte/s", 450e9),
        ("80 GiB", "byte", 80 * 2**30),
        ("80 GB", "byte", 80e9),
        ("989 TFLOP/s", "FLOP/s", 989e12),
        ("1.2 TFLOPS", "FLOP/s", 1.2e12),
        ("1.2e12 FLOP/s", "FLOP/s", 1.2e12),
        ("295 FLOP/B", "FLOP/byte", 295),
        ("3.2 ms", "s", 3.2e-3),
        ("3.2ms", "s", 3.2e-3),
        ("3.2e-3 s", "s", 3.2e-3),
        ("3200 us", "s", 3.2e-3),
        ("3200 µs", "s", 3.2e-3),
        ("16,800", "1", 16800),
        ("200 Gb/s", "byte/s", 25e9),
        ("512 KiB", "byte/token", 512 * 1024),  # the per-token denominator may be left implicit
        ("128 KiB/token", "byte/token", 128 * 1024),  # InfiniBand HDR: bits, 8 per byte
        ("242.5 TOPS", "FLOP/s", 242.5e12),
    ],
)
def test_spellings_parse_to_base_units(text: str, unit: str, expected: float) -> None:
    assert parse_quantity(text, unit) == pytest.approx(expected, rel=1e-12)


def test_plain_number_is_read_in_the_expected_unit() -> None:
    assert parse_quantity("42", "s") == 42


def test_bytes_are_not_dimensionless() -> None:
    # pint's default registry makes 450 GB/s equal to 3.6e12 Hz; ours must not.
    ureg = registry()
    assert ureg.Quantity("450 GB/s").dimensionality != ureg.Quantity("3.6e12 Hz").dimensionality
    assert ureg.Quantity("1 FLOP").dimensionality != ureg.Quantity("1 byte").dimensionality
    assert ureg.Quantity("1 token").dimensionality != ureg.Quantity("1 parameter").dimensionality


@pytest.mark.parametrize(
    ("text", "unit", "message"),
    [
        ("3.35 TB", "byte/s", "is not a bandwidth"),
        ("16.8 GB", "s", r"is not a time \(e\.g\. 12 ms\)"),
        ("banana", "s", "does not start with a number"),
        ("12 furlongs", "s", "unknown unit"),
        ("", "s", "is empty"),
        ("1e999 s", "s", "not a finite number"),
    ],
)
def test_wrong_dimension_or_garbage_is_a_unit_error(text: str, unit: str, message: str) -> None:
    with pytest.raises(UnitError, match=message):
        parse_quantity(text, unit)


# Issue 15: spellings a person uses. A Julian year is 365.25 days, so 1.7 years is 620.925 days.
@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("603 d", "day", 603),
        ("603 days", "day", 603),
        ("1.7 years", "day", 1.7 * 365.25),
        ("2 weeks", "day", 14),
        ("1.12x", "1", 1.12),
        ("1.12 ×", "1", 1.12),
        ("2.8M", "1", 2.8e6),
        ("2.8M elements", "1", 2.8e6),
        ("7B", "1", 7e9),
        ("1.5k", "1", 1500),
        ("−5", "1", -5),  # U+2212, the minus sign typeset numbers use
        ("1.57 × 10^10", "parameter", 1.57e10),
        ("1.57*10**10", "parameter", 1.57e10),
        ("1_000_000", "1", 1e6),
        ("16\u2009800", "1", 16800),  # thin-space thousands
        ("2 bytes", "byte/parameter", 2),  # the per-parameter denominator left implicit
        ("4 ms²", "s^2", 4e-6),  # a square from the whitelist
    ],
)
def test_spellings_people_type(text: str, unit: str, expected: float) -> None:
    assert parse_quantity(text, unit) == pytest.approx(expected, rel=1e-12)


# Issue 12: unit soup. The implicit "per token / per parameter" applies only where the asked unit
# divides by tokens or parameters, and two units side by side are never multiplied.
@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("6.79 ms tokens", "s"),
        ("1.57e10 params params", "parameter"),
        ("108049 token token", "token"),
        ("1__0", "1"),
        ("5 GB tokens", "byte"),
        ("5 GB/token", "byte"),
        ("1,2345", "1"),
    ],
)
def test_unit_soup_is_refused(text: str, unit: str) -> None:
    with pytest.raises(UnitError):
        parse_quantity(text, unit)


# Issue 12: pint evaluates integer powers, so these froze the app. No digits but ^2/^3 reach it.
@pytest.mark.parametrize(
    "text",
    [
        "1 9**9**9 ms",
        "10**10**10",
        "(2**30)**(2**30)",
        "1 ms**(2**30)",
        "1 ms^99999999",
        "1 ms^2^2",
        "1 (ms)",
        "1 " + "ms/" * 30 + "ms",
        "9" * 100,
        "1 × 10^9999",
    ],
)
def test_arithmetic_in_a_unit_is_never_evaluated(text: str) -> None:
    with pytest.raises(UnitError):
        parse_quantity(text, "s")


def test_too_long_text_is_refused_before_parsing() -> None:
    with pytest.raises(UnitError, match="too long"):
        parse_quantity("1" + " " * 100 + "ms", "s")


def test_a_rate_given_for_a_count_says_it_was_read_as_a_rate() -> None:
    message = "TFLOPS is a rate (FLOP/s); this asks for a FLOP count, e.g. 48.3 TFLOP"
    with pytest.raises(UnitError, match=re.escape(message)):
        parse_quantity("48.31 TFLOPS", "FLOP")
    message = "GB/s is a rate (byte/s); this asks for a size, e.g. 16 GB"
    with pytest.raises(UnitError, match=re.escape(message)):
        parse_quantity("16 GB/s", "byte")


def test_units_are_read_term_by_term() -> None:
    ureg = registry()
    assert parse_unit("KiB per token") == ureg.parse_units("kibibyte / token")
    assert parse_unit("billion params") == ureg.parse_units("billion * parameter")
    assert parse_unit("1") == ureg.parse_units("dimensionless")
    with pytest.raises(UnitError, match="side by side"):
        parse_unit("billion million params")
