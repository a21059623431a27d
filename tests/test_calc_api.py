"""Issue 22 §4: `import perfdrill; perfdrill.calc.decode(...)`, typed results with units, the same
document as `--json`, numpy arrays for sweeps, and a command line built on it."""

import json

import numpy as np
import pytest

import perfdrill
from perfdrill.engine import UsageError

LLAMA_8B = {"model": "llama-3.1-8b", "chip": "h100-sxm"}
# Llama 3.1 8B by hand: 8,030,261,248 params x 2 B = 16,060,522,496 B of bf16 weights; a token's KV
# cache 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B; the H100 SXM reads 3.35 TB/s.
WEIGHTS = 16_060_522_496
KV_PER_TOKEN = 131_072


def test_decode_returns_typed_results_with_units() -> None:
    step = perfdrill.calc.decode(**LLAMA_8B, batch=64, context=4096)
    # by hand: (16,060,522,496 + 64 x 4096 x 131,072) B / 3.35e12 B/s = 15.05 ms
    assert step.step_time.value == pytest.approx((WEIGHTS + 64 * 4096 * KV_PER_TOKEN) / 3.35e12)
    assert step.step_time.unit == "s"
    assert str(step.step_time) == "15.1\u00a0ms"  # a no-break space, as the table writes it
    assert step["bound"].value == "memory" and step.bound.unit is None and str(step.bound) == "memory"
    assert str(step.fits) == "yes"
    assert step.fits.value is True
    assert step.kv_cache_bytes.value == 64 * 4096 * KV_PER_TOKEN
    assert float(step.weight_bytes) == WEIGHTS
    assert "step_time" in step and len(step) == 18  # with issue 22's memory shares and eviction


def test_to_dict_is_the_command_s_json(run_cli) -> None:
    code, out, err = run_cli(
        *("calc", "decode", "--model", "llama-3.1-8b", "--chip", "h100-sxm"),
        *("--batch", "64", "--context", "4096", "--json"),
    )
    assert code == 0, err
    assert perfdrill.calc.decode(**LLAMA_8B, batch=64, context=4096).to_dict() == json.loads(out)


def test_numbers_are_base_units_and_text_is_read_as_typed() -> None:
    by_number = perfdrill.calc.decode(**LLAMA_8B, batch=1, context=0, bandwidth=1.675e12)
    by_text = perfdrill.calc.decode(**LLAMA_8B, batch="1", context="0", bandwidth="1.675 TB/s")
    assert by_number.to_dict() == by_text.to_dict()
    assert by_number.memory_time.value == pytest.approx(WEIGHTS / 1.675e12)  # no KV cache at context 0


def test_bad_input_raises_the_command_s_one_line() -> None:
    with pytest.raises(UsageError, match="--batch -1 is negative"):
        perfdrill.calc.decode(**LLAMA_8B, batch=-1, context=10)
    with pytest.raises(UsageError, match="has no option bach"):
        perfdrill.calc.decode(**LLAMA_8B, bach=1, context=10)
    with pytest.raises(UsageError, match="needs batch"):
        perfdrill.calc.decode(**LLAMA_8B, context=10)
    with pytest.raises(UsageError, match="op='all-gatherx' is not one of all-gather"):
        perfdrill.calc.ici(op="all-gatherx", bytes=1e6, link_bandwidth=4.5e10)
    with pytest.raises(UsageError, match="mlp='swiglu' is not one of gated, plain"):
        perfdrill.calc.model(model="llama-2-7b", mlp="swiglu")
    with pytest.raises(AttributeError):
        perfdrill.calc.no_such_subcommand  # noqa: B018


def test_an_array_evaluates_every_element_at_once() -> None:
    batches = np.array([1, 8, 64, 512])
    swept = perfdrill.calc.decode(**LLAMA_8B, batch=batches, context=4096)
    for index, batch in enumerate(batches):
        alone = perfdrill.calc.decode(**LLAMA_8B, batch=int(batch), context=4096)
        for name, result in alone.items():
            assert swept[name].value[index] == pytest.approx(result.value), name
    # batch 1 by hand: (16,060,522,496 + 4096 x 131,072) B / 3.35e12 B/s
    assert swept.memory_time.value[0] == pytest.approx((WEIGHTS + 4096 * KV_PER_TOKEN) / 3.35e12)
    assert swept.to_dict()["inputs"]["batch"] == [1, 8, 64, 512]


def test_arrays_broadcast_and_a_zero_context_is_taken_element_by_element() -> None:
    grid = perfdrill.calc.decode(**LLAMA_8B, batch=np.array([[1], [8]]), context=np.array([0, 4096]))
    assert grid.kv_cache_bytes.value.tolist() == [[0, 4096 * KV_PER_TOKEN], [0, 8 * 4096 * KV_PER_TOKEN]]
    # max_batch is undefined with no KV cache: NaN there, and a note says why
    assert np.isnan(grid.max_batch.value[0, 0]) and grid.max_batch.value[0, 1] > 0
    assert any("undefined when --context is 0" in note for note in grid.notes)


def test_an_array_with_an_invalid_element_is_refused() -> None:
    with pytest.raises(UsageError, match="not a whole number"):
        perfdrill.calc.decode(**LLAMA_8B, batch=[1, 2.5, 4], context=4096)
    with pytest.raises(UsageError, match="is zero"):
        perfdrill.calc.decode(**LLAMA_8B, batch=[0, 4], context=4096)


def test_the_command_builds_only_the_parser_it_runs() -> None:
    from perfdrill.cli import build_parser

    parser = build_parser(["calc", "decode", "--batch", "1"])
    calc = parser._subparsers._group_actions[0].choices["calc"]
    assert list(calc._subparsers._group_actions[0].choices) == ["decode"]


def test_every_table_subcommand_is_a_function() -> None:
    names = perfdrill.calc.subcommands()
    assert {"decode", "prefill", "train", "model", "flash_attention"} <= set(names)
    assert "sweep" not in names  # an array of batch sizes to decode() is the sweep
    assert perfdrill.calc.model(model="llama-2-7b").params.value == 6_738_415_616  # published count
