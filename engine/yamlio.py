"""Bounded, located reading of the YAML and text files that users write (specs and templates).

Everything here treats a file as hostile until read: only a regular file is opened (a FIFO never
blocks), its size is capped, its text must be UTF-8, and the YAML is built from parser events
without recursion, with nesting depth capped and anchors/aliases refused (nothing perfdrill ships
uses them, and they are how a 1 KB file expands into gigabytes). Every problem is one located
error of the caller's class. Mappings remember the line of each key, sequences the line of each
item, so a schema error can point at the line that caused it; duplicate keys are an error too,
since PyYAML would silently keep the last one. Text values and keys come out without terminal
controls (`safe_text`): `"\\e]0;title\\a"` is valid YAML, and a name or a key gets printed.
"""

from __future__ import annotations

import errno
import os
import stat
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.resources import data_dir
from perfdrill.engine.safe_text import safe_text

# The largest spec, template or prompt perfdrill reads. The biggest shipped file is under 20 KB;
# a MiB leaves room for a user's whole catalogue while bounding time and memory.
MAX_FILE_BYTES = 1 << 20
# Deepest nesting of mappings and sequences. question.yaml needs 5 levels; deeper is a mistake
# or an attack (PyYAML's recursive constructor dies near 1,000 levels).
MAX_DEPTH = 50


