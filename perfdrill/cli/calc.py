"""`perfdrill calc SUBCOMMAND`: the engine's formulas, exposed directly. Result names are a contract."""

from __future__ import annotations

import argparse
import json
from typing import Any

from perfdrill.cli.options import add_specs_option
from perfdrill.cli.values import json_value, print_results
from perfdrill.engine import UsageError
from perfdrill.engine.model import (
    COMPUTE_DTYPES,
    DTYPE_BYTES,
    dtype_bytes,
    evaluate,
    hardware,
    load_specs,
    model_inputs,
    parse_quantity,
    training_bytes_per_param,
)

# subcommand -> (workload, [(result name, quantity name)])
_ROOFLINE = ["flops", "bytes", "arithmetic_intensity", "compute_time", "memory_time", "runtime", "bound"]
RESULTS: dict[str, list[tuple[str, str]]] = {
    "roofline": [("ridge_point", "ridge_point")],
    "matmul": [(n, n) for n in _ROOFLINE],
    "elementwise": [(n, n) for n in _ROOFLINE],
    "model": [(n, n) for n in ("params", "active_params", "weight_bytes", "kv_bytes_per_token")],
    "decode": [
        ("flops", "flops"),
        ("bytes", "bytes"),
        ("compute_time", "compute_time"),
        ("memory_time", "memory_time"),
        ("step_time", "runtime"),
        ("bound", "bound"),
        ("tokens_per_second", "tokens_per_second"),
        ("weight_bytes", "weight_bytes"),
        ("kv_cache_bytes", "kv_cache_bytes"),
        ("memory_required", "memory_required"),
        ("fits", "fits"),
        ("critical_batch", "critical_batch"),
        ("max_batch", "max_batch"),
    ],
    "prefill": [
        ("flops", "flops"),
        ("compute_time", "compute_time"),
        ("memory_time", "memory_time"),
        ("time", "runtime"),
        ("bound", "bound"),
    ],
    "train": [(n, n) for n in ("flops", "time", "memory_required", "min_chips")],
}
MODEL_LEVEL = {"params", "active_params", "kv_bytes_per_token"}
_ARCH_FLAGS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "vocab")


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], not {value}")
    return value


def _batches(text: str) -> list[int]:
    return [_positive_int(part) for part in text.split(",") if part.strip()]


def _hardware_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("hardware (explicit values override --chip)")
    group.add_argument("--chip", help="chip id (see `perfdrill specs chips`)")
    group.add_argument("--dtype", default="bf16", choices=COMPUTE_DTYPES, help="compute dtype (default bf16)")
    group.add_argument("--flops", metavar="Q", help="peak FLOP/s, e.g. '989 TFLOP/s'")
    group.add_argument("--bandwidth", metavar="Q", help="memory bandwidth, e.g. '3.35 TB/s'")
    group.add_argument("--memory", metavar="Q", help="memory per chip, e.g. '80 GB'")
    group.add_argument(
        "--chips", type=_positive_int, default=1, metavar="N", help="chips sharing the work evenly"
    )


def _model_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model (architecture flags override --model)")
    group.add_argument("--model", help="model id (see `perfdrill specs models`)")
    for flag in _ARCH_FLAGS:
        group.add_argument(f"--{flag.replace('_', '-')}", dest=flag, type=_positive_int, metavar="N")
    group.add_argument("--experts", type=_positive_int, metavar="E")
    group.add_argument("--experts-per-token", type=_positive_int, metavar="K")
    group.add_argument("--tied-embeddings", action="store_true", default=None)
    group.add_argument("--params", metavar="P", help="parameter count, overriding the architecture's")
    group.add_argument("--kv-bytes-per-token", metavar="Q", help="KV cache bytes per token, e.g. '128 KiB'")
    group.add_argument(
        "--weight-dtype", choices=tuple(DTYPE_BYTES), help="weight storage dtype (default --dtype)"
    )
    group.add_argument("--kv-dtype", choices=tuple(DTYPE_BYTES), help="KV cache dtype (default --dtype)")


