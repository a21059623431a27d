"""Jinja2 with walls and limits, for template text that nobody vouches for.

Jinja2's ImmutableSandboxedEnvironment is the wall: no `__class__` tricks, no imports, no files, no
changing lists or dicts. This module adds the limits, so that no template can hang, exhaust memory
or flood a terminal, each past-limit one located line naming the limit:

- sizes: every string a template makes (by `*`, `+`, `~`, `%`, a str method, a filter, a macro, a
  block) stays under MAX_TEXT characters, every list under MAX_ITEMS items and every whole number
  under MAX_INT_BITS bits. Each is checked *before* the work where the work could be huge (`*`,
  `**`, widths, `join`, `replace`), and after every call for anything else;
- time: every loop iteration, call, operator and filter is a step; a rendering stops after
  MAX_STEPS of them (deterministic) or MAX_SECONDS, so nested loops and heavy filters stop, and a
  macro that calls itself ends at Python's recursion limit, as one located line;
- output: the rendered text is at most MAX_TEXT characters, and terminal control characters are
  stripped from it (`clean_text`).
"""

from __future__ import annotations

import inspect
import re
import string
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

MAX_TEXT = 100_000  # characters in any string a template makes, and in what it renders
MAX_ITEMS = 100_000  # items in a list or range
MAX_INT_BITS = 4_096  # about 1,200 digits; no question needs numbers past 1e300
MAX_STEPS = 200_000  # loop iterations, calls, operators and filters in one rendering; a prompt needs dozens
MAX_SECONDS = 2.0  # one rendering's wall-clock budget (a prompt takes milliseconds)
TEMPLATE_FILE = "<template>"  # the file name Jinja2 compiles `from_string` templates under
COUNTED = "_counted"  # the filter every loop's iterable is passed through

# Whole escape sequences (CSI such as ESC[31m, OSC such as ESC]0;title BEL), then any other C0
# control but tab and newline, DEL and C1: they recolour, move or retitle a terminal.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_PRINTF_SIZE = re.compile(r"%[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?")


class ResourceLimit(Exception):
    """A template went past one of the limits above."""


class _Budget:
    """The steps and time one rendering has left."""

    def __init__(self) -> None:
        self.steps = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _limit(f"the template ran more than {MAX_STEPS:,} steps (a loop too long?)")
        if time.monotonic() > self.deadline:
            raise _limit(f"rendering took more than {MAX_SECONDS:g} s")


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


def clean_text(text: str) -> str:
    """`text` without terminal control characters (tab and newline stay)."""
    return _CONTROL.sub("", text)


def _limit(what: str) -> ResourceLimit:
    return ResourceLimit(f"resource limit: {what}")


def check_size(value: Any) -> Any:
    """`value`, unless it is a string, collection or whole number past the limits."""
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise _limit(f"a text of {len(value):,} characters (at most {MAX_TEXT:,})")
    elif isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_INT_BITS:
            raise _limit(f"a whole number of over {MAX_INT_BITS:,} bits")
    elif isinstance(value, list | tuple | dict | set | frozenset | range) and len(value) > MAX_ITEMS:
        raise _limit(f"a collection of {len(value):,} items (at most {MAX_ITEMS:,})")
    return value


def _expect(size: float, cap: int, what: str, unit: str = "characters") -> None:
    """Refuse work whose result would be `size` `unit` when at most `cap` are allowed."""
    if size > cap:
        raise _limit(f"{what} would make {size:,.0f} {unit} (at most {cap:,})")


def _length(value: Any) -> int:
    return len(value) if isinstance(value, Sized) else 1


def _repeat(sequence: Any, times: Any) -> None:
    """Before `sequence * times`: the result's size."""
    if isinstance(times, int) and isinstance(sequence, str | list | tuple):
        cap, unit = (MAX_TEXT, "characters") if isinstance(sequence, str) else (MAX_ITEMS, "items")
        _expect(len(sequence) * max(times, 0), cap, "repeating", unit)


def _power(base: Any, exponent: Any) -> None:
    """Before `base ** exponent` on whole numbers: the result's bits (pow is one C call)."""
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        _expect(exponent * abs(base).bit_length(), MAX_INT_BITS, f"{base} ** {exponent}", "bits")


def _printf(text: Any) -> None:
    """Before `text % args`: a width or precision is a size (`%999999999s`)."""
    if isinstance(text, str):
        for match in _PRINTF_SIZE.finditer(text):
            for size in match.groups():
                if size == "*":
                    raise _limit("'*' widths in % formatting")
                if size:
                    _expect(int(size), MAX_TEXT, "a % format width")


