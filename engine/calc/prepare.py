"""A calc request made ready for the engine: the options' values read strictly, the chip and model
behind --chip and --model gathered into formula inputs, and whatever cannot apply refused.

Both `perfdrill calc` (perfdrill/cli/calc.py) and the Python API (perfdrill.calc) go through prepare().
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from perfdrill.engine import UsageError
from perfdrill.engine.calc.omitted import Hints, phrase, suppliers
from perfdrill.engine.calc.options import ARCH_FLAGS, HARDWARE, LINK, MLP_MATRICES, MODEL, MORE_ARCH_FLAGS
from perfdrill.engine.calc.spec import Subcommand
from perfdrill.engine.calc.unused import unused_note
from perfdrill.engine.model import (
    Chip,
    SpecBook,
    computed,
    dependencies,
    dtype_bytes,
    evaluate_available,
    hardware,
    implausible,
    load_specs,
    model_inputs,
)


@dataclass
class Calculation:
    """One parsed calc command: its formula inputs, their JSON echo, and how to explain omissions."""

    spec: Subcommand
    workload: str
    inputs: dict[str, Any]
    echo: dict[str, Any]
    hints: Hints
    notes: list[str]


def _read(spec: Subcommand, args: argparse.Namespace) -> tuple[dict[str, Any], set[str]]:
    """Each option's value (typed text read strictly, or its default) and the flags given."""
    # options no result reads are not offered; the groups still see their defaults
    values: dict[str, Any] = {o.dest: False if o.switch else o.default for o in spec.unread_options}
    given: set[str] = set()
    for option in spec.all_options():
        raw = getattr(args, option.dest)
        if option.switch:
            values[option.dest] = bool(raw)
        elif raw is None:
            values[option.dest] = option.default
            continue
        else:
            values[option.dest] = option.read(raw, option.flag) if option.read else raw
        if raw:
            given.add(option.flag)
    return values, given


Part = tuple[dict[str, Any], dict[str, Any]]  # (formula inputs, JSON echo)


def _hardware(values: dict[str, Any], chip: Chip | None) -> Part:
    hw = hardware(
        chip,
        values["dtype"],
        flops=values["flops"],
        bandwidth=values.get("bandwidth"),
        memory=values["memory"],
        chips=values["chips"],
        mfu=values["mfu"],
        mbu=values.get("mbu", 1.0),
    )
    echo = {
        "chip": values["chip"],
        "chips": values["chips"],
        "peak_flops": hw.peak_flops,
        "memory_bandwidth": hw.memory_bandwidth,
        "memory_capacity": hw.memory_capacity,
        "mfu": values["mfu"],
    }
    if "mbu" in values:
        echo["mbu"] = values["mbu"]
    return hw.inputs(), echo


def _link(values: dict[str, Any], chip: Chip | None) -> Part:
    link = values["link_bandwidth"]
    if link is None and chip is not None and chip.link_bandwidth is not None:
        link = chip.link_bandwidth.value
    inputs = {} if link is None else {"link_bandwidth": link}
    return inputs, {"chip": values["chip"], "link_bandwidth": link}


def _model(values: dict[str, Any], book: SpecBook) -> Part:
    arch = {name: values[name] for name in (*ARCH_FLAGS, *MORE_ARCH_FLAGS) if values[name] is not None}
    if values["tied_embeddings"]:
        arch["tied_embeddings"] = 1
    if values["mlp"] is not None:
        arch["mlp_matrices"] = MLP_MATRICES[values["mlp"]]
    weight_dtype = values.get("weight_dtype") or values["dtype"]
    inputs = model_inputs(
        book.model(values["model"]) if values["model"] else None,
        weight_dtype=weight_dtype,
        kv_dtype=values.get("kv_dtype") or values["dtype"],
        arch=arch,
        params=values.get("params"),
        active_params=values.get("active_params"),
        kv_bytes_per_token=values.get("kv_bytes_per_token"),
    )
    echo = {"model": values["model"], "weight_dtype": weight_dtype, **arch}
    for name in ("params", "active_params", "kv_bytes_per_token", "kv_dtype"):
        if values.get(name) is not None:
            echo[name] = values[name]
    return inputs, echo


