"""The `perfdrill` command and `python -m perfdrill`.

Ctrl+C while perfdrill starts (imports, reading the options) ends the run quietly with exit code
130, never a KeyboardInterrupt traceback through whatever module was loading; once a command runs,
Ctrl+C is KeyboardInterrupt again, which the command line and the app handle (exit code 130).
"""

import signal
from types import FrameType


def _end_quietly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def run() -> None:
    signal.signal(signal.SIGINT, _end_quietly)  # before any import of perfdrill's own
    from perfdrill.cli import main

    try:
        try:
            code = main()
        finally:
            signal.signal(signal.SIGINT, _end_quietly)  # and while the interpreter shuts down
    except KeyboardInterrupt:  # one that reached past a command's own handling: the same quiet stop
        code = 130
    raise SystemExit(code)


if __name__ == "__main__":
    run()
