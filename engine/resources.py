"""The one way to find the shipped data folders, from a checkout, an editable install or a wheel."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The `questions` or `specs` folder.

    A wheel carries them as `engine/_data/<name>`; a checkout or editable install has them
    beside the `engine` package at the repository root.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"perfdrill's {name}/ folder is missing from this installation")


def user_data_dir() -> Path:
    """Where the user's own specs, templates and progress live (platformdirs)."""
    from platformdirs import user_data_path

    return user_data_path("perfdrill", appauthor=False)


def cache_dir() -> Path:
    """A writable folder for compiled formulas and parsed specs (platformdirs, else a temp folder)."""
    from platformdirs import user_cache_path

    folder = user_cache_path("perfdrill", appauthor=False)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"perfdrill-cache-{os.getuid()}"
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback


def write_atomically(path: Path, data: bytes) -> None:
    """Write through a temporary file and rename, so a reader never sees half a file.

    A target that exists but is not a regular file (`-o /dev/null`, a pipe) is written to directly:
    renaming over it would replace the device with a file.
    """
    if path.exists() and not path.is_file():
        with open(path, "wb") as out:
            out.write(data)
        return
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def pickled(kind: str, sources: list[Path], version: str, build: Callable[[], T]) -> T:
    """`build()`, kept as a pickle under a hash of `sources`' paths and bytes and `version`.

    A changed file gives a new hash, so a stale result is never served; a torn or unreadable
    pickle is rebuilt, never trusted. Errors from `build` propagate and nothing is stored.
    """
    digest = hashlib.sha256(version.encode())
    for path in sources:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    cached = cache_dir() / f"{kind}_{digest.hexdigest()[:16]}.pickle"
    if cached.exists():
        try:
            return pickle.loads(cached.read_bytes())
        except Exception:
            pass
    result = build()
    with contextlib.suppress(OSError):  # a read-only cache only costs speed
        write_atomically(cached, pickle.dumps(result))
    return result
