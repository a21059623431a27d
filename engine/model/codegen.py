"""Turn the sympy formulas into plain Python modules, at development time, so no run imports sympy.

`python -m perfdrill.engine.model.codegen` rewrites `generated_scalar.py` (`math`) and
`generated_numpy.py` (numpy arrays) beside this file. Both are committed: nothing is ever generated
into, or imported from, a cache folder, and tests/test_codegen.py fails when either is stale.

Each generated module holds one function per distinct formula plus the metadata explanations need:
unit, meaning, the formula as text, and a substitution template whose {name} fields take values.
`generated_display.py` holds what worked explanations show: each quantity's label and its formula
as a small tree of nested tuples (see `display_tree`), which simplifier.py simplifies for a variant
and writes as Unicode, Typst or MathML without sympy.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sympy
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import PythonCodePrinter

from perfdrill.engine.model.formula_trees import FUNCTIONS
from perfdrill.engine.model.formulas import INPUT_LABELS, INPUTS, WHOLE_INPUTS, Formula
from perfdrill.engine.model.inefficiencies import DEFAULT_INPUTS
from perfdrill.engine.model.spoken import spoken
from perfdrill.engine.model.workloads import WORKLOADS


class _ArrayPrinter(NumPyPrinter):
    """numpy.amax((0, array)) fails on mixed scalars and arrays; pairwise maximum broadcasts."""

    def _pairwise(self, function: str, args: tuple[sympy.Expr, ...]) -> str:
        text = self._print(args[0])
        for arg in args[1:]:
            text = f"numpy.{function}({text}, {self._print(arg)})"
        return text

    def _print_Max(self, expr: sympy.Max) -> str:
        return self._pairwise("maximum", expr.args)

    def _print_Min(self, expr: sympy.Min) -> str:
        return self._pairwise("minimum", expr.args)

    def _print_ceiling(self, expr: sympy.ceiling) -> str:  # as _ScalarPrinter's, element by element
        return f"numpy.ceil(whole_if_noise_array({self._print(expr.args[0])}))"

    def _print_floor(self, expr: sympy.floor) -> str:
        return f"numpy.floor(whole_if_noise_array({self._print(expr.args[0])}))"


class _ScalarPrinter(PythonCodePrinter):
    """A floor or ceiling reads a whole number but for float noise as that number (float_noise.py)."""

    def _print_ceiling(self, expr: sympy.ceiling) -> str:
        return f"math.ceil(whole_if_noise({self._print(expr.args[0])}))"

    def _print_floor(self, expr: sympy.floor) -> str:
        return f"math.floor(whole_if_noise({self._print(expr.args[0])}))"


def _pretty(text: str) -> str:
    for old, new in (("**", "^"), ("*", "·"), ("Max(", "max("), ("Min(", "min("), ("ceiling(", "ceil(")):
        text = text.replace(old, new)
    return text


def _template(formula: Formula) -> str:
    if formula.shown:
        return formula.shown
    placeholders = {s: sympy.Symbol("{" + s.name + "}", **s.assumptions0) for s in formula.expr.free_symbols}
    return _pretty(str(formula.expr.xreplace(placeholders)))


def generate_source(vector: bool) -> str:
    """Python source of the compiled formulas (`vector` selects numpy-array code)."""
    printer = (
        _ArrayPrinter({"fully_qualified_modules": True})
        if vector
        else _ScalarPrinter({"fully_qualified_modules": True})
    )
    functions: dict[str, str] = {}  # srepr -> function name
    lines = [
        _HEADER,
        "import math" if not vector else "import numpy",
        "",
        "from perfdrill.engine.model.float_noise import "
        + ("whole_if_noise_array" if vector else "whole_if_noise"),
        "",
    ]
    table: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {}
    meta: dict[str, tuple[str, str, str, str, tuple[str, ...] | None, bool | tuple[object, ...]]] = {}
    for workload, build in WORKLOADS.items():
        table[workload] = {}
        for formula in build():
            args = tuple(sorted(s.name for s in formula.expr.free_symbols))
            key = sympy.srepr(formula.expr)
            if key not in functions:
                functions[key] = f"f{len(functions)}_{formula.name}"
                body = printer.doprint(formula.expr)
                lines += [f"def {functions[key]}({', '.join(args)}):", f"    return {body}", ""]
            table[workload][formula.name] = (functions[key], args)
            meta[formula.name + "@" + workload] = (
                formula.unit,
                formula.doc,
                _pretty(formula.shown or str(formula.expr)),
                _template(formula),
                formula.labels,
                formula.exact if isinstance(formula.exact, bool) else tuple(formula.exact),
            )
    lines.append("TABLE = {")
    for workload, entries in table.items():
        lines.append(f"    {workload!r}: {{")
        lines += [f"        {name!r}: ({fn}, {args!r})," for name, (fn, args) in entries.items()]
        lines.append("    },")
    lines += ["}", f"META = {meta!r}", f"INPUTS = {INPUTS!r}", ""]
    return "\n".join(lines)


_HEADER = "# Generated by `python -m perfdrill.engine.model.codegen` from the engine's formulas. Do not edit."
GENERATED = {False: "generated_scalar.py", True: "generated_numpy.py"}
DISPLAY = "generated_display.py"

_RELATIONS = {
    sympy.GreaterThan: ">=",
    sympy.StrictGreaterThan: ">",
    sympy.LessThan: "<=",
    sympy.StrictLessThan: "<",
    sympy.Eq: "==",
    sympy.Ne: "!=",
}


class _Order:
    """Factors in the order a person writes them: numbers, then counts (batch × …), then computed
    quantities, then sizes and rates (× bytes per weight), then bracketed terms."""

    def __init__(self) -> None:
        self.inputs = {name: index for index, name in enumerate(INPUTS)}
        self.computed: dict[str, int] = {}

    def key(self, node: object) -> tuple[int, int]:
        if isinstance(node, int | float):
            return (0, 0)
        if isinstance(node, tuple) and node[0] == "^" and isinstance(node[1], str):
            return self.key(node[1])
        if not isinstance(node, str):
            return (4, 0)
        if node in self.inputs:
            counted = node in WHOLE_INPUTS and INPUTS[node][0] != "token"
            return (1 if counted else 3, self.inputs[node])
        return (2, self.computed.setdefault(node, len(self.computed)))

    def ranks(self) -> dict[str, int]:
        """Every name's place in the order, for simplifier.py to keep after it simplifies a product."""
        names = [*self.inputs, *self.computed]
        return {name: index for index, name in enumerate(sorted(names, key=self.key))}


