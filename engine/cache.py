"""perfdrill's one cache: derived data kept as JSON under the user cache folder, never code or pickle.

It exists so that start-up skips work that needs pint (a third of a second): validated specs, and
small unit facts about templates. Every entry is

- keyed by the package version, a hash of the engine's own source and a hash of the data it came
  from, so an edit to either is never served stale;
- stored with a SHA-256 of its own text and decoded into a declared type, so a torn, empty,
  hand-edited or foreign file (or a folder in its place) is rebuilt silently and never trusted,
  and nothing in it can run;
- absent when the cache folder cannot be used safely (not writable, or not owned by this user):
  there is no fallback folder, and losing the cache costs only speed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from perfdrill.engine.resources import write_atomically

T = TypeVar("T")

_ENGINE_DIR = Path(__file__).resolve().parent


@cache
def engine_digest() -> str:
    """The package version and every engine source file, hashed: a new engine retires every entry."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        digest = hashlib.sha256(version("perfdrill").encode())
    except PackageNotFoundError:  # run from a bare checkout
        digest = hashlib.sha256(b"unversioned")
    for path in sorted(_ENGINE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(_ENGINE_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@cache
def cache_dir() -> Path | None:
    """The user cache folder, or None when it is not ours alone to write."""
    from platformdirs import user_cache_path

    folder = user_cache_path("perfdrill", appauthor=False)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = folder.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or not os.access(folder, os.W_OK):
        return None
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None  # another user could plant entries there
    return folder


def _entry(kind: str, sources: Iterable[Path] = ()) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(engine_digest().encode())
    for path in sources:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return folder / f"{kind}-{digest.hexdigest()[:20]}.json"


def _read(path: Path | None, kind: type[T]) -> T | None:
    if path is None:
        return None
    try:
        checksum, _, payload = path.read_bytes().partition(b"\n")
        if checksum.decode("ascii", "replace") != hashlib.sha256(payload).hexdigest():
            return None  # torn or edited: rebuild rather than trust it
        return msgspec.json.decode(payload, type=kind)
    except (OSError, msgspec.DecodeError):  # missing, foreign, a folder, or of the wrong shape
        return None


def _write(path: Path | None, value: Any) -> None:
    if path is not None:
        payload = msgspec.json.encode(value)
        with contextlib.suppress(OSError):  # a full disk or a read-only folder only costs speed
            write_atomically(path, hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)


def cached(kind: str, sources: Iterable[Path], value_type: type[T], build: Callable[[], T]) -> T:
    """`build()`, kept as JSON under a hash of the engine and of `sources` (paths and bytes).

    Errors from `build` propagate and nothing is stored.
    """
    path = _entry(kind, sources)
    found = _read(path, value_type)
    if found is not None:
        return found
    value = build()
    _write(path, value)
    return value


@cache
def _memo(name: str) -> dict[str, float | str]:
    return _read(_entry(name), dict[str, float | str]) or {}


def remembered(name: str, key: str, compute: Callable[[], float | str]) -> float | str:
    """`compute()`, or its stored result for `key`; a failure is raised and never stored."""
    entries = _memo(name)
    if key not in entries:
        entries[key] = compute()
        _write(_entry(name), entries)
    return entries[key]
