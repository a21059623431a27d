"""Property tests of the performance model."""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import hardware, model_inputs
from perfdrill.engine.model.workloads import WORKLOADS

BOOK = load_specs()
chips = st.sampled_from(sorted(c for c in BOOK.chips if "bf16" in BOOK.chips[c].peak_flops))
models = st.sampled_from(sorted(BOOK.models))


def _inputs(chip: str, model: str, batch: int, context: int) -> dict:
    return {
        **hardware(BOOK.chip(chip), "bf16").inputs(),
        **model_inputs(BOOK.model(model), weight_dtype="bf16", kv_dtype="bf16"),
        "batch": batch,
        "context": context,
    }


@settings(max_examples=150, deadline=None)
@given(chips, models, st.integers(1, 4096), st.integers(1, 4096), st.integers(1, 131072))
def test_runtime_never_falls_as_the_batch_grows(
    chip: str, model: str, batch: int, extra: int, context: int
) -> None:
    small = evaluate("decode", _inputs(chip, model, batch, context), ["runtime"])["runtime"]
    large = evaluate("decode", _inputs(chip, model, batch + extra, context), ["runtime"])["runtime"]
    assert large >= small


@settings(max_examples=150, deadline=None)
@given(chips, models, st.integers(1, 512), st.integers(1, 65536), st.integers(1, 65536))
def test_memory_grows_with_context(chip: str, model: str, batch: int, context: int, extra: int) -> None:
    short = evaluate("decode", _inputs(chip, model, batch, context), ["memory_required"])["memory_required"]
    long = evaluate("decode", _inputs(chip, model, batch, context + extra), ["memory_required"])[
        "memory_required"
    ]
    assert long > short


def _exact(workload: str, name: str, inputs: dict) -> sympy.Expr:
    """Substitute formulas into each other symbolically, then the inputs as exact rationals.
    A quantity present in `inputs` is an override (DeepSeek's MLA sizes) and stays a value."""
    formulas = {f.name: f.expr for f in WORKLOADS[workload]() if f.name not in inputs}
    expr = formulas[name]
    for _ in range(12):  # the dependency chains are shorter than this
        expr = expr.xreplace({s: formulas[s.name] for s in expr.free_symbols if s.name in formulas})
    exact_inputs = {s: sympy.Rational(str(inputs[s.name])) for s in expr.free_symbols}
    return expr.xreplace(exact_inputs)


@settings(max_examples=40, deadline=None)
@given(
    chips,
    models,
    st.integers(1, 2048),
    st.integers(1, 131072),
    st.sampled_from(
        [
            "runtime",
            "tokens_per_second",
            "optimal_batch",
            "max_batch",
            "fits",
            "bound",
            "critical_batch",
            "optimal_is_knee",
        ]
    ),
)
def test_compiled_evaluation_equals_sympy_exact_value(
    chip: str, model: str, batch: int, context: int, name: str
) -> None:
    inputs = _inputs(chip, model, batch, context)
    compiled = evaluate("decode", inputs, [name])[name]
    exact = _exact("decode", name, inputs)
    assert exact.is_number
    assert abs(float(compiled) - float(exact)) <= 1e-9 * max(1.0, abs(float(exact)))
