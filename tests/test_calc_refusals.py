"""Nonsense given to `perfdrill calc` is refused in one line with exit code 2, never a traceback,
and what it prints as JSON is always strict JSON."""

import json

import pytest

HUGE = "9" * 400
H100 = ["--chip", "h100-sxm"]
LLAMA = ["--model", "llama-3.1-8b"]
DECODE = ["calc", "decode", *H100, *LLAMA, "--batch", "1", "--context", "128"]
ELEMENTWISE = ["calc", "elementwise", *H100, "--elements", "1000"]
TRAIN = ["calc", "train", *H100, *LLAMA, "--tokens", "1e12"]
COLLECTIVE = [
    "calc",
    "collective",
    "--op",
    "all-reduce",
    "--participants",
    "8",
    "--link-bandwidth",
    "450 GB/s",
]
SWEEP = ["calc", "sweep", *H100, *LLAMA, "--context", "128"]

REFUSED = [
    # 400-digit whole numbers used to raise OverflowError
    (
        ["calc", "decode", *H100, *LLAMA, "--batch", "1", "--context", HUGE],
        "--context '99999999999999999999…' is too large",
    ),
    ([*TRAIN, "--chips", HUGE], "--chips '99999999999999999999…' is too large"),
    (
        ["calc", "matmul", *H100, "--m", HUGE, "--k", "1", "--n", "1"],
        "--m '99999999999999999999…' is too large",
    ),
    ([*SWEEP, "--batches", f"1,{HUGE}"], "--batches '99999999999999999999…' is too large"),
    # non-finite numbers used to raise ValueError or print NaN and Infinity
    ([*TRAIN, "--bytes-per-param", "nan"], "--bytes-per-param 'nan': give a positive number"),
    ([*TRAIN, "--bytes-per-param", "inf"], "--bytes-per-param 'inf': give a positive number"),
    ([*TRAIN, "--bytes-per-param", "1e400"], "--bytes-per-param '1e400': give a positive number"),
    ([*ELEMENTWISE, "--ops-per-element", "nan"], "--ops-per-element 'nan' is not a number"),
    ([*ELEMENTWISE, "--ops-per-element", "inf"], "--ops-per-element 'inf' is too large"),
    ([*ELEMENTWISE, "--ops-per-element", "1e400"], "--ops-per-element '1e400' is too large"),
    ([*COLLECTIVE, "--bytes", "1e300 EB"], "--bytes '1e300 EB' is too large"),
    # a result that overflows is an error, not Infinity in the JSON
    ([*DECODE, "--mfu", "1e-320"], "compute_time is too large or too small to represent"),
    (
        ["calc", "elementwise", *H100, "--ops-per-element", "1e300", "--elements", "1e15"],
        "flops is too large or too small",
    ),
    # negative or zero where a positive value is required, named as such
    ([*ELEMENTWISE, "--ops-per-element", "-5"], "--ops-per-element '-5' is negative"),
    ([*DECODE, "--flops", "-5e12"], "--flops '-5e12' is negative"),
    ([*DECODE, "--memory", "0 GB"], "--memory '0 GB' is zero"),
    ([*DECODE, "--chips", "0"], "--chips 0 is zero: it must be a positive whole number"),
    ([*DECODE, "--mfu", "0"], "--mfu must be above 0 and at most 1, not '0'"),
    ([*DECODE, "--mbu", "1.5"], "--mbu must be above 0 and at most 1, not '1.5'"),
    (
        ["calc", "decode", *H100, *LLAMA, "--context", "128", "--batch", "2.5"],
        "--batch '2.5' is not a whole number",
    ),
    ([*SWEEP, "--batches", ""], "--batches is empty: give batch sizes"),
    ([*SWEEP, "--batches", ",,"], "--batches is empty: give batch sizes"),
    # overrides either apply or are refused with a reason
    ([*DECODE, "--kv-heads", "64"], "64 KV heads must divide 32 query heads"),
    ([*DECODE, "--kv-heads", "3"], "3 KV heads must divide 32 query heads"),
    (
        ["calc", "model", *LLAMA, "--experts", "8", "--experts-per-token", "2"],
        "--experts and --experts-per-token cannot apply to llama-3.1-8b, a dense model",
    ),
    (["calc", "model", "--model", "deepseek-v3", "--params", "7e9"], "give --active-params too"),
    (
        ["calc", "model", "--model", "deepseek-v3", "--params", "7e9", "--active-params", "37.6e9"],
        "--active-params (3.76e+10) exceeds --params (7e+09)",
    ),
    (
        ["calc", "model", "--model", "deepseek-v3", "--kv-heads", "8"],
        "--kv-heads cannot apply to deepseek-v3: its spec gives",
    ),
    # issue 22: a value given directly that the unused options would recompute differently; by hand,
    # Llama 3.1 8B with a 1,000-token vocabulary: 8,030,261,248 - 2 x 4096 x 127,256 = 6,987,780,096
    (
        [*DECODE, "--params", "8e9", "--vocab", "1000"],
        "these options disagree: params is 8B\u00a0params by --params, but --vocab gives 6.99B\u00a0params",
    ),
    # no result of a prefill ever reads a memory size: it is not offered
    (
        ["calc", "prefill", *H100, *LLAMA, "--batch", "1", "--prompt", "8", "--memory", "80 GB"],
        "unrecognized arguments: --memory 80 GB",
    ),
    ([*DECODE, "--per-op", "--no-overlap"], "--per-op --no-overlap: these options do not combine"),
    # nothing the inputs determine
    (
        ["calc", "roofline"],
        "nothing can be computed from these options; system_flops: give --flops or --chip",
    ),
    ([*COLLECTIVE[:-2], "--bytes", "1 GB", "--chip", "l4"], "time: give --link-bandwidth"),
]


@pytest.mark.parametrize(("args", "message"), REFUSED)
def test_refused_in_one_line_with_exit_code_2(run_cli, args: list[str], message: str) -> None:
    code, out, err = run_cli(*args, "--json")
    assert (code, out) == (2, "")
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def _strict(text: str) -> dict:
    def refuse(constant: str) -> None:
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "args",
    [
        [*ELEMENTWISE, "--ops-per-element", "1e300"],  # huge but finite
        [*DECODE, "--mfu", "1e-300", "--mbu", "1e-300"],
        [*COLLECTIVE, "--bytes", "1e30 EB"],
        ["calc", "decode", "--batch", "1", "--context", "0", "--flops", "1e-300", "--bandwidth", "1e300"],
    ],
)
def test_extreme_but_finite_inputs_print_strict_json(run_cli, args: list[str]) -> None:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    _strict(out)
