"""The performance model: units, chip and model specs, the formulas, their evaluation and worked steps.

Every quantity is one sympy expression (defined with formulas.py; workloads.py gathers them);
codegen.py turns them into the committed generated_*.py modules that evaluation.py runs.
"""

from perfdrill.engine.model.evaluation import (
    INPUTS,
    Available,
    QuantityInfo,
    computed,
    dependencies,
    evaluate,
    evaluate_available,
    info,
    workload_names,
)
from perfdrill.engine.model.explain import Derivation, derivation
from perfdrill.engine.model.formula_inputs import (
    TRAINING_CONVENTIONS,
    Hardware,
    dtype_bytes,
    hardware,
    model_inputs,
    training_bytes_per_param,
)
from perfdrill.engine.model.input_bounds import Implausible, implausible
from perfdrill.engine.model.quantity_text import display, label, label_of
from perfdrill.engine.model.spec_files import load_specs
from perfdrill.engine.model.specs import COMPUTE_DTYPES, DTYPE_BYTES, Chip, Model, Sourced, SpecBook
from perfdrill.engine.model.units import format_quantity, parse_quantity, registry
from perfdrill.engine.model.worked_step import Step

__all__ = [
    "COMPUTE_DTYPES",
    "DTYPE_BYTES",
    "INPUTS",
    "TRAINING_CONVENTIONS",
    "Available",
    "Chip",
    "Derivation",
    "Hardware",
    "Implausible",
    "Model",
    "QuantityInfo",
    "Sourced",
    "SpecBook",
    "Step",
    "computed",
    "dependencies",
    "derivation",
    "display",
    "dtype_bytes",
    "evaluate",
    "evaluate_available",
    "format_quantity",
    "hardware",
    "implausible",
    "info",
    "label",
    "label_of",
    "load_specs",
    "model_inputs",
    "parse_quantity",
    "registry",
    "training_bytes_per_param",
    "workload_names",
]