def _str_format(text: str) -> None:
    """Before `text.format(...)`: widths and precisions of its fields (`{:>999999999}`)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return  # str.format raises the same error itself
    for _, _, spec, _ in fields:
        if spec and "{" in spec:
            raise _limit("nested {} fields in a format spec")
        for number in re.findall(r"\d+", spec or ""):
            _expect(int(number), MAX_TEXT, "a format width or precision")


def _materialized(items: Any) -> list[Any] | tuple[Any, ...]:
    """`items` as a list, stopping past MAX_ITEMS (a `map` or `select` result is a generator)."""
    if isinstance(items, list | tuple):
        return check_size(items)
    listed: list[Any] = []
    for item in items:
        listed.append(item)
        if len(listed) > MAX_ITEMS:
            raise _limit(f"a collection of over {MAX_ITEMS:,} items")
    return listed


def _joined(separator: Any, items: list[Any] | tuple[Any, ...]) -> None:
    total = sum(len(str(item)) for item in items) + len(str(separator)) * len(items)
    _expect(total, MAX_TEXT, "joining")


def _replaced(text: Any, old: Any, new: Any, count: Any) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        hits = text.count(old) if old else len(text) + 1
        if isinstance(count, int) and count >= 0:
            hits = min(hits, count)
        _expect(len(text) + hits * len(new), MAX_TEXT, "replacing")


def _widened(text: Any, width: Any) -> None:
    if isinstance(width, int):
        _expect(len(str(text)) + width, MAX_TEXT, "a width")


def _indented(text: Any, width: Any) -> None:
    indent = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    _expect(len(str(text)) + (str(text).count("\n") + 1) * indent, MAX_TEXT, "indenting")


def _wrapped(text: Any, width: Any, wrapstring: Any) -> None:
    lines = len(str(text)) // max(width if isinstance(width, int) else 1, 1) + 1
    _expect(len(str(text)) + lines * len(str(wrapstring or "\n")), MAX_TEXT, "wrapping")


def _at_most(count: Any) -> None:
    if isinstance(count, int):
        _expect(count, MAX_ITEMS, "a batch or slice count", "items")


def _numbers_only(start: Any) -> None:
    if not isinstance(start, int | float):
        raise _limit("sum adds numbers only")


# What a filter could blow up, checked on its bound arguments before it runs; a check may
# replace an argument (a generator it had to read).
def _join_filter(arguments: dict[str, Any]) -> None:
    arguments["value"] = _materialized(arguments["value"])
    _joined(arguments.get("d", ""), arguments["value"])


_FILTER_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "center": lambda a: _widened(a["value"], a.get("width", 80)),
    "indent": lambda a: _indented(a["s"], a.get("width", 4)),
    "wordwrap": lambda a: _wrapped(a["s"], a.get("width", 79), a.get("wrapstring")),
    "replace": lambda a: _replaced(str(a["s"]), a["old"], a["new"], a.get("count")),
    "join": _join_filter,
    "format": lambda a: _printf(a["value"]),
    "sum": lambda a: _numbers_only(a.get("start", 0)),
    "batch": lambda a: _at_most(a["linecount"]),
    "slice": lambda a: _at_most(a["slices"]),
}
# The same for str methods, on (the string, positional arguments).
_METHOD_CHECKS: dict[str, Callable[[str, tuple[Any, ...]], None]] = {
    "center": lambda s, a: _widened(s, a[0] if a else 0),
    "ljust": lambda s, a: _widened(s, a[0] if a else 0),
    "rjust": lambda s, a: _widened(s, a[0] if a else 0),
    "zfill": lambda s, a: _widened(s, a[0] if a else 0),
    "expandtabs": lambda s, a: _indented(s, a[0] if a else 8),
    "replace": lambda s, a: _replaced(s, a[0], a[1], a[2] if len(a) > 2 else -1) if len(a) > 1 else None,
}
_REFUSED_FILTERS = ("random",)  # a random pick would change the variant a seed names
_REFUSED_METHODS = ("translate",)  # its table can expand every character into a long text


def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    check = _FILTER_CHECKS.get(name)
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
    _expect(len(numbers), MAX_ITEMS, "range", "items")
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


def bounded_concat(pieces: Iterable[Any]) -> str:
    """`"".join(pieces)`, stopping as soon as the text passes MAX_TEXT characters."""
    parts: list[str] = []
    total = 0
    for piece in pieces:
        text = str(piece)
        total += len(text)
        if total > MAX_TEXT:
            raise _limit(f"the text grows past {MAX_TEXT:,} characters")
        parts.append(text)
    return "".join(parts)


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
            _repeat(left, right)
            _repeat(right, left)
            if isinstance(left, int) and isinstance(right, int):
                _expect(left.bit_length() + right.bit_length(), MAX_INT_BITS, "multiplying", "bits")
        elif operator == "**":
            _power(left, right)
        elif operator == "%":
            _printf(left)
        elif operator == "+" and isinstance(left, str | list | tuple) and isinstance(right, Sized):
            cap, unit = (MAX_TEXT, "characters") if isinstance(left, str) else (MAX_ITEMS, "items")
            _expect(len(left) + len(right), cap, "adding", unit)
        return check_size(super().call_binop(context, operator, left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapper = super().wrap_str_format(value)
        if wrapper is not None:
            _str_format(value.__self__)
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
                args = (_materialized(args[0]), *args[1:])
                _joined(__obj.__self__, args[0])
            elif name in _METHOD_CHECKS:
                _METHOD_CHECKS[name](__obj.__self__, args)
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
        return clean_text(run_bounded(template, context)).strip()
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
