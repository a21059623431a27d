"""The one way to find the shipped data folders, from a checkout, an editable install or a wheel."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import BinaryIO, TypeVar

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


def _umask() -> int:
    """The process umask, read without changing it where Linux reports it (threads may be running)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl+C waits until the block ends, so a rename or a clean-up is never cut in half."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary file whose bytes replace `path` only if the block finishes without an exception.

    Everything that can be checked is checked on entry, before the caller does any work: a
    missing folder, a folder as the target, a read-only place and a full device raise OSError.
    A symlink is written through (the file it points to is replaced; the link stays). A new file
    gets the umask's mode and an existing one keeps its mode. Any exception, KeyboardInterrupt
    included, removes the temporary file and leaves the old file as it was. A target that exists
    but is not a regular file (`-o /dev/null`, a pipe) is written to directly: renaming over it
    would replace the device with a file.
    """
    target = Path(os.path.realpath(path))
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    if target.exists() and not target.is_file():
        with open(target, "wb", buffering=0) as device:
            os.write(device.fileno(), b"")  # an empty write reports a full device (/dev/full) now
            yield device
        return
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
            out.flush()
            os.fchmod(out.fileno(), mode)
        with _signals_held():
            os.replace(temporary, target)
    except BaseException:
        with _signals_held(), contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through `atomic_output`: a reader never sees half a file."""
    with atomic_output(path) as out:
        out.write(data)