def display_tree(expr: sympy.Basic, order: _Order) -> object:
    """`expr` as nested tuples: a name is a str, a number an int or float, and an operation
    ("+", …), ("*", …), ("^", base, exponent), ("max", …), ("min", …), ("floor", x), ("ceil", x),
    ("sqrt", x), ("log2", x), ("log", x), ("pw", (value, condition), …) with conditions
    (">=", a, b) … ("==", a, b), ("and", …), ("or", …), ("not", c) or True. A product's factors are
    in `order`; a sum's negative terms come last ("a − b")."""
    if isinstance(expr, sympy.Symbol):
        return expr.name
    if isinstance(expr, sympy.Integer):
        return int(expr)
    if isinstance(expr, sympy.Rational):
        return ("*", int(expr.p), ("^", int(expr.q), -1)) if expr.p != 1 else ("^", int(expr.q), -1)
    if isinstance(expr, sympy.Number):
        return float(expr)
    if isinstance(expr, sympy.Add):
        content, rest = expr.primitive()  # 4·k·m + 4·k·n reads 4·(k·m + k·n)
        if content != 1 and isinstance(content, sympy.Integer):
            return ("*", int(content), display_tree(rest, order))
        # Longer products first, subtracted terms last: 2·d·V + d, and a − b rather than −b + a.
        terms = sorted(expr.args, key=lambda t: (t.could_extract_minus_sign(), -len(sympy.Mul.make_args(t))))
        return ("+", *(display_tree(term, order) for term in terms))
    if isinstance(expr, sympy.Mul) and _one_root(expr):  # √(C ÷ (6·r)), never 2.45 × √C ÷ (6 × √r)
        inside = sympy.Mul(*(arg**2 for arg in expr.args), evaluate=True)
        return ("sqrt", display_tree(inside, order))
    if isinstance(expr, sympy.Mul):
        factors: list[object] = []
        args = list(expr.args)
        logs = [arg for arg in args if isinstance(arg, sympy.log)]
        if logs and 1 / sympy.log(2) in args:  # log(x, 2), which sympy keeps as log(x)/log(2)
            args = [arg for arg in args if arg not in (logs[0], 1 / sympy.log(2))]
            factors.append(("log2", display_tree(logs[0].args[0], order)))
        for arg in args:
            if isinstance(arg, sympy.Rational) and not isinstance(arg, sympy.Integer):
                factors += [int(arg.p)] if arg.p != 1 else []
                factors.append(("^", int(arg.q), -1))
            else:
                factors.append(display_tree(arg, order))
        return ("*", *sorted(factors, key=order.key))
    if isinstance(expr, sympy.Pow):
        if abs(expr.exp) == sympy.Rational(1, 2):  # √x, and 1/√x
            root = ("sqrt", display_tree(expr.base, order))
            return root if expr.exp > 0 else ("^", root, -1)
        return ("^", display_tree(expr.base, order), display_tree(expr.exp, order))
    if isinstance(expr, sympy.Piecewise):
        return ("pw", *((display_tree(v, order), display_tree(c, order)) for v, c in expr.args))
    if expr is sympy.true or expr is sympy.false:
        return expr is sympy.true
    if isinstance(expr, sympy.Not):
        return ("not", display_tree(expr.args[0], order))
    if isinstance(expr, sympy.And | sympy.Or):
        return ("and" if isinstance(expr, sympy.And) else "or", *(display_tree(a, order) for a in expr.args))
    if type(expr) in _RELATIONS:
        return (_RELATIONS[type(expr)], display_tree(expr.lhs, order), display_tree(expr.rhs, order))
    functions = {sympy.Max: "max", sympy.Min: "min", sympy.floor: "floor", sympy.ceiling: "ceil"}
    if type(expr) in functions:
        return (functions[type(expr)], *(display_tree(a, order) for a in expr.args))
    if isinstance(expr, sympy.Function) and type(expr).__name__.lower() in FUNCTIONS:  # log, exp
        return (type(expr).__name__.lower(), *(display_tree(a, order) for a in expr.args))
    raise TypeError(f"no display form for {type(expr).__name__} in {expr}")


