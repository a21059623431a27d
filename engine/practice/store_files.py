"""The progress store's file on disk: opening it to read where nothing may be written, saying why
SQLite failed in words a person can act on, and one process at a time in a practice session."""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
from pathlib import Path

from perfdrill.engine.errors import PerfdrillError

BUSY_SECONDS = 5.0  # how long a write waits for another writer before reporting the store busy
_ROOM = 1 << 20  # free bytes below which a failure is put down to a full disk


def read_only(path: Path) -> sqlite3.Connection:
    """`path` opened for reading. A WAL store needs its shared-memory file; where that cannot be
    made (a read-only folder) the file is read as immutable, since no writer can be at work there."""
    uri = path.resolve().as_uri()
    db = sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None, timeout=BUSY_SECONDS)
    try:
        db.execute("PRAGMA user_version").fetchone()
        return db
    except sqlite3.OperationalError:  # "attempt to write a readonly database"
        db.close()
        return sqlite3.connect(uri + "?immutable=1", uri=True, isolation_level=None)


def cause(exc: sqlite3.Error | OSError, path: Path) -> str:
    """SQLite's words, with the cause where it is known: a full disk reads "disk I/O error", a
    read-only folder "attempt to write a readonly database"."""
    try:
        if shutil.disk_usage(path.parent).free < _ROOM:
            return f"the disk is full ({exc})"
    except OSError:
        pass
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK):
        return f"its folder is read-only ({exc}); `perfdrill stats` can still read it"
    return str(exc)


class SessionLocks:
    """A lock per practice session: byte `id` of a file beside the store, held while a process
    asks the session's questions, so two processes never both write into one session. The
    system drops it when the process ends, however it ends."""

    def __init__(self, store: Path) -> None:
        self.path = store.with_name(store.name + ".sessions")
        self._fd: int | None = None

    def claim(self, session: int) -> None:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            except OSError:
                return  # a folder that cannot be written to: no process can save into the session
        try:
            fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, session)
        except OSError:
            raise PerfdrillError(
                f"practice session {session} is open in another perfdrill; go on there, or close it first",
                file=str(self.path.with_name(self.path.stem)),
            ) from None

    def release(self, session: int) -> None:
        if self._fd is not None:
            fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, session)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
