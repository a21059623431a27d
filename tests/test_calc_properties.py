"""Any subset of calc's options, with sensible or nonsense values: strict JSON whose results are
part of the contract, or one line on stderr with exit code 2. Never a traceback."""

import contextlib
import io
import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from perfdrill.cli import main
from perfdrill.engine.calc.table import SUBCOMMANDS

# The README's contract, written out rather than read from the table under test.
CONTRACT = {
    "roofline": {"ridge_point", "system_flops", "system_bandwidth", "system_memory"},  # issue 22: rates
    "matmul": {
        *("flops", "bytes", "arithmetic_intensity", "compute_time", "memory_time", "runtime", "bound"),
        "compute_bound_batch",  # issue 22
    },
    "elementwise": {
        "flops",
        "bytes",
        "arithmetic_intensity",
        "compute_time",
        "memory_time",
        "runtime",
        "bound",
    },
    "model": {
        *("params", "active_params", "weight_bytes", "kv_bytes_per_token"),
        *("embedding_params", "attention_params", "mlp_params", "norm_and_router_params"),  # issue 22
    },
    "decode": {
        *("flops", "bytes", "compute_time", "memory_time", "step_time", "bound", "tokens_per_second"),
        *("weight_bytes", "kv_cache_bytes", "memory_required", "fits", "critical_batch", "max_batch"),
        "min_chips",  # issue 22
        *("free_memory", "memory_per_chip", "evicted_sequences", "evicted_kv_bytes"),
    },
    "prefill": {"flops", "compute_time", "memory_time", "time", "bound"},
    "train": {
        *("flops", "time", "memory_required", "min_chips", "max_trainable_params"),
        *("activation_memory", "checkpointed_activation_memory", "checkpointed_time"),  # issue 22
        "logits_memory",
    },
    "collective": {"time", "time_with_latency"},  # issue 22: α
    "sweep": {"rows", "optimal_batch", "exact_optimal_batch"},
    "zero": {
        *("replicated_state_bytes", "zero1_state_bytes", "zero2_state_bytes", "zero3_state_bytes"),
        "smallest_zero_stage",
    },
    "pipeline": {"bubble_fraction", "step_time", "interleaved_bubble_fraction"},
    "busbw": {"algbw", "busbw"},
    "waves": {"output_tiles", "waves", "wave_efficiency", "wave_quantized_time"},
    # Issue 13, topics 5-7.
    "attention": {
        *("arithmetic_intensity", "flops", "bytes", "time", "step_time", "time_share", "flop_share"),
        *("crossover_context", "compute_bound"),
    },
    "flash-attention": {
        "standard_bytes",
        "flash_bytes",
        "block_rows",
        "passes",
        "ratio",
        "score_matrix_bytes",
    },
    "quantize": {"bits_per_weight", "bytes_per_weight", "weight_bytes", "scale_bytes"},
    "moe": {
        *("all_to_all_bytes", "all_to_all_time", "forward_all_to_all_time", "expert_compute_time"),
        *("expert_read_time", "layer_time", "imbalance_slowdown"),
    },
    "serve": {
        *("ttft", "tpot", "request_latency", "tokens_per_second", "tokens_per_second_per_chip"),
        *("cost_per_million_tokens", "max_batch", "slo_batch", "slo_limit"),
        *("queries_per_second", "prefill_decode_ratio", "slo_min_chips"),  # issue 22
        *("evicted_sequences", "evicted_kv_bytes", "free_memory", "memory_per_chip"),
    },
    "kv-paging": {
        *("max_batch", "reserved_max_batch", "reserved_waste_fraction", "paged_max_batch"),
        *("paged_waste_fraction", "prefix_kv_bytes_saved", "prefix_max_batch"),
    },
    "chunked-prefill": {
        *("step_time", "mixed_step_time", "mixed_bound", "chunk_slowdown", "free_chunk"),
        *("prefill_chunks", "chunked_ttft"),
    },
    "kv-transfer": {
        *("kv_transfer_bytes", "kv_transfer_time", "prefill_time", "kv_transfer_share"),
        *("serial_handoff", "streamed_handoff", "transfer_hidden"),
    },
    "mfu": {"training_throughput", "achieved_flops", "achieved_mfu", "mfu_verdict"},
    "chinchilla": {"compute_budget", "chinchilla_params", "chinchilla_tokens"},
    "speculative": {"tokens_per_round", "all_drafts_accepted", "speedup", "pays", "best_draft_tokens"},
    "ici": {"time", "bandwidth_time", "latency_time", "bandwidth"},  # issue 22
    "ici-limits": {
        *("ici_intensity", "dp_min_batch_per_chip", "dp_max_chips", "tp_max_degree"),
        "mixed_min_batch_per_chip",
    },
    "attention-crossover": {
        *("crossover_context", "crossover_in_model_widths", "prefill_intensity", "decode_intensity"),
    },
    "bisection": {"time", "injection_time", "bisection_time", "limit", "switch_bisection_bandwidth"},
    "two-level": {"time", "flat_ring_time", "intra_node_time", "inter_node_time", "speedup"},
}
# Measurements, not results of the options: present where XLA measured the shape, else a note says why.
MEASURED = {"matmul": {"measured_flops", "measured_time", "fraction_of_roofline"}}
SWEEP_COLUMNS = {
    "compute_time",
    "memory_time",
    "runtime",
    "bound",
    "memory_required",
    "fits",
    "tokens_per_second",
}