class LineMap(dict[str, Any]):
    """A mapping that also knows the line (1-based) of each key and of itself."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list[Any]):
    """A sequence that also knows the line (1-based) of each item and of itself."""

    line: int = 0
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


def file_kind_problem(path: Path) -> str | None:
    """Why `path` is not a readable regular file of at most MAX_FILE_BYTES, or None when it is.

    Only stats, never opens, so a FIFO or a device cannot block the caller.
    """
    try:
        info = path.stat()
    except OSError as exc:
        return _os_problem(exc)
    return _kind_problem(info)


def check_inside(path: Path, folder: Path, error_class: type[PerfdrillError], *, display: str) -> None:
    """Refuse `path` when it can show another file's content: a link resolving outside `folder` (a
    link to ~/.env in a shared pack), or, in a user's folder, a file with more than one hard link
    (a hard link to another file looks like a plain file, and its name says nothing of where the
    content lives). Shipped folders are exempt from the second rule: installers may hard-link them."""
    try:
        if path.is_symlink():  # only a link can lead out of the folder that holds it
            target = path.resolve(strict=False)
            home = folder.resolve(strict=False)
            if not target.is_relative_to(home):
                raise error_class(
                    "is a link to a file outside its folder; perfdrill reads only files inside it",
                    file=display,
                )
        info = path.stat()
    except (OSError, RuntimeError):  # a loop of links, or a link to nothing: read_text says which
        return
    links = info.st_nlink if stat.S_ISREG(info.st_mode) else 1  # a folder's count is its subfolders
    if links > 1 and not any(folder.resolve().is_relative_to(shipped) for shipped in _shipped_folders()):
        raise error_class(
            f"has {links} hard links, so its content may belong to a file elsewhere; perfdrill reads "
            "only files with one link from your folders (copy the file instead)",
            file=display,
        )


@cache
def _shipped_folders() -> tuple[Path, ...]:
    return tuple(data_dir(name).resolve() for name in ("questions", "specs"))


def read_text(path: Path, error_class: type[PerfdrillError], *, display: str | None = None) -> str:
    """The UTF-8 text of a regular file of at most MAX_FILE_BYTES; anything else is `error_class`."""
    name = display or str(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error_class(_os_problem(exc), file=name) from None
    problem = _kind_problem(os.fstat(descriptor))
    if problem:
        os.close(descriptor)
        raise error_class(problem, file=name)
    with open(descriptor, "rb") as handle:  # a regular file: O_NONBLOCK changes nothing here
        try:
            data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise error_class(_os_problem(exc), file=name) from None
    if len(data) > MAX_FILE_BYTES:
        raise error_class(_too_large(), file=name)
    return _decode(data, error_class, name)


def _os_problem(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "cannot read file: it does not exist (or is a link to nothing)"
    if exc.errno == errno.ELOOP:
        return "cannot read file: too many levels of symbolic links"
    return f"cannot read file ({exc.strerror or exc})"


def _kind_problem(info: os.stat_result) -> str | None:
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a pipe, socket or device); perfdrill reads only plain files"
    if info.st_size > MAX_FILE_BYTES:
        return _too_large()
    return None


def _too_large() -> str:
    return f"is larger than {MAX_FILE_BYTES / 2**20:g} MiB, the most perfdrill reads from one file"


def _decode(data: bytes, error_class: type[PerfdrillError], name: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise error_class(
            "is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8", file=name
        )
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark is still UTF-8; drop it
        data = data[3:]
    if b"\x00" in data:  # valid UTF-8, but no text file holds NUL bytes; UTF-16 without a mark does
        raise error_class("holds NUL bytes, so it is not UTF-8 text (UTF-16?); save it as UTF-8", file=name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error_class(
            f"column {column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
            file=name,
            line=line,
        ) from None


def load_yaml(path: Path, error_class: type[PerfdrillError], *, display: str | None = None) -> Any:
    """Read one YAML file within the bounds above; every problem is `error_class` with file:line."""
    name = display or str(path)
    return load_yaml_text(read_text(path, error_class, display=name), error_class, name)


# libyaml's C parser is ~10x faster; same events, same marks.
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MAP_TAGS = (None, "tag:yaml.org,2002:map", "!")
_SEQ_TAGS = (None, "tag:yaml.org,2002:seq", "!")


def load_yaml_text(text: str, error_class: type[PerfdrillError], name: str) -> Any:
    """Parse YAML text into LineMap/LineList/scalars; None for an empty document.

    libyaml parses; when it refuses the text, the pure-Python parser parses it again, so what the
    user reads never depends on the libyaml release installed (the one in PyYAML 6.0.4 stops at a
    nesting limit of its own, in its own words, before perfdrill's depth check can speak).
    """
    try:
        return _build(_Loader, text, error_class, name)
    except yaml.YAMLError as exc:
        refusal = exc
    if _Loader is not yaml.SafeLoader:
        try:
            return _build(yaml.SafeLoader, text, error_class, name)
        except yaml.YAMLError as exc:
            refusal = exc
    raise _located(refusal, text, error_class, name) from None


def _build(
    loader_class: type[yaml.SafeLoader], text: str, error_class: type[PerfdrillError], name: str
) -> Any:
    loader = loader_class(text)
    try:
        return _Builder(loader, error_class, name).document()
    finally:
        loader.dispose()


def _located(exc: yaml.YAMLError, text: str, error_class: type[PerfdrillError], name: str) -> PerfdrillError:
    """The parser's refusal as one located perfdrill error."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        where = f"column {mark.column + 1}: " if mark else ""
        kind = "YAML error" if isinstance(exc, yaml.constructor.ConstructorError) else "YAML syntax error"
        line = mark.line + 1 if mark else None
        said = _slip(text, mark.line, mark.column) if mark else None
        return error_class(f"{where}{said or f'{kind}: {exc.problem or exc.context}'}", file=name, line=line)
    if isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        return error_class(
            f"column {column}: character U+{exc.character:04X} is not allowed in YAML ({exc.reason})",
            file=name,
            line=line,
        )
    return error_class("YAML error: " + " ".join(str(exc).split()), file=name)


def _slip(text: str, line: int, column: int) -> str | None:
    """The two slips behind most refusals, told in the author's terms and read from the text
    itself, whatever the parser's words: a tab that indents, and an unquoted ': ' inside a value."""
    lines = text.splitlines()
    if line >= len(lines):
        return None
    row = lines[line]
    if "\t" in row[: column + 1] and not row[: row.index("\t")].strip():
        return "a tab indents this line: YAML indents with spaces only"
    key, _, value = row.partition(": ")
    second = row[column : column + 1] == ":" and column > len(key)  # the parser stopped at it
    if second and not value.lstrip().startswith(("'", '"', "{", "[", "|", ">")):
        return (
            f"the value of {key.strip(' -')!r} holds ': ', which YAML reads as a second key: "
            "put the value in quotes"
        )
    return None


def _short(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")


class _Builder:
    """Python values from the parser's event stream, with an explicit stack instead of recursion.

    Events are typed Any: libyaml's carry its own Mark type, which PyYAML's stubs do not know.
    """

    def __init__(self, loader: yaml.SafeLoader, error_class: type[PerfdrillError], name: str) -> None:
        self.loader = loader
        self.error_class = error_class
        self.name = name

    def error(self, message: str, event: Any) -> PerfdrillError:
        return self.error_class(message, file=self.name, line=event.start_mark.line + 1)

    def document(self) -> Any:
        loader = self.loader
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            return None
        loader.get_event()  # document start
        value = self.node()
        loader.get_event()  # document end
        if not loader.check_event(yaml.StreamEndEvent):
            raise self.error("expected one YAML document, found more (a second '---')", loader.peek_event())
        return value

    def node(self) -> Any:
        """One complete value (scalar, mapping or sequence), built without recursion."""
        # Open collections, innermost last, each as [collection, pending key, line of that key].
        stack: list[list[Any]] = []
        get_event = self.loader.get_event
        while True:
            event = get_event()
            kind = type(event)
            if kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                closed = stack.pop()[0]
                if not stack:
                    return closed
                continue
            if kind is yaml.AliasEvent or event.anchor is not None:
                raise self.error(
                    "YAML anchors and aliases (&name, *name) are not allowed in perfdrill files", event
                )
            if kind is yaml.ScalarEvent:
                value = self.scalar(event)
                if not stack:
                    return value
                self.add(stack[-1], value, event)
                continue
            collection = self.open(event, len(stack) + 1)
            if stack:
                self.add(stack[-1], collection, event)
            stack.append([collection, None, 0])

    def open(self, event: Any, depth: int) -> LineMap | LineList:
        if depth > MAX_DEPTH:
            raise self.error(f"nested more than {MAX_DEPTH} levels deep", event)
        collection: LineMap | LineList
        if isinstance(event, yaml.MappingStartEvent):
            if event.tag not in _MAP_TAGS:
                raise self.error(f"YAML tag {_short(event.tag)} is not allowed here", event)
            collection = LineMap()
            collection.key_lines = {}
        else:
            if event.tag not in _SEQ_TAGS:
                raise self.error(f"YAML tag {_short(event.tag)} is not allowed here", event)
            collection = LineList()
            collection.item_lines = []
        collection.line = event.start_mark.line + 1
        return collection

    def add(self, frame: list[Any], value: Any, event: Any) -> None:
        """Put `value` into the innermost open collection (as a key, when its mapping awaits one)."""
        target, key, _ = frame
        line = event.start_mark.line + 1
        if isinstance(target, LineMap):
            if key is None:
                frame[1], frame[2] = self.key(target, value, event), line
                return
            target[key] = value
            target.key_lines[key] = frame[2]
            frame[1] = None
        else:
            target.append(value)
            target.item_lines.append(line)

    def key(self, mapping: LineMap, key: Any, event: Any) -> str:
        if isinstance(key, LineMap | LineList) or not isinstance(key, str | int | float | bool):
            raise self.error("mapping keys must be plain text", event)
        text = str(key)
        if text in mapping:
            raise self.error(f"duplicate key {text!r} (first on line {mapping.key_lines[text]})", event)
        return text

    def scalar(self, event: Any) -> Any:
        tag = event.tag
        if tag is None and not event.implicit[0]:  # quoted or block text, untagged: a string
            return safe_text(event.value)
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == "tag:yaml.org,2002:str":
            return safe_text(event.value)
        if tag == "tag:yaml.org,2002:merge":
            raise self.error("YAML merge keys (<<) are not allowed in perfdrill files", event)
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        try:
            return self.loader.construct_object(node)
        except (ValueError, OverflowError):  # e.g. an integer of more than 4,300 digits
            raise self.error(f"the value starting {event.value[:20]!r} is too large to read", event) from None
