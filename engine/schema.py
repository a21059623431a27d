"""Decoding files that users write into declared msgspec Structs, each mismatch one located line.

A file's schema is declared once, as Structs (forbid_unknown_fields, strict types, `Meta`
constraints); `decode` checks YAML data (from yamlio, which remembers lines) against it. msgspec
reports a mismatch as a message and a path such as `$.parts[0].kind`; `decode` turns that into
the perfdrill form: file, line, dotted field path, and for a fixed set the allowed values. Rules a
declaration cannot hold (expressions, units, cross-field rules) are checked after decoding by the
caller, and `Where` gives those errors the same form.
"""

from __future__ import annotations

import difflib
import re
import types
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.yamlio import LineList, LineMap

T = TypeVar("T")
FieldPath = tuple[str | int, ...]  # field names and list indices, from the top of the file
_LISTED_IN_FULL = 12  # allowed values said in full; past this, the nearest few
_NAME_LIKE = r"[A-Za-z0-9_][\w.-]{0,39}"  # an unknown key quoted back as a misspelt field name


@dataclass(frozen=True)
class Where:
    """A decoded file, for placing errors that are found after decoding."""

    file: str
    data: Any  # the LineMap/LineList tree as read
    error_class: type[PerfdrillError]

    def error(self, message: str, *path: str | int) -> PerfdrillError:
        """`message` about the value at `path`, on the line where that value is written."""
        return self.error_class(message, file=self.file, line=line_at(self.data, path), field=dotted(path))

    def absent(self, message: str, name: str, *path: str | int) -> PerfdrillError:
        """`message` about field `name`, absent from the mapping at `path`: on that mapping's line."""
        return self.error_class(
            message, file=self.file, line=line_at(self.data, path), field=dotted((*path, name))
        )

    def line(self, *path: str | int) -> int | None:
        return line_at(self.data, path)


def decode(data: Any, kind: type[T], where: Where) -> T:
    """`data` as a `kind`, or the first mismatch as one located `where.error_class`."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise _located(str(exc), data, kind, where) from None


def dotted(path: FieldPath) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def line_at(data: Any, path: FieldPath) -> int | None:
    """The line of the value at `path`: where its key or list item is written."""
    line = getattr(data, "line", None)
    for step in path:
        if not _holds(data, step):
            break
        line, data = data.line_of(step), data[step]
    return line


def _holds(data: Any, step: str | int) -> bool:
    if isinstance(data, LineMap):
        return isinstance(step, str) and step in data
    return isinstance(data, LineList) and isinstance(step, int) and 0 <= step < len(data)


# -- from msgspec's message and path to a located line ----------------------------------------------

_MESSAGE = re.compile(r"^(?P<what>.*?)(?: - at `(?:(?P<key>key)` in `)?(?P<path>\$[^`]*)`)?$", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]")
_WORDS = {
    "str": "text",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "empty",
}


def _located(message: str, data: Any, kind: Any, where: Where) -> PerfdrillError:
    match = _MESSAGE.match(message)
    assert match is not None  # the pattern matches any text
    what = match["what"]
    path, node, annotation = _walk(data, kind, match["path"] or "$")
    if match["key"] and isinstance(node, dict):  # a key itself is wrong: the first misfit
        key_type = get_args(_choose(annotation, node))[0]
        key = next((k for k in node if not _fits(k, key_type)), None)
        if key is not None:
            return where.error(_wrong(what, key, key_type), *path, key)
    field = re.match(r"Object (missing required|contains unknown) field `(.+)`", what)
    if field and field[1] == "missing required":
        return where.absent("missing field", field[2], *path)
    if field:
        struct = _struct_of(annotation)
        allowed = f"; allowed: {', '.join(struct.__struct_fields__)}" if struct else ""
        if not re.fullmatch(_NAME_LIKE, field[2]):  # a line of some other file (root:$6$...): unquoted
            line = where.line(*path, field[2])
            return where.error_class(
                f"a key here is not a field name{allowed}",
                file=where.file,
                line=line,
                field=dotted(path) or None,
            )
        return where.error(f"unknown field{allowed}", *path, field[2])
    if not path and not isinstance(node, dict | list):  # the whole file is one value: never quote it
        node = _WholeFile(type(node).__name__)
    return where.error(_wrong(what, node, annotation), *path)


@dataclass(frozen=True)
class _WholeFile:
    """A file that is a single value, said by its kind: quoting it could print a secret (a link or
    a copy of ~/.env read as YAML is one line of text)."""

    kind: str

    def __repr__(self) -> str:
        return {"str": "text", "int": "a number", "float": "a number", "bool": "true or false"}.get(
            self.kind, "a single value"
        )


def _walk(data: Any, kind: Any, text: str) -> tuple[FieldPath, Any, Any]:
    """Follow msgspec's path through the data and the declared types, naming each dict key."""
    path: list[str | int] = []
    node, annotation = data, kind
    for match in _STEP.finditer(text[1:]):
        base = _choose(annotation, node)
        if match[1] is not None and isinstance(node, dict):
            struct = _struct_of(base)
            annotation = _field_types(struct).get(match[1], Any) if struct else Any
            step: str | int | None = match[1]
        elif match[2] is not None and isinstance(node, list):
            annotation, step = (get_args(base) or (Any,))[0], int(match[2])
        elif isinstance(node, dict) and get_origin(base) is dict:
            # `[...]`: some value of a dict; msgspec checks them in order, so the first misfit
            key_type, annotation = get_args(base)
            step = next(
                (k for k, v in node.items() if not (_fits(k, key_type) and _fits(v, annotation))), None
            )
        else:
            step = None
        if step is None or step not in (node if isinstance(node, dict) else range(len(node))):
            break  # unreachable for msgspec's own paths; keep what was found
        path.append(step)
        node = node[step]
    return tuple(path), node, annotation