def _one_root(expr: sympy.Mul) -> bool:
    """A product of square roots and numbers with at least one root of a name: read as one root,
    since sympy splits √(C/(6r)) into √6·√C/(6·√r), whose constant 2.45 no reader recognises."""
    roots = [arg for arg in expr.args if isinstance(arg, sympy.Pow) and abs(arg.exp) == sympy.Rational(1, 2)]
    rest = [arg for arg in expr.args if arg not in roots]
    named = any(root.free_symbols for root in roots)
    return named and all(arg.is_number for arg in rest)


def generate_display_source() -> str:
    """Python source of generated_display.py: labels, phrases and formula trees of every quantity."""
    order = _Order()
    quantities: dict[str, tuple[str, tuple[str, ...] | None, bool, object]] = {}
    for workload, build in WORKLOADS.items():
        for formula in build():
            whole = formula.whole or bool(formula.exact)
            tree = display_tree(formula.expr, order)
            quantities[formula.name + "@" + workload] = (formula.title, formula.phrases, whole, tree)
    labels = {name: INPUT_LABELS.get(name, spoken(name)) for name in INPUTS}
    return "\n".join(
        [
            _HEADER,
            "# The words for the case an input's value picks live beside the what-if words, free of sympy.",
            "from perfdrill.engine.model.spoken import VALUE_WORDS  # re-exported",
            "",
            "# name@workload -> (label, phrases, whole, formula tree); see codegen.display_tree.",
            "QUANTITIES = {",
            *(f"    {key!r}: {entry!r}," for key, entry in quantities.items()),
            "}",
            "INPUT_LABELS = {",
            *(f"    {name!r}: {label!r}," for name, label in labels.items()),
            "}",
            f"WHOLE_INPUTS = {tuple(sorted(WHOLE_INPUTS))!r}",
            "# The order factors are written in: counts, computed quantities, then sizes and rates.",
            f"FACTOR_ORDER = {order.ranks()!r}",
            "# Inputs the engine supplies when a question does not set them (inefficiencies.py).",
            f"DEFAULT_INPUTS = {DEFAULT_INPUTS!r}",
            "",
        ]
    )


def main(argv: list[str]) -> int:
    """Rewrite the generated modules; with `--check`, only report whether they are current."""
    folder = Path(__file__).resolve().parent
    stale = []
    sources = {name: lambda vector=vector: generate_source(vector) for vector, name in GENERATED.items()}
    for name, generate in {**sources, DISPLAY: generate_display_source}.items():
        source = generate()
        path = folder / name
        if path.exists() and path.read_text(encoding="utf-8") == source:
            continue
        stale.append(name)
        if "--check" not in argv:
            path.write_text(source, encoding="utf-8")
    verb = "stale" if "--check" in argv else "rewritten"
    print(f"{verb}: {', '.join(stale)}" if stale else "generated formulas are current")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
