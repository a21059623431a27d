"""A chip or model the YAML accepts but no hardware has (1.0e308 bytes of memory, a 1e-320 FLOP/s
peak, a 900,000-character name, an integer of hundreds of digits) is refused as its file loads,
naming file, line and field, rather than failing a question that happens to draw it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_specs import GOOD_CHIP, GOOD_MODEL

MEMORY = "{value: 24, unit: GB, source: me}"
PEAK = "{value: 100, unit: TFLOP/s, source: me}"
WINDOW = "{value: 2048, source: me}"


def _spec(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (  # 1.0e308 B used to overflow to inf in the first question that drew the chip
            GOOD_CHIP.replace(MEMORY, "{value: 1.0e+308, unit: B, source: me}"),
            "mine.yaml:7: chips.my-chip.memory.value: '1e+308 B' is out of range: give 1 to 1e+16 byte",
        ),
        (  # 1e-320 FLOP/s made the ridge point infinite: `"value": Infinity` in --format json
            GOOD_CHIP.replace(PEAK, "{value: 1.0e-320, unit: FLOP/s, source: me}"),
            "mine.yaml:6: chips.my-chip.peak_flops.bf16.value: '1e-320 FLOP/s' is out of range:"
            " give 1e+06 to 1e+20 FLOP/s",
        ),
        (
            GOOD_CHIP.replace(PEAK, "{value: 100, unit: TFLOP/s, source: me, sparse: 1.0e+300}"),
            "mine.yaml:6: chips.my-chip.peak_flops.bf16.sparse: is out of range: give at most 1e+20 FLOP/s",
        ),
        (
            GOOD_CHIP.replace("name: Mine", "name: " + "x" * 900_000),
            "mine.yaml:3: chips.my-chip.name: must have at most 80 characters, not 900000",
        ),
        (  # a 310-digit integer was an OverflowError (exit 1) on its way to a float
            GOOD_CHIP.replace(PEAK, "{value: 1" + "0" * 309 + ", unit: FLOP/s, source: me}"),
            "mine.yaml:6: chips.my-chip.peak_flops.bf16.value: a 310-digit number is too large",
        ),
        (
            GOOD_MODEL.replace(WINDOW, "{value: 1" + "0" * 4_199 + ", source: me}"),
            "mine.yaml:14: models.tiny.context_window.value: a 4200-digit number is too large",
        ),
        (  # shortened in the message: the number itself would be a 400-character line
            GOOD_MODEL.replace("layers: 2", "layers: 1" + "0" * 399),
            "mine.yaml:5: models.tiny.layers: must be at most 1000000000, not 1" + "0" * 36 + "...",
        ),
    ],
    ids=["memory-1e308", "peak-1e-320", "sparse-1e300", "name-900k", "int-310", "int-4200", "layers-400"],
)
def test_unphysical_figures_are_refused_where_they_are_written(
    tmp_path: Path, run_cli, text: str, message: str
) -> None:
    folder = _spec(tmp_path / "specs", text)
    code, out, err = run_cli("generate", "--count", "5", "--specs", str(folder))
    assert (code, out) == (2, "")
    assert err == f"perfdrill: error: {folder}/{message}\n"


def test_a_huge_integer_in_the_users_own_folder_is_one_line_for_every_command(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's spec folder is read by every command: each says the same one line, exit 2.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    folder = _spec(tmp_path / "perfdrill" / "specs", GOOD_MODEL.replace("vocab: 1000", "vocab: " + "9" * 320))
    expected = (
        f"perfdrill: error: {folder}/mine.yaml:11: models.tiny.vocab: must be at most 1000000000,"
        " not 9999999999999999999999999999999999999...\n"
    )
    for command in (["calc", "roofline", "--chip", "h100-sxm"], ["generate", "--count", "3"], ["specs"]):
        code, _, err = run_cli(*command)
        assert (code, err) == (2, expected), command


def test_the_largest_real_figures_stay_inside_the_bounds(tmp_path: Path, run_cli) -> None:
    # A whole GB200 NVL72 rack taken as one chip: 1,440 PFLOP/s of sparse fp4 and 13.5 TB of HBM3e
    # (NVIDIA's GB200 NVL72 page), 576 TB/s of memory bandwidth; and a 128k-token window.
    rack = (
        GOOD_CHIP.replace(PEAK, "{value: 720, unit: PFLOP/s, source: nvidia, sparse: 1440}")
        .replace(MEMORY, "{value: 13.5, unit: TB, source: nvidia}")
        .replace("{value: 1, unit: TB/s, source: me}", "{value: 576, unit: TB/s, source: nvidia}")
    )
    folder = _spec(tmp_path / "specs", rack + GOOD_MODEL.replace(WINDOW, "{value: 131072, source: me}"))
    code, out, err = run_cli("specs", "--specs", str(folder))
    assert code == 0 and err == "" and "my-chip" in out
