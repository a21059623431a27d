"""How fast the practice TUI feels: command to first question, and keystroke to feedback.

Runs `perfdrill practice` in a pseudo-terminal (80×24), as a user's shell would, and times what
reaches the terminal: the first question's title, then the feedback after the submitting Enter.
The answers are wrong on purpose, so the feedback is the first-try one; `s` then shows the answers
and `r` draws a fresh variant for the next sample. The progress store is the user's real kind: a
file that already holds a schedule, so reading it is part of the first figure.

    python benchmarks/bench_tui.py [--runs 5]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import statistics
import struct
import tempfile
import termios
import time

QUESTION = "matmul/square-time"
TITLE = b"Time of a bf16 matmul"
FEEDBACK = b"parts right"
QUESTION_FOOTER = b"Submit"  # only what changes is redrawn, so a repeated title is not seen again


class Terminal:
    """A child process on a pseudo-terminal, and everything it has drawn so far."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.seen = b""

    def wait_for(self, text: bytes, timeout: float = 20.0) -> float:
        """Seconds until `text` shows up in output written after this call."""
        start = time.perf_counter()
        self.seen = b""
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([self.fd], [], [], 0.01)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    break
                if text in self.seen:
                    return time.perf_counter() - start
        raise TimeoutError(f"{text!r} never appeared")

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def close(self) -> None:
        self.type("\x11")  # Ctrl+Q
        for _ in range(100):
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def one_session(data_home: str, samples: int) -> tuple[float, list[float]]:
    env = {**os.environ, "TERM": "xterm-256color", "XDG_DATA_HOME": data_home}
    command = shutil.which("perfdrill") or "perfdrill"
    started = time.perf_counter()
    terminal = Terminal([command, "practice", "--start", "--question", QUESTION, "--seed", "1"], env)
    terminal.wait_for(TITLE)
    to_question = time.perf_counter() - started
    feedback: list[float] = []
    for _ in range(samples):
        time.sleep(1.0)  # the first screen is up; give it a moment before typing, as a reader would
        terminal.type("1 TFLOP\r")
        time.sleep(0.2)
        terminal.type("1 ms\r")
        time.sleep(0.3)  # let the reading under each field settle before the timed key
        terminal.type("a")
        time.sleep(0.2)
        terminal.type("\r")
        feedback.append(terminal.wait_for(FEEDBACK))
        time.sleep(0.2)
        terminal.type("s")  # show the answers, which allows…
        time.sleep(0.3)
        terminal.type("r")  # …a fresh variant of the same question
        terminal.wait_for(QUESTION_FOOTER)
    terminal.close()
    return to_question, feedback


def seed_history(data_home: str, days: int = 90, per_day: int = 25) -> None:
    """A store as months of practice leave it: first tries on most days, every template scheduled."""
    from perfdrill.engine.practice import Attempt, Plan, ProgressStore
    from perfdrill.engine.problems import load_bank

    templates = list(load_bank().templates.values())
    start = time.time() - days * 86400
    clock = [start]
    os.environ["XDG_DATA_HOME"] = data_home
    store = ProgressStore(now=lambda: clock[0])
    for day in range(days):
        session = store.start_session(Plan())
        for position in range(per_day):
            template = templates[(day * per_day + position) % len(templates)]
            clock[0] = start + day * 86400 + position * 60
            right = (day + position) % 3 != 0
            attempt = Attempt(
                position, template.id, template.title, template.family, template.difficulty, position,
                {}, {"a": {"status": "correct" if right else "incorrect"}}, float(right), 0, 60.0,
            )  # fmt: skip
            store.record_attempt(session, attempt, 3 if right else 1)
        store.finish(session)
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_home:
        seed_history(data_home)
        starts, feedback = [], []
        for _ in range(args.runs):
            to_question, times = one_session(data_home, samples=5)
            starts.append(to_question)
            feedback += times
    print(f"perfdrill practice, 80×24 pseudo-terminal, {args.runs} launches, {len(feedback)} submits")
    print(
        f"command to first question on screen: median {statistics.median(starts):.2f} s,"
        f" max {max(starts):.2f} s"
    )
    print(
        f"submit keystroke to feedback on screen: median {statistics.median(feedback) * 1000:.0f} ms,"
        f" max {max(feedback) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
