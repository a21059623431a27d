"""Size limits for what template text makes: every check runs *before* the work it bounds.

A string is at most MAX_TEXT characters, a list or range MAX_ITEMS items, a whole number
MAX_INT_BITS bits. `*`, `**`, `%`, widths, `join` and `replace` are single C calls that could take
minutes or gigabytes, so their result's size is worked out from their arguments first; anything
else is checked after (`check_size`). sandbox.py calls these from its operators, calls and filters.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from typing import Any

MAX_TEXT = 100_000  # characters in any string a template makes, and in what it renders
MAX_ITEMS = 100_000  # items in a list or range
MAX_INT_BITS = 4_096  # about 1,200 digits; no question needs numbers past 1e300
_PRINTF_SIZE = re.compile(r"%[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?")


class ResourceLimit(Exception):
    """A template went past one of the limits above."""


def limit(what: str) -> ResourceLimit:
    return ResourceLimit(f"resource limit: {what}")


def check_size(value: Any) -> Any:
    """`value`, unless it is a string, collection or whole number past the limits."""
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise limit(f"a text of {len(value):,} characters (at most {MAX_TEXT:,})")
    elif isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_INT_BITS:
            raise limit(f"a whole number of over {MAX_INT_BITS:,} bits")
    elif isinstance(value, list | tuple | dict | set | frozenset | range) and len(value) > MAX_ITEMS:
        raise limit(f"a collection of {len(value):,} items (at most {MAX_ITEMS:,})")
    return value


def expect(size: float, cap: int, what: str, unit: str = "characters") -> None:
    """Refuse work whose result would be `size` `unit` when at most `cap` are allowed."""
    if size > cap:
        raise limit(f"{what} would make {size:,.0f} {unit} (at most {cap:,})")


def repeat(sequence: Any, times: Any) -> None:
    """Before `sequence * times`: the result's size."""
    if isinstance(times, int) and isinstance(sequence, str | list | tuple):
        cap, unit = (MAX_TEXT, "characters") if isinstance(sequence, str) else (MAX_ITEMS, "items")
        expect(len(sequence) * max(times, 0), cap, "repeating", unit)


def power(base: Any, exponent: Any) -> None:
    """Before `base ** exponent` on whole numbers: the result's bits (pow is one C call)."""
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        expect(exponent * abs(base).bit_length(), MAX_INT_BITS, f"{base} ** {exponent}", "bits")


def printf(text: Any) -> None:
    """Before `text % args`: a width or precision is a size (`%999999999s`)."""
    if isinstance(text, str):
        for match in _PRINTF_SIZE.finditer(text):
            for size in match.groups():
                if size == "*":
                    raise limit("'*' widths in % formatting")
                if size:
                    expect(int(size), MAX_TEXT, "a % format width")


def str_format(text: str) -> None:
    """Before `text.format(...)`: widths and precisions of its fields (`{:>999999999}`)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return  # str.format raises the same error itself
    for _, _, spec, _ in fields:
        if spec and "{" in spec:
            raise limit("nested {} fields in a format spec")
        for number in re.findall(r"\d+", spec or ""):
            expect(int(number), MAX_TEXT, "a format width or precision")


def materialized(items: Any) -> list[Any] | tuple[Any, ...]:
    """`items` as a list, stopping past MAX_ITEMS (a `map` or `select` result is a generator)."""
    if isinstance(items, list | tuple):
        return check_size(items)
    listed: list[Any] = []
    for item in items:
        listed.append(item)
        if len(listed) > MAX_ITEMS:
            raise limit(f"a collection of over {MAX_ITEMS:,} items")
    return listed


def joined(separator: Any, items: list[Any] | tuple[Any, ...]) -> None:
    total = sum(len(str(item)) for item in items) + len(str(separator)) * len(items)
    expect(total, MAX_TEXT, "joining")


def replaced(text: Any, old: Any, new: Any, count: Any) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        hits = text.count(old) if old else len(text) + 1
        if isinstance(count, int) and count >= 0:
            hits = min(hits, count)
        expect(len(text) + hits * len(new), MAX_TEXT, "replacing")


def widened(text: Any, width: Any) -> None:
    if isinstance(width, int):
        expect(len(str(text)) + width, MAX_TEXT, "a width")


def indented(text: Any, width: Any) -> None:
    indent = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    expect(len(str(text)) + (str(text).count("\n") + 1) * indent, MAX_TEXT, "indenting")


def wrapped(text: Any, width: Any, wrapstring: Any) -> None:
    lines = len(str(text)) // max(width if isinstance(width, int) else 1, 1) + 1
    expect(len(str(text)) + lines * len(str(wrapstring or "\n")), MAX_TEXT, "wrapping")


def at_most(count: Any) -> None:
    if isinstance(count, int):
        expect(count, MAX_ITEMS, "a batch or slice count", "items")


def numbers_only(start: Any) -> None:
    if not isinstance(start, int | float):
        raise limit("sum adds numbers only")


# What a filter could blow up, checked on its bound arguments before it runs; a check may
# replace an argument (a generator it had to read).
def join_filter(arguments: dict[str, Any]) -> None:
    arguments["value"] = materialized(arguments["value"])
    joined(arguments.get("d", ""), arguments["value"])


FILTER_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "center": lambda a: widened(a["value"], a.get("width", 80)),
    "indent": lambda a: indented(a["s"], a.get("width", 4)),
    "wordwrap": lambda a: wrapped(a["s"], a.get("width", 79), a.get("wrapstring")),
    "replace": lambda a: replaced(str(a["s"]), a["old"], a["new"], a.get("count")),
    "join": join_filter,
    "format": lambda a: printf(a["value"]),
    "sum": lambda a: numbers_only(a.get("start", 0)),
    "batch": lambda a: at_most(a["linecount"]),
    "slice": lambda a: at_most(a["slices"]),
}
# The same for str methods, on (the string, positional arguments).
METHOD_CHECKS: dict[str, Callable[[str, tuple[Any, ...]], None]] = {
    "center": lambda s, a: widened(s, a[0] if a else 0),
    "ljust": lambda s, a: widened(s, a[0] if a else 0),
    "rjust": lambda s, a: widened(s, a[0] if a else 0),
    "zfill": lambda s, a: widened(s, a[0] if a else 0),
    "expandtabs": lambda s, a: indented(s, a[0] if a else 8),
    "replace": lambda s, a: replaced(s, a[0], a[1], a[2] if len(a) > 2 else -1) if len(a) > 1 else None,
}


def bounded_concat(pieces: Iterable[Any]) -> str:
    """`"".join(pieces)`, stopping as soon as the text passes MAX_TEXT characters."""
    parts: list[str] = []
    total = 0
    for piece in pieces:  # compiled templates yield text, and `~` maps its operands to str
        total += len(piece)
        if total > MAX_TEXT:
            raise limit(f"the text grows past {MAX_TEXT:,} characters")
        parts.append(piece)
    return "".join(parts)
