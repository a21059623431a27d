"""Jinja2 with walls and limits, for template text that nobody vouches for.

Jinja2's ImmutableSandboxedEnvironment is the wall: no `__class__` tricks, no imports, no files, no
changing lists or dicts. This module adds the limits, so that no template can hang, exhaust memory
or flood a terminal, each past-limit one located line naming the limit:

- sizes (size_limits.py): every string a template makes (by `*`, `+`, `~`, `%`, a str method, a
  filter, a macro, a block) stays under MAX_TEXT characters, every list under MAX_ITEMS items and
  every whole number under MAX_INT_BITS bits, checked before the work where the work could be huge;
- time: every loop iteration, call, operator and filter is a step; a rendering stops after
  MAX_STEPS of them (deterministic) or MAX_SECONDS, so nested loops and heavy filters stop, and a
  macro that calls itself ends at Python's recursion limit, as one located line;
- output: the rendered text is at most MAX_TEXT characters, and terminal control characters are
  stripped from it (`safe_text`).
"""

from __future__ import annotations

import inspect
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from contextvars import ContextVar
from functools import wraps
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from jinja2.utils import missing, pass_context

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.problems.size_limits import (
    FILTER_CHECKS,
    MAX_INT_BITS,
    MAX_ITEMS,
    MAX_TEXT,
    METHOD_CHECKS,
    ResourceLimit,
    bounded_concat,
    check_size,
    expect,
    joined,
    limit,
    materialized,
    power,
    printf,
    repeat,
    str_format,
)
from perfdrill.engine.safe_text import safe_text

MAX_STEPS = 200_000  # loop iterations, calls, operators and filters in one rendering; a prompt needs dozens
MAX_SECONDS = 2.0  # one rendering's wall-clock budget (a prompt takes milliseconds)
TEMPLATE_FILE = "<template>"  # the file name Jinja2 compiles `from_string` templates under
COUNTED = "_counted"  # the filter every loop's iterable is passed through


class _Budget:
    """The steps and time one rendering has left."""

    def __init__(self) -> None:
        self.steps = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise limit(f"the template ran more than {MAX_STEPS:,} steps (a loop too long?)")
        if time.monotonic() > self.deadline:
            raise limit(f"rendering took more than {MAX_SECONDS:g} s")


_BUDGET: ContextVar[_Budget | None] = ContextVar("perfdrill_render_budget", default=None)


def _tick() -> None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.tick()


def _counted(items: Iterable[Any]) -> Iterator[Any]:
    """`items`, one step each: loops are where a template's time goes."""
    for item in items:
        _tick()
        yield item


@pass_context  # never evaluated while compiling: the loop runs only when rendering
def _counted_filter(context: jinja2.runtime.Context, items: Iterable[Any]) -> Iterator[Any]:
    return _counted(items)


_REFUSED_FILTERS = ("random",)  # a random pick would change the variant a seed names
_REFUSED_METHODS = ("translate",)  # its table can expand every character into a long text


def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    check = FILTER_CHECKS.get(name)
    signature = inspect.signature(function) if check is not None else None

    @wraps(function)  # keeps Jinja2's pass_context/pass_environment marks
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _tick()
        if check is not None and signature is not None:
            bound = signature.bind(*args, **kwargs)
            check(bound.arguments)
            args, kwargs = bound.args, bound.kwargs
        return check_size(function(*args, **kwargs))

    return bounded


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    expect(len(numbers), MAX_ITEMS, "range", "items")
    return numbers