def register(commands: Any) -> None:
    calc = commands.add_parser("calc", help="evaluate the performance model directly")
    subs = calc.add_subparsers(
        dest="calc_command", metavar="SUBCOMMAND", required=True, parser_class=type(calc)
    )
    specs = {
        "roofline": "ridge point of a chip",
        "matmul": "an (m x k) @ (k x n) matmul; the k x n operand is the weight",
        "elementwise": "an elementwise kernel over N elements",
        "model": "parameter count, weight bytes and KV bytes per token",
        "decode": "one decode step of a batch",
        "prefill": "processing a batch of prompts",
        "train": "training time and memory",
        "collective": "ring collective time",
        "sweep": "decode across batch sizes, with the optimal batch",
    }
    for name, help_text in specs.items():
        sub = subs.add_parser(name, help=help_text, description=help_text)
        if name == "model":
            sub.add_argument(
                "--dtype", default="bf16", choices=COMPUTE_DTYPES, help="storage dtype (default bf16)"
            )
        elif name != "collective":
            _hardware_options(sub)
        if name in ("model", "decode", "prefill", "train", "sweep"):
            _model_options(sub)
        _command_options(name, sub)
        output = sub.add_argument_group("output")
        output.add_argument("--json", action="store_true", help="values in base units as JSON")
        output.add_argument("--explain", action="store_true", help="show each formula worked through")
        add_specs_option(output)
        sub.set_defaults(handler=run, calc_name=name)


def _command_options(name: str, sub: argparse.ArgumentParser) -> None:
    if name in ("matmul", "elementwise", "decode", "prefill"):
        sub.add_argument("--no-overlap", action="store_true", help="runtime = compute + memory, not the max")
    if name == "matmul":
        for dim in ("m", "k", "n"):
            sub.add_argument(f"--{dim}", type=_positive_int, required=True)
        sub.add_argument("--weight-dtype", choices=tuple(DTYPE_BYTES), help="dtype of the k x n operand")
    elif name == "elementwise":
        sub.add_argument("--elements", type=_positive_int, required=True, metavar="N")
        sub.add_argument("--ops-per-element", type=float, default=1.0, metavar="k")
        sub.add_argument("--inputs", type=_positive_int, default=1, metavar="i")
        sub.add_argument("--outputs", type=_positive_int, default=1, metavar="o")
    elif name in ("decode", "sweep"):
        sub.add_argument("--context", type=_positive_int, required=True, metavar="S")
        sub.add_argument("--attention-flops", action="store_true", help="count attention FLOPs too")
        sub.add_argument("--mfu", type=_fraction, default=1.0, metavar="u", help="achieved fraction of peak")
        if name == "decode":
            sub.add_argument("--batch", type=_positive_int, required=True, metavar="B")
            sub.add_argument("--per-op", action="store_true", help="sum per-operation rooflines")
        else:
            sub.add_argument("--batches", type=_batches, default=[2**i for i in range(13)], metavar="1,2,4,…")
    elif name == "prefill":
        sub.add_argument("--batch", type=_positive_int, required=True, metavar="B")
        sub.add_argument("--prompt", type=_positive_int, required=True, metavar="T")
        sub.add_argument("--mfu", type=_fraction, default=1.0, metavar="u")
        sub.add_argument("--attention-flops", action="store_true", help="count causal attention FLOPs too")
    elif name == "train":
        sub.add_argument("--tokens", required=True, metavar="D", help="training tokens, e.g. 15e12")
        sub.add_argument("--mfu", type=_fraction, default=1.0, metavar="u")
        sub.add_argument(
            "--bytes-per-param",
            default="mixed-adam",
            metavar="b",
            help="a number, or mixed-adam (16), mixed-adam-fp32-grads (18), mixed-adam-8bit (10)",
        )
    elif name == "collective":
        sub.add_argument("--op", required=True, choices=("all-gather", "reduce-scatter", "all-reduce"))
        sub.add_argument("--bytes", required=True, metavar="Q", dest="collective_bytes")
        sub.add_argument("--participants", type=_positive_int, required=True, metavar="N")
        sub.add_argument("--link-bandwidth", required=True, metavar="Q")


def _quantity(text: str | None, unit: str, option: str) -> float | None:
    if text is None:
        return None
    value = parse_quantity(text, unit, what=option)
    if value <= 0:
        raise UsageError(f"{option} must be positive, not {text!r}")
    return value


