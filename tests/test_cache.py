"""The one cache: JSON only, keyed by the engine and the data, rebuilt when damaged, absent when unsafe."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from perfdrill.engine import cache

ENGINE = Path(cache.__file__).resolve().parent


def _calc_ridge(cache_home: Path) -> float:
    """`perfdrill calc roofline --chip l4` in a fresh process using `cache_home`."""
    done = subprocess.run(
        [sys.executable, "-m", "perfdrill", "calc", "roofline", "--chip", "l4", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(cache_home)},
        timeout=60,  # a cache entry that blocks (a FIFO) fails the test instead of the run
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return float(json.loads(done.stdout)["results"]["ridge_point"]["value"])


def _entries(cache_home: Path) -> list[Path]:
    return sorted((cache_home / "perfdrill").iterdir())


def test_cache_holds_json_only(tmp_path: Path) -> None:
    # The workshop FAQ's L4 roof: 121 TFLOP/s over 300 GB/s is a ridge of 403.33 FLOP/byte.
    assert _calc_ridge(tmp_path) == pytest.approx(403.33, abs=0.01)
    entries = _entries(tmp_path)
    assert entries, "the specs should have been cached"
    for entry in entries:
        assert entry.suffix == ".json", f"{entry.name}: nothing but JSON data may live in the cache"


@pytest.mark.parametrize(
    "damage",
    ["truncated", "empty", "hand-edited", "valid JSON of the wrong shape", "a folder in its place"],
)
def test_a_damaged_entry_is_rebuilt_silently(tmp_path: Path, damage: str) -> None:
    _calc_ridge(tmp_path)
    entry = next(p for p in _entries(tmp_path) if p.name.startswith("specs-"))
    text = entry.read_bytes()
    if damage == "truncated":
        entry.write_bytes(text[: len(text) // 2])
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "hand-edited":  # the L4's 121 TFLOP/s bf16 peak made 10x larger, checksum kept
        assert b"1.21e+14" in text or b"121000000000000.0" in text
        entry.write_bytes(
            text.replace(b"121000000000000.0", b"1210000000000000.0").replace(b"1.21e+14", b"1.21e+15")
        )
    elif damage == "valid JSON of the wrong shape":
        payload = b'{"chips": [1, 2, 3]}'
        entry.write_bytes(__import__("hashlib").sha256(payload).hexdigest().encode() + b"\n" + payload)
    else:
        entry.unlink()
        entry.mkdir()
    assert _calc_ridge(tmp_path) == pytest.approx(403.33, abs=0.01)


def test_no_cache_and_no_fallback_when_the_folder_is_not_writable(tmp_path: Path) -> None:
    blocked = tmp_path / "cache-home"
    blocked.write_text("a file where the cache folder would go")
    before = set(Path("/tmp").glob("perfdrill-cache-*"))
    assert _calc_ridge(blocked) == pytest.approx(403.33, abs=0.01)
    assert set(Path("/tmp").glob("perfdrill-cache-*")) == before


def _fresh_cache_dir() -> Path | None:
    cache.cache_dir.cache_clear()
    try:
        return cache.cache_dir()
    finally:
        cache.cache_dir.cache_clear()


def test_a_folder_others_can_write_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = _fresh_cache_dir()
    assert folder == tmp_path / "perfdrill"
    folder.chmod(0o777)  # another local user could plant entries here
    assert _fresh_cache_dir() is None
    folder.chmod(stat.S_IRWXU)
    monkeypatch.setattr(os, "getuid", lambda: folder.stat().st_uid + 1)  # as if another user made it
    assert _fresh_cache_dir() is None


def test_any_engine_source_change_retires_every_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed unit definition (units.py) or workload must never serve old numbers."""
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "_ENGINE_DIR", copy)
    cache.engine_digest.cache_clear()
    before = cache.engine_digest()
    for source in ("model/units.py", "model/workloads.py", "problems/templates.py"):
        path = copy / source
        path.write_text(path.read_text() + "\n# changed\n")
        cache.engine_digest.cache_clear()
        after = cache.engine_digest()
        assert after != before, source
        before = after
    cache.engine_digest.cache_clear()
