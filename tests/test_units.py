import pytest

from perfdrill.engine.errors import UnitError
from perfdrill.engine.model.units import format_quantity, parse_quantity, registry


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


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (3.35e12, "byte/s", "3.35 TB/s"),
        (0.0162, "s", "16.2 ms"),
        (16.2e-6, "s", "16.2 µs"),
        (8.03e9, "parameter", "8.03B params"),
        (4096, "token", "4,096 tokens"),
        (403.333, "FLOP/byte", "403 FLOP/B"),
    ],
)
def test_format_uses_human_prefixes(value: float, unit: str, shown: str) -> None:
    assert format_quantity(value, unit) == shown