def gather_inputs(args: argparse.Namespace) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(workload, formula inputs, JSON echo of the inputs) for a parsed calc command."""
    name = args.calc_name
    echo: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    if name == "collective":
        value = _quantity(args.collective_bytes, "byte", "--bytes")
        link = _quantity(args.link_bandwidth, "byte/s", "--link-bandwidth")
        inputs = {"collective_bytes": value, "participants": float(args.participants), "link_bandwidth": link}
        echo = {"op": args.op, "bytes": value, "participants": args.participants, "link_bandwidth": link}
        return "collective", inputs, echo
    book = load_specs(args.specs)
    echo["dtype"] = args.dtype
    if name != "model":  # sizes alone need no hardware
        chip = book.chip(args.chip) if args.chip else None
        hw = hardware(
            chip,
            args.dtype,
            flops=_quantity(args.flops, "FLOP/s", "--flops"),
            bandwidth=_quantity(args.bandwidth, "byte/s", "--bandwidth"),
            memory=_quantity(args.memory, "byte", "--memory"),
            chips=args.chips,
            mfu=getattr(args, "mfu", 1.0),
        )
        inputs.update(hw.inputs())
        echo.update(
            chip=args.chip,
            chips=args.chips,
            peak_flops=hw.peak_flops,
            memory_bandwidth=hw.memory_bandwidth,
            memory_capacity=hw.memory_capacity,
        )
    activation_bytes = DTYPE_BYTES[args.dtype]
    if name == "matmul":
        inputs.update(
            m=args.m,
            k=args.k,
            n=args.n,
            activation_bytes=activation_bytes,
            weight_bytes_per_param=dtype_bytes(args.weight_dtype or args.dtype, "--weight-dtype"),
        )
        echo.update(m=args.m, k=args.k, n=args.n)
    elif name == "elementwise":
        inputs.update(
            elements=args.elements,
            ops_per_element=args.ops_per_element,
            inputs=args.inputs,
            outputs=args.outputs,
            activation_bytes=activation_bytes,
            kernels=1,
        )
        echo.update(elements=args.elements, ops_per_element=args.ops_per_element)
    elif name in ("model", "decode", "prefill", "train", "sweep"):
        model = book.model(args.model) if args.model else None
        arch = {flag: getattr(args, flag) for flag in _ARCH_FLAGS if getattr(args, flag) is not None}
        for flag in ("experts", "experts_per_token"):
            if getattr(args, flag) is not None:
                arch[flag] = getattr(args, flag)
        if args.tied_embeddings:
            arch["tied_embeddings"] = 1
        if model is None and not arch and args.params is None:
            raise UsageError("give --model, or the architecture flags, or --params")
        inputs.update(
            model_inputs(
                model,
                weight_dtype=args.weight_dtype or args.dtype,
                kv_dtype=args.kv_dtype or args.dtype,
                arch=arch,
                params=_quantity(args.params, "parameter", "--params"),
                kv_bytes_per_token=_quantity(args.kv_bytes_per_token, "byte/token", "--kv-bytes-per-token"),
            )
        )
        echo.update(model=args.model, weight_dtype=args.weight_dtype or args.dtype, **arch)
    if name in ("decode", "sweep"):
        inputs["context"] = args.context
        echo["context"] = args.context
    if name == "decode":
        inputs["batch"] = args.batch
        echo["batch"] = args.batch
    if name == "prefill":
        inputs.update(batch=args.batch, prompt=args.prompt)
        echo.update(batch=args.batch, prompt=args.prompt)
    if name == "train":
        inputs["tokens"] = _quantity(args.tokens, "token", "--tokens")
        inputs["training_bytes_per_param"] = training_bytes_per_param(args.bytes_per_param)
        echo.update(tokens=inputs["tokens"], bytes_per_param=inputs["training_bytes_per_param"])
    if name in ("train",) and "memory_capacity" not in inputs:
        raise UsageError("give --chip or --memory")
    return _workload(args), inputs, echo


def _workload(args: argparse.Namespace) -> str:
    name = args.calc_name
    if name in ("decode", "sweep"):
        if getattr(args, "per_op", False):
            return "decode_per_op"
        return "decode_attention" if args.attention_flops else "decode"
    if name == "prefill":
        return "prefill_attention" if args.attention_flops else "prefill"
    return name


def run(args: argparse.Namespace) -> int:
    workload, inputs, echo = gather_inputs(args)
    if args.calc_name == "sweep":
        from perfdrill.cli.sweep import run_sweep

        return run_sweep(args, workload, inputs, echo)
    if args.calc_name == "collective":  # the op picks the formula behind `time`
        pairs = [("time", "all_reduce_time" if args.op == "all-reduce" else "ring_pass_time")]
    else:
        pairs = list(RESULTS[args.calc_name])
    if getattr(args, "no_overlap", False):
        pairs = [(r, "runtime_no_overlap" if q == "runtime" else q) for r, q in pairs]
    given = set(inputs)
    values = evaluate(workload, inputs, [q for _, q in pairs])
    if args.json:
        print(
            json.dumps(
                {"inputs": echo, "results": {r: json_value(workload, q, values[q]) for r, q in pairs}},
                indent=2,
            )
        )
        return 0
    if args.calc_name != "model":  # model-level steps belong to `calc model --explain`
        given |= MODEL_LEVEL
    print_results(workload, pairs, values, given, explain=args.explain)
    return 0
