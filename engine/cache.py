"""perfdrill's one cache: derived data kept as JSON under the user cache folder, never code or pickle.

It exists so that start-up skips work that needs pint (a third of a second): validated specs, and
small unit facts about templates. Those are numbers that decide grades (a chip's peak, the factor
an answer is scaled by), so an entry is trusted only when this user's perfdrill wrote it:

- keyed by the package version, a hash of the engine's own source and a hash of the data it came
  from, so an edit to either is never served stale;
- authenticated, not merely checksummed: each entry carries an HMAC-SHA256 of its text under a
  random per-user key kept outside the cache folder (`cache.key` in the user data folder, 0600).
  A checksum anyone can recompute let a planted entry make an H100 1 FLOP/s; an entry planted,
  copied from another machine or account, hand-edited, torn or of the wrong shape is now rebuilt
  silently and never trusted, and nothing in it can run. (The same user, who can read the key,
  can also edit perfdrill itself: that is not a boundary a cache can hold.);
- opened without following links and without blocking (O_NOFOLLOW, O_NONBLOCK), read only when
  it is a regular file owned by this user and writable by no one else, at most MAX_ENTRY_BYTES;
  written as a new file renamed over its name, so a link planted there is replaced, never
  written through;
- pruned as new entries are written: entries of an older engine, and all but the newest
  KEEP_PER_KIND of each kind (a spec file edited daily leaves one entry per edit);
- absent when the cache folder or the key cannot be used safely (not writable, or not owned by
  this user): there is no fallback folder, and losing the cache costs only speed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from perfdrill.engine.resources import user_data_dir

T = TypeVar("T")

_ENGINE_DIR = Path(__file__).resolve().parent
MAX_ENTRY_BYTES = 16 << 20  # the specs of a user's whole catalogue fit many times over
KEEP_PER_KIND = 8
_KEY_FILE = "cache.key"
_KEY_BYTES = 32
_TAG = hashlib.sha256().digest_size * 2  # hex characters of a tag


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
    if folder is None or _key() is None:
        return None
    digest = hashlib.sha256(engine_digest().encode())
    for path in sources:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return folder / f"{kind}-{engine_digest()}-{digest.hexdigest()[:20]}.json"


def _read_private(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` when it is a regular file of ours that no one else may write, at most
    `limit` long; None for anything else (a link, a FIFO, a device, another user's file)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    info = os.fstat(descriptor)
    if (
        not stat.S_ISREG(info.st_mode)
        or info.st_uid != os.getuid()
        or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        or info.st_size > limit
    ):
        os.close(descriptor)
        return None
    with open(descriptor, "rb") as handle:  # a regular file: O_NONBLOCK changes nothing here
        try:
            data = handle.read(limit + 1)
        except OSError:
            return None
    return data if len(data) <= limit else None  # it grew since fstat


def _replace_private(path: Path, data: bytes) -> None:
    """`data` as a new file (0600) renamed over `path`: a link or a file planted there is replaced."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@cache
def _key() -> bytes | None:
    """This user's cache key: read, or made once; None when it cannot be kept safely."""
    path = user_data_dir() / _KEY_FILE
    key = _read_private(path, _KEY_BYTES)
    if key is not None and len(key) == _KEY_BYTES:
        return key
    key = os.urandom(_KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _replace_private(path, key)
    except OSError:
        return None
    return key


def _tag(payload: bytes) -> bytes:
    key = _key()
    assert key is not None  # _entry gives no path without one
    return hmac.new(key, payload, hashlib.sha256).hexdigest().encode()


def _read(path: Path | None, kind: type[T]) -> T | None:
    if path is None:
        return None
    data = _read_private(path, MAX_ENTRY_BYTES)
    if data is None:
        return None  # missing, a folder, a link, a FIFO, another user's, too large
    tag, _, payload = data.partition(b"\n")
    if len(tag) != _TAG or not hmac.compare_digest(tag, _tag(payload)):
        return None  # planted, copied, edited or torn: rebuild rather than trust it
    try:
        return msgspec.json.decode(payload, type=kind)
    except msgspec.DecodeError:  # of the wrong shape (written by a different engine)
        return None


def _write(path: Path | None, value: Any) -> None:
    if path is None:
        return
    payload = msgspec.json.encode(value)
    with contextlib.suppress(OSError):  # a full disk or a read-only folder only costs speed
        _replace_private(path, _tag(payload) + b"\n" + payload)
        _prune(path.parent, path.name.split("-", 1)[0])


def _prune(folder: Path, kind: str) -> None:
    """Remove `kind`'s entries of other engines, and all but its newest KEEP_PER_KIND."""
    current = f"-{engine_digest()}-"
    entries: list[tuple[float, Path]] = []
    for path in folder.glob(f"{kind}-*.json"):
        with contextlib.suppress(OSError):
            info = path.lstat()
            if current not in path.name:
                path.unlink()
            elif stat.S_ISREG(info.st_mode):
                entries.append((info.st_mtime, path))
    for _, path in sorted(entries, reverse=True)[KEEP_PER_KIND:]:
        with contextlib.suppress(OSError):
            path.unlink()


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
