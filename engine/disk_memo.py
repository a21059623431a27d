"""Small results that need pint to work out but never change for a given engine, kept on disk.

Keyed by the formulas' hash, so an engine change retires them; a read-only cache folder only costs
speed. This keeps pint (a third of a second to import) off the path to the first question.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from engine.compiled import formula_cache_key
from engine.resources import cache_dir, write_atomically


def _file(name: str) -> Path:
    return cache_dir() / f"{name}_{formula_cache_key()}.json"


@cache
def _entries(name: str) -> dict[str, Any]:
    try:
        known = json.loads(_file(name).read_text(encoding="utf-8"))
        return known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        return {}


def remembered(name: str, key: str, compute: Callable[[], Any]) -> Any:
    """`compute()`, or its stored result for `key`; a failure is raised and never stored."""
    entries = _entries(name)
    if key not in entries:
        entries[key] = compute()
        with contextlib.suppress(OSError):
            write_atomically(_file(name), json.dumps(entries, sort_keys=True).encode())
    return entries[key]
