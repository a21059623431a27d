"""The one way to find the shipped data folders, from a checkout, an editable install or a wheel."""

from __future__ import annotations

import os
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def data_dir(name: str) -> Path:
    """The built-in `questions` or `specs` folder, inside the installed `perfdrill` package.

    A wheel carries them as `perfdrill/questions` and `perfdrill/specs`; a checkout links those
    names to the repository's top-level folders, so both read the same path.
    """
    folder = Path(str(files("perfdrill") / name))
    if not folder.is_dir():
        raise FileNotFoundError(f"perfdrill's {name}/ folder is missing from this installation")
    return folder


def user_data_dir() -> Path:
    """Where the user's own specs, templates and progress live (platformdirs)."""
    from platformdirs import user_data_path

    return user_data_path("perfdrill", appauthor=False)


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
