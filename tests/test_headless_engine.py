"""The engine is headless: importing all of it never loads Textual."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[1]


def test_importing_every_engine_module_leaves_textual_unloaded() -> None:
    modules = [f"engine.{m.name}" for m in pkgutil.iter_modules(engine.__path__)]
    assert "engine.progress" in modules and "engine.generate" in modules
    script = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('textual' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert done.stdout.strip() == "False"