def _gather(spec: Subcommand, values: dict[str, Any], book: SpecBook) -> Part:
    """(formula inputs, JSON echo) from the option values, the chip and the model."""
    dtype = values.get("dtype", "bf16")
    inputs: dict[str, Any] = {
        **spec.constants,
        "activation_bytes": dtype_bytes(dtype, "--dtype"),
        "weight_bytes_per_param": dtype_bytes(values.get("weight_dtype") or dtype, "--weight-dtype"),
    }
    echo: dict[str, Any] = {"dtype": dtype} if "dtype" in values else {}
    chip = book.chip(values["chip"]) if values.get("chip") else None
    parts = {HARDWARE: lambda: _hardware(values, chip), LINK: lambda: _link(values, chip)}
    parts[MODEL] = lambda: _model(values, book)
    for group in spec.groups:
        group_inputs, group_echo = parts[group]()
        inputs.update(group_inputs)
        echo.update(group_echo)
    for option in spec.options:
        value = values[option.dest]
        if option.switch or value is None:
            continue
        if option.read is not None:  # a dtype's bytes were set above
            inputs.update({name: float(value) for name in option.supplies})
        echo[option.echo or option.dest] = value
    return inputs, echo


def _check_the_counts(
    spec: Subcommand,
    workload: str,
    wanted: list[str],
    inputs: dict[str, Any],
    given: set[str],
) -> None:
    """Refuse what cannot hold together: a total without the active count of a mixture of
    experts, an active count above the total."""
    reached = dependencies(workload, wanted, inputs)
    moe = inputs.get("experts", 1) > 1
    if moe and "--params" in given and "--active-params" not in given and "active_params" in reached:
        raise UsageError(
            "--params is the total of a mixture of experts, and its active count does not follow from it: "
            "give --active-params too"
        )
    if not ({"params", "active_params"} & set(inputs) or moe):
        return  # counted from one dense architecture: the active count is the total
    counts = evaluate_available(workload, inputs, ["params", "active_params"]).values
    if counts.get("active_params", 0) > counts.get("params", float("inf")) * (1 + 1e-12):
        raise UsageError("the active parameters exceed the total: check --params and --active-params")


def _refuse_implausible(spec: Subcommand, inputs: dict[str, Any], given: set[str]) -> None:
    """Inputs no real system has (a cache reserved shorter than its context) are refused, not computed."""
    problems = implausible(inputs)
    if not problems:
        return
    flags = {name: o.flag for o in spec.all_options() if o.flag in given for name in o.supplies}

    def shown(name: str) -> str:
        return f"{flags.get(name, name)} {inputs[name]:,g}"

    raise UsageError(problems[0].said(shown))


def _hints(
    spec: Subcommand, workload: str, inputs: dict[str, Any], values: dict[str, Any], given: set[str]
) -> Hints:
    """What each formula name can come from: options, then the specs behind --chip and --model.

    A flag already given is no way to get what is still missing (a chip without a link bandwidth).
    """
    options = spec.all_options()
    sources = [(g.source, g.source_supplies) for g in spec.groups if g.source]
    pairs = [(o.flag, o.supplies) for o in options] + sources
    supplied_by = suppliers([(flag, names) for flag, names in pairs if flag not in given])
    order = [o.flag for o in options if o.supplies] + [flag for flag, _ in sources]
    zeros = [o for o in options if not o.switch and values[o.dest] == 0]
    zero_inputs = {name: o.flag for o in zeros for name in o.supplies}
    return Hints(workload, inputs, supplied_by, order, zero_inputs)


def prepare(
    spec: Subcommand, args: argparse.Namespace, wanted: list[str], book: SpecBook | None = None
) -> Calculation:
    """Read the options, gather the inputs, and refuse any option that cannot apply."""
    values, given = _read(spec, args)
    workload = spec.workload_for(args)
    formulas = set(computed(workload))
    missing = [q for q in wanted if q not in formulas]
    if missing:
        switches = " ".join(o.flag for o in spec.all_options() if o.switch and values[o.dest])
        raise UsageError(f"calc {spec.name} {switches}: these options do not combine")
    inputs, echo = _gather(spec, values, book or load_specs(args.specs))
    for name, quantities in spec.zero_means_zero.items():
        if inputs.get(name) == 0:
            inputs.update({q: 0.0 for q in quantities if q not in inputs})
    unused = unused_note(spec, workload, wanted, inputs, given)
    _check_the_counts(spec, workload, wanted, inputs, given)
    _refuse_implausible(spec, inputs, given)
    for name, why in spec.refuse.items():
        if name in inputs:
            raise UsageError(f"calc {spec.name}: {why}")
    hints = _hints(spec, workload, inputs, values, given)
    notes = [] if unused is None else [unused]
    for neglect in spec.neglect:
        if neglect.only is not None and getattr(args, neglect.only.dest) != neglect.only.value:
            continue
        rests_on = dependencies(workload, [neglect.quantity], inputs)
        if neglect.quantity not in inputs and not rests_on <= set(inputs) | set(computed(workload)):
            notes.append(f"{neglect.what} ({phrase(hints.ways(neglect.quantity))} to count them)")
            inputs[neglect.quantity] = 0.0
    return Calculation(spec, workload, inputs, echo, hints, notes)