def _fits(value: Any, annotation: Any) -> bool:
    try:
        msgspec.convert(value, annotation)
    except msgspec.ValidationError:
        return False
    return True


def _members(annotation: Any) -> list[tuple[Any, list[msgspec.Meta]]]:
    """Each alternative of a declared type (a union's members, or the type itself), without its
    Annotated layers, with the Meta given on the way."""
    metas: list[msgspec.Meta] = []
    while get_origin(annotation) is Annotated:
        metas += [m for m in annotation.__metadata__ if isinstance(m, msgspec.Meta)]
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        return [(bare, metas + more) for member in get_args(annotation) for bare, more in _members(member)]
    return [(annotation, metas)]


def _choose(annotation: Any, node: Any) -> Any:
    """The alternative of a declared type that the data is shaped for (a mapping or a list)."""
    for bare, _ in _members(annotation):
        shape = dict if _struct_of(bare) else get_origin(bare)
        if (shape is dict and isinstance(node, dict)) or (shape is list and isinstance(node, list)):
            return bare
    return annotation


def _struct_of(annotation: Any) -> type[msgspec.Struct] | None:
    for bare, _ in _members(annotation):
        if isinstance(bare, type) and issubclass(bare, msgspec.Struct):
            return bare
    return None


def _field_types(struct: type[msgspec.Struct]) -> dict[str, Any]:
    return {field.name: field.type for field in msgspec.structs.fields(struct)}


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    for bare, _ in _members(annotation):
        if get_origin(bare) is Literal:
            return get_args(bare)
    return ()


def _meta(annotation: Any, attribute: str) -> Any:
    """The first Meta `attribute` (title, description...) given anywhere on the declared type."""
    for _, metas in _members(annotation):
        for meta in metas:
            if getattr(meta, attribute, None) is not None:
                return getattr(meta, attribute)
    return None


def _wrong(what: str, value: Any, annotation: Any) -> str:
    """msgspec's complaint about `value`, said for a person."""
    if what.startswith("Invalid enum value"):
        noun = _meta(annotation, "title") or "value"
        allowed = [str(choice) for choice in _literal_values(annotation)]
        if len(allowed) <= _LISTED_IN_FULL:
            return f"unknown {noun} {_shown(value)}; allowed: {', '.join(allowed)}"
        # A long set (the named mistakes) would bury the line: name the nearest, say where the rest are.
        near = difflib.get_close_matches(str(value), allowed, n=3, cutoff=0.5)
        hint = f"did you mean {' or '.join(near)}? " if near else ""
        return f"unknown {noun} {_shown(value)}; {hint}all {len(allowed)} are listed by `perfdrill schema`"
    expected = re.match(r"Expected `([^`]+)`(?:, got `([^`]+)`)?(.*)$", what, re.S)
    if expected is None:
        return what
    wanted, got, rest = expected[1], expected[2], expected[3].strip()
    if got is not None:
        words = " or ".join(dict.fromkeys(_WORDS.get(part, part) for part in wanted.split(" | ")))
        words = words.replace("a whole number or a number", "a number")
        quoted = ""
        one = isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str)
        if "str" in wanted.split(" | ") and one:
            quoted = " (a ': ' in unquoted text makes one; put the text in quotes)"
        return f"must be {words}, not {_shown(value)}{quoted}"
    if rest.startswith("matching regex"):
        description = _meta(annotation, "description") or rest
        return f"{_shown(value)} must be {description}"
    return _constraint(rest, value)


def _constraint(rest: str, value: Any) -> str:
    """`>= 1`, `> 0.0`, `of length >= 1`... as words, with the value given."""
    length = rest.startswith("of length")
    bound = re.match(r"(?:of length )?([<>]=?) (-?[\d.e+-]+)", rest)
    if bound is None:
        return f"must be {rest}"
    sign, number = bound[1], bound[2].removesuffix(".0")
    if length:
        if (sign, number) == (">=", "1"):
            return "must not be empty"
        items = "characters" if isinstance(value, str) else "items"
        return f"must have {'at least' if sign == '>=' else 'at most'} {number} {items}, not {len(value)}"
    words = {">=": "at least", ">": "greater than", "<=": "at most", "<": "less than"}[sign]
    if (sign, number) == (">", "0") or ((sign, number) == (">=", "1") and isinstance(value, int)):
        return f"must be positive, not {value!r}"  # msgspec says `>= 1` for a positive int
    return f"must be {words} {number}, not {_shown(value)}"  # shortened: an int may have 4,000 digits


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and "\n" in value:  # a block of text: its first line is the token
        value = value.split("\n", 1)[0] + "..."
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