class _Generator(CodeGenerator):
    """Compiles every loop's iterable through COUNTED, and `a ~ b` through the environment's
    bounded concatenation, like all other text."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        for loop in node.find_all(nodes.For):
            loop.iter = nodes.Filter(loop.iter, COUNTED, [], [], None, None, lineno=loop.iter.lineno)
        super().visit_Template(node, frame)

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.concat(map(str, (")
        for argument in node.nodes:
            self.visit(argument, frame)
            self.write(", ")
        self.write(")))")


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with the limits of this module; filters added later are bounded too (`add_filter`)."""

    code_generator_class = _Generator
    intercepted_binops = frozenset({"+", "*", "**", "%"})
    concat = staticmethod(bounded_concat)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals["range"] = _bounded_range
        del self.globals["lipsum"]  # random text, and lipsum(10**7) is gigabytes of it
        for name in _REFUSED_FILTERS:
            del self.filters[name]
        for name, function in list(self.filters.items()):
            self.filters[name] = _bounded_filter(name, function)
        self.filters[COUNTED] = _counted_filter

    def add_filter(self, name: str, function: Callable[..., Any]) -> None:
        self.filters[name] = _bounded_filter(name, function)

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        _tick()
        if operator == "*":
            repeat(left, right)
            repeat(right, left)
            if isinstance(left, int) and isinstance(right, int):
                expect(left.bit_length() + right.bit_length(), MAX_INT_BITS, "multiplying", "bits")
        elif operator == "**":
            power(left, right)
        elif operator == "%":
            printf(left)
        elif operator == "+" and isinstance(left, str | list | tuple) and isinstance(right, Sized):
            cap, unit = (MAX_TEXT, "characters") if isinstance(left, str) else (MAX_ITEMS, "items")
            expect(len(left) + len(right), cap, "adding", unit)
        return check_size(super().call_binop(context, operator, left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapper = super().wrap_str_format(value)
        if wrapper is not None:
            str_format(value.__self__)
        return wrapper

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        _tick()
        if isinstance(__obj, LoopContext) and args:  # `loop(children)` in a recursive loop
            args = (_counted(args[0]), *args[1:])
        if isinstance(__obj, types.BuiltinMethodType) and isinstance(__obj.__self__, str):
            name = __obj.__name__
            if name in _REFUSED_METHODS:
                raise SecurityError(f"str.{name} is not allowed in templates")
            if name == "join" and args:
                args = (materialized(args[0]), *args[1:])
                joined(__obj.__self__, args[0])
            elif name in METHOD_CHECKS:
                METHOD_CHECKS[name](__obj.__self__, args)
        for argument in (*args, *kwargs.values()):
            check_size(argument)
        return check_size(super().call(__context, __obj, *args, **kwargs))


def run_bounded(template: jinja2.Template, context: Mapping[str, Any]) -> str:
    """Render `template` within the step, time and size limits; anything past one is ResourceLimit."""
    token = _BUDGET.set(_Budget())
    try:
        return template.render(context)
    finally:
        _BUDGET.reset(token)


def _template_line(error: BaseException) -> int | None:
    """The template line an exception was raised from (Jinja2 rewrites tracebacks to point there)."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == TEMPLATE_FILE:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _short(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 300 else text[:297] + "..."


class TextError(Exception):
    """A template text that cannot compile or render: a message, and its line within the text."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def compile_bounded(environment: jinja2.Environment, text: str) -> jinja2.Template:
    """Compile `text`; a syntax error, or nesting too deep to compile, is a TextError."""
    try:
        return environment.from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        raise TextError(f"Jinja syntax error: {exc.message}", exc.lineno) from None
    except (RecursionError, MemoryError, SyntaxError):  # 300 nested brackets, 50,000 terms...
        raise TextError("resource limit: the template is nested too deeply to compile", None) from None


def render_bounded(template: jinja2.Template, context: Mapping[str, Any]) -> str:
    """Render within the limits, as clean text; every failure is a TextError."""
    try:
        return safe_text(run_bounded(template, context)).strip()
    except PerfdrillError as exc:  # from the engine, e.g. a quantity `given` could not compute
        raise TextError(exc.message, _template_line(exc)) from None
    except ResourceLimit as exc:
        raise TextError(str(exc), _template_line(exc)) from None
    except SecurityError as exc:
        raise TextError(f"security error: {_short(exc)}", _template_line(exc)) from None
    except jinja2.UndefinedError as exc:
        raise TextError(f"undefined in template: {_short(exc)}", _template_line(exc)) from None
    except RecursionError as exc:
        message = "resource limit: recursion too deep (a macro that calls itself?)"
        raise TextError(message, _template_line(exc)) from None
    except MemoryError as exc:
        raise TextError("resource limit: out of memory", _template_line(exc)) from None
    except (TypeError, ValueError, ArithmeticError, LookupError, jinja2.TemplateError) as exc:
        raise TextError(f"rendering failed: {_short(exc)}", _template_line(exc)) from None


def undefined_message(obj: Any, name: Any) -> str:
    """Why `obj.name` is undefined, said without Python's class names."""
    if obj is missing:
        return f"{name!r} is undefined"
    if isinstance(obj, Mapping):
        fields = ", ".join(str(key) for key in list(obj)[:40])
        return f"no field {name!r} here; fields: {fields}"
    kind = "text" if isinstance(obj, str) else "a number" if isinstance(obj, int | float) else "this value"
    return f"{kind} has no field {name!r}"
