"""Worked steps from the formula trees: faithful to the engine, simplified for the variant, in labels.

Expected values are hand derivations written in each test (Llama 2 70B's architecture from its
config: 80 layers, d_model 8192, 64 heads, 8 KV heads of 128, MLP 28672 gated, vocabulary 32000,
untied; GPT-2 small: 12 layers, d_model 768, 1024 learned positions, tied, vocabulary 50257).
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
import sympy

from perfdrill.engine.model import (
    codegen,
    evaluate,
    generated_display,
    generated_scalar,
    load_specs,
    model_inputs,
)
from perfdrill.engine.model.display_nodes import display, text, word
from perfdrill.engine.model.evaluation import INPUTS
from perfdrill.engine.model.explain import derivation
from perfdrill.engine.model.formula_trees import evaluate as evaluate_tree
from perfdrill.engine.model.printed import shows_order
from perfdrill.engine.model.quantity_text import label_of
from perfdrill.engine.model.simplifier import Simplifier

SPECS = load_specs([])


def _model(model_id: str) -> dict[str, float]:
    return dict(model_inputs(SPECS.models[model_id], weight_dtype="bf16", kv_dtype="bf16"))


def _lines(workload: str, names: list[str], inputs: dict[str, float]) -> list[str]:
    values = evaluate(workload, inputs, names)
    return [
        step.line().replace("\u00a0", " ") for step in derivation(workload, names, values, set(inputs)).steps
    ]


def test_a_dense_models_parameter_count_has_no_moe_or_tie_term() -> None:
    # Hand derivation, Llama 2 70B: attention 2·8192·128·(64 + 8) = 150,994,944; MLP 3·8192·28672 =
    # 704,643,072; norms 2·8192 = 16,384; 80 layers of 855,654,400; embeddings 2·32000·8192 + 8192 =
    # 524,296,192 (untied: the LM head is a second matrix); total 68,976,648,192 ≈ 69B.
    lines = _lines("model", ["params"], _model("llama-2-70b"))
    text_ = "\n".join(lines)
    for absent in ("MoE", "router", "expert", "tied", "learned positions", " 0 ", "(2 − "):
        assert absent not in text_, absent
    assert "attention params per layer = 2 × model width × head dim × (query heads + KV heads)" in text_
    assert "= 2 × 8,192 × 128 × (64 + 8) = 151M params" in text_
    assert "embedding params = 2 × model width × vocabulary + model width" in text_
    assert lines[-1].startswith("params = dense layers × (attention params per layer + dense MLP params")
    assert lines[-1].endswith("= 69B params")


def test_a_tied_model_with_learned_positions_shows_one_embedding_matrix_and_the_positions() -> None:
    # GPT-2 small: tied, so the vocabulary matrix counts once: 768·50257 + 768·1024 + 768 =
    # 38,597,376 + 786,432 + 768 = 39,384,576 ≈ 39.4M.
    lines = _lines("model", ["embedding_params"], _model("gpt2-small"))
    assert lines == [
        "embedding params = model width × vocabulary + model width × learned positions + model width"
        " = 768 × 50,257 + 768 × 1,024 + 768 = 39.4M params"
    ]


def test_one_chip_at_full_mfu_is_read_at_its_peak_and_a_choice_says_why() -> None:
    # H100 SXM bf16: 989 TFLOP/s, 3.35 TB/s. A 4096³ matmul: 2·4096³ = 137.4 GFLOP in 138.97 µs;
    # 3·4096²·2 B = 100.7 MB in 30.05 µs; so compute-bound.
    chip = SPECS.chips["h100-sxm"]
    inputs = {"peak_flops": chip.peak_flops["bf16"].value, "memory_bandwidth": chip.memory_bandwidth.value}
    inputs |= {"chips": 1, "mfu": 1, "mbu": 1, "m": 4096, "k": 4096, "n": 4096}
    inputs |= {"activation_bytes": 2, "weight_bytes_per_param": 2}
    lines = _lines("matmul", ["bound"], inputs)
    assert "compute time = FLOPs ÷ peak FLOP/s = 137 GFLOP ÷ 989 TFLOP/s = 139 µs" in lines
    assert lines[-1] == "Bound: compute time 139 µs ≥ memory time 30 µs, so compute-bound"
    assert not any("system" in line for line in lines)  # one chip at full MFU: no system FLOP/s step


@pytest.mark.parametrize(
    ("bandwidth", "verdict"),
    [
        # memory time 3 × 1,024² × 2 B ÷ 2.93 TB/s = 2.14725 µs, compute time 2 × 1,024³ FLOP ÷
        # 1 PFLOP/s = 2.14748 µs: both "2.15 µs" to 3 figures, which hides which is larger
        (2.93e12, "Bound: compute time 2.1475 µs ≥ memory time 2.1473 µs, so compute-bound"),
        # ÷ 2.9296 TB/s it is 2.14755 µs: "2.15 µs < 2.15 µs" would be false as printed
        (2.9296e12, "Bound: compute time 2.147 µs < memory time 2.148 µs, so memory-bound"),
    ],
)
def test_a_verdict_prints_the_figures_that_show_its_order(bandwidth: float, verdict: str) -> None:
    inputs = {"peak_flops": 1e15, "memory_bandwidth": bandwidth, "chips": 1, "mfu": 1, "mbu": 1}
    inputs |= {"m": 1024, "k": 1024, "n": 1024, "activation_bytes": 2, "weight_bytes_per_param": 2}
    assert _lines("matmul", ["bound"], inputs)[-1] == verdict


def test_a_comparison_shows_its_order_only_where_the_printed_figures_bear_it_out() -> None:
    nbsp = "\u00a0"
    assert not shows_order("<", f"180{nbsp}µs", f"180{nbsp}µs", "s", differ=True)
    assert not shows_order(">=", f"1.23{nbsp}ms", f"1.23{nbsp}ms", "s", differ=True)  # hides the order
    assert shows_order(">=", f"1.23{nbsp}ms", f"1.23{nbsp}ms", "s", differ=False)  # equal values: true
    assert shows_order(">", f"1.04{nbsp}ms", f"1,030{nbsp}µs", "s", differ=True)
    assert not shows_order(">", "1", "1", "1", differ=True)  # a speed-up of 1.0004 read as "1 > 1"
    # 95 GiB is 95 × 2³⁰ B = 102.005 GB, so 101.7 GB ≤ 95 GiB holds
    assert shows_order("<=", f"101.7{nbsp}GB", f"95{nbsp}GiB", "byte", differ=True)
    assert shows_order("<", "memory-bound", "compute-bound", "1", differ=True)  # words: nothing to compare


def test_the_simplifier_drops_what_vanishes_and_keeps_the_case_taken() -> None:
    values = {"a": 3.0, "b": 0.0, "c": 1.0, "d": 5.0}
    simplifier = Simplifier(values, {"b": 0.0, "c": 1.0})
    assert simplifier.run(("+", "a", ("*", "b", "d"))) == "a"  # a + 0·d
    assert simplifier.run(("*", "c", "d", ("+", 2, ("*", -1, "b")))) == ("*", 2, "d")  # 1·d·(2 − 0)
    assert simplifier.run(("max", 0, ("floor", "d"))) == ("floor", "d")  # max(0, ⌊d⌋) with d > 0
    assert simplifier.run(("*", "d", 2, ("^", 2, -1))) == "d"  # d·2 ÷ 2
    assert simplifier.run(("pw", ("a", (">=", "a", "d")), ("d", True))) == "d"
    assert [(r.op, r.left, r.right) for r in simplifier.reasons] == [("<", "a", "d")]


def test_a_tree_reads_as_a_person_writes_it() -> None:
    tree = ("*", ("+", "system_memory", ("*", -1, "weight_bytes")), ("^", ("*", "context", "x"), -1))
    shown = text(display(("floor", tree), lambda name: word(label_of("decode", name))))
    assert shown == "⌊(system memory − weight bytes) ÷ (context × x)⌋"
    assert text(display(("^", "prompt", 2), lambda name: word(name))) == "prompt²"


@pytest.mark.parametrize("workload", sorted(generated_scalar.TABLE))
def test_every_tree_computes_what_the_generated_function_computes(workload: str) -> None:
    """The trees explanations show are the formulas the engine runs, on random positive inputs."""
    rng = random.Random(workload)
    table = generated_scalar.TABLE[workload]
    values = {name: rng.uniform(0.5, 8.0) for name in [*INPUTS, *table]} | {"flaw": 3.0}
    for name, (function, args) in table.items():
        tree = generated_display.QUANTITIES[f"{name}@{workload}"][3]
        try:
            expected = function(*(values[arg] for arg in args))
        except ZeroDivisionError:  # undefined for these inputs (a matmul that never turns compute-bound)
            with pytest.raises(ZeroDivisionError):
                evaluate_tree(tree, values)
            continue
        assert math.isclose(float(evaluate_tree(tree, values)), float(expected), rel_tol=1e-12), name


@pytest.mark.parametrize(
    ("build", "shown"),
    [
        (lambda n, b: sympy.log(n, 2) * b, "b × log₂(n)"),  # a tree all-reduce: log₂ N steps
        (lambda n, b: sympy.sqrt(n + b), "√(b + n)"),
        (lambda n, b: b / sympy.sqrt(n), "b ÷ √n"),
        (lambda n, b: sympy.Piecewise((n, sympy.Ne(n, b)), (b, True)), None),
        (lambda n, b: sympy.Piecewise((n, sympy.Not(n > b)), (b, True)), None),
    ],
)
def test_trees_cover_the_functions_formulas_use(build: Any, shown: str | None) -> None:
    """Formulas may use log, √, ≠ and not: each has a tree that computes what sympy computes."""
    n, b = sympy.Symbol("n", positive=True), sympy.Symbol("b", positive=True)
    expr = build(n, b)
    tree = codegen.display_tree(expr, codegen._Order())
    for values in ({"n": 8.0, "b": 3.0}, {"n": 2.0, "b": 5.0}):
        expected = float(expr.subs({n: values["n"], b: values["b"]}))
        assert math.isclose(float(evaluate_tree(tree, values)), expected, rel_tol=1e-12)
    if shown is not None:
        assert text(display(tree, word)) == shown