# Values a person might type: mostly sensible for the option, sometimes nonsense of any kind.
SENSIBLE = {
    "--chip": ["h100-sxm", "l4", "a100-80gb", "tpu-v5e"],
    "--model": ["llama-3.1-8b", "mixtral-8x7b", "deepseek-v3", "gpt2-small"],
    "--flops": ["989e12", "1.97e14", "121 TFLOP/s"],
    "--bandwidth": ["3.35e12", "8.1e11", "2 TB/s"],
    "--memory": ["80e9", "16 GB"],
    "--link-bandwidth": ["450 GB/s", "45e9"],
    "--hop-latency": ["1 us", "5e-7"],
    "--latency": ["5 us", "1e-6"],
    "--batch-tokens": ["16e6", "4M tokens"],
    "--bytes": ["1 GB", "1e6"],
    "--params": ["7e9", "70e9", "124e6"],
    "--active-params": ["1e9", "13e9"],
    "--kv-bytes-per-token": ["128 KiB", "100 kB"],
    "--tokens": ["15e12", "1e9"],
    "--mfu": ["0.4", "1"],
    "--mbu": ["0.85", "1"],
    "--context": ["0", "128", "8192"],
    "--ops-per-element": ["0", "1", "2.5"],
    "--bytes-per-param": ["mixed-adam", "10"],
    "--batches": ["1,8,64", "512,1024", "1"],
    "--optimizer-bytes": ["12", "0", "8"],
    "--stage-time": ["20 ms", "1e-3"],
    "--time": ["4.2 ms", "13 us", "1.8 s", "0.5"],
    "--tpot-slo": ["20 ms", "0.05"],
    "--price": ["6.88 USD/h", "2"],
    "--transfer-bandwidth": ["400 Gb/s", "450 GB/s"],
    "--budget": ["5.88e23", "1e21 FLOP"],
    "--run-time": ["30 days", "86400"],
    "--tokens-per-param": ["20", "100"],
}
WHOLE = ["1", "2", "8", "32", "128", "4096"]
NONSENSE = [
    *("0", "-5", "-5e12", "1.5", "nan", "inf", "1e400", "1e-320", "1e300", "", "x", "9" * 400),
    *("12 GB", "3.35 TB/s", ",", "nope"),
]


@st.composite
def command(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from(sorted(SUBCOMMANDS)))
    args = ["calc", name]
    for option in SUBCOMMANDS[name].all_options():
        if not option.required and draw(st.integers(0, 2)) > 0:  # a third of the options, at random
            continue
        if option.switch:
            args.append(option.flag)
            continue
        sensible = list(option.choices or SENSIBLE.get(option.flag, WHOLE))
        nonsense = draw(st.integers(0, 9)) == 9
        args += [option.flag, draw(st.sampled_from(NONSENSE if nonsense else sensible))]
    return args


def _refuse(constant: str) -> None:
    raise AssertionError(f"not strict JSON: {constant}")


def test_every_subcommand_has_its_contract_written_out() -> None:
    # A subcommand added, or a result renamed or dropped, without the contract above (and
    # docs/calc-json.md) saying so fails here rather than in a user's script.
    assert set(CONTRACT) == set(SUBCOMMANDS)
    for name, spec in SUBCOMMANDS.items():
        if spec.runner is None:
            assert {result.name for result in spec.results} == CONTRACT[name], name


@settings(max_examples=int(os.environ.get("CALC_EXAMPLES", "150")), deadline=None)
@given(command(), st.booleans())
def test_calc_prints_strict_json_within_the_contract_or_one_line(args: list[str], as_json: bool) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([*args, "--json"] if as_json else [*args, "--explain"])
        except SystemExit as exc:  # argparse: a missing required option, an unknown choice
            code = exc.code
    if code == 0 and not as_json:
        assert out.getvalue().strip() and err.getvalue() == ""
    elif code == 0:
        data = json.loads(out.getvalue(), parse_constant=_refuse)
        assert list(data) == ["schema", "inputs", "results", "omitted", "notes"]  # docs/calc-json.md
        assert data["schema"] == 2
        contract = CONTRACT[args[1]]
        measured = MEASURED.get(args[1], set())
        assert set(data["results"]) <= contract | measured
        assert set(data["omitted"]) <= contract | SWEEP_COLUMNS
        if args[1] != "sweep":  # every result is either given or said to be left out
            assert (set(data["results"]) - measured) | set(data["omitted"]) == contract
        assert data["results"], "exit code 0 with no result"
    else:
        assert code == 2, err.getvalue()
        assert out.getvalue() == ""
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
