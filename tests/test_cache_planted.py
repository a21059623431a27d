"""The cache holds numbers that decide grades, so it trusts only what this user's perfdrill wrote.

Issue 20 found a planted entry with a recomputed checksum make the H100's bf16 peak 1 FLOP/s, and
entries owned by another user, linked to a file (which perfdrill then overwrote), to /dev/zero
(read without limit) or a FIFO (a hang). Each case below plants one, then runs the command line
in a child process (timed out, so a hang fails) and checks the answer against the workshop's L4
roof: 121 TFLOP/s over 300 GB/s is a ridge of 403.33 FLOP/byte.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

import pytest

from perfdrill.engine import cache
from tests.test_cache import _calc_ridge as calc_ridge

L4_RIDGE = 403.33
L4_PEAK = b"121000000000000.0"  # the L4's dense bf16 peak in FLOP/s as the cached book writes it


def specs_entry(cache_home: Path) -> Path:
    """The cached spec book, made by a first run."""
    assert calc_ridge(cache_home) == pytest.approx(L4_RIDGE, abs=0.01)
    (entry,) = (cache_home / "perfdrill").glob("specs-*.json")
    return entry


def forged(entry: Path, tag: bytes) -> bytes:
    """The entry's payload with the L4 made 1 FLOP/s (a ridge of 3.3e-12), under `tag(payload)`."""
    payload = entry.read_bytes().partition(b"\n")[2]
    assert L4_PEAK in payload
    payload = payload.replace(L4_PEAK, b"1.0")
    return tag + b"\n" + payload


def test_a_planted_entry_with_a_recomputed_checksum_is_not_trusted(tmp_path: Path) -> None:
    entry = specs_entry(tmp_path)
    payload = forged(entry, b"")[1:]
    entry.write_bytes(hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    assert calc_ridge(tmp_path) == pytest.approx(L4_RIDGE, abs=0.01)


def test_an_entry_made_under_another_key_is_not_trusted(tmp_path: Path) -> None:
    """Copied from another account or machine: its tag is right for some key, but not this user's."""
    entry = specs_entry(tmp_path)
    payload = forged(entry, b"")[1:]
    other = hmac.new(b"\x01" * 32, payload, hashlib.sha256).hexdigest().encode()
    entry.write_bytes(other + b"\n" + payload)
    assert calc_ridge(tmp_path) == pytest.approx(L4_RIDGE, abs=0.01)


def test_a_genuine_entry_is_used(tmp_path: Path) -> None:
    """The control for the two above: the same forgery under this user's own key is believed,
    so those tests fail if authentication were not what rejects them."""
    entry = specs_entry(tmp_path)
    key = (Path(os.environ["XDG_DATA_HOME"]) / "perfdrill" / "cache.key").read_bytes()
    payload = forged(entry, b"")[1:]
    entry.write_bytes(hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload)
    assert calc_ridge(tmp_path) == pytest.approx(1.0 / 300e9, rel=0.01)


def test_a_link_in_place_of_an_entry_is_replaced_not_written_through(tmp_path: Path) -> None:
    entry = specs_entry(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    entry.unlink()
    entry.symlink_to(victim)
    assert calc_ridge(tmp_path) == pytest.approx(L4_RIDGE, abs=0.01)
    assert victim.read_text() == "the user's own file\n"
    assert not entry.is_symlink() and entry.is_file()


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_an_entry_that_never_ends_is_never_read(tmp_path: Path, target: str) -> None:
    entry = specs_entry(tmp_path)
    entry.unlink()
    if target == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to(target)
    assert calc_ridge(tmp_path) == pytest.approx(L4_RIDGE, abs=0.01)  # within calc_ridge's timeout


def test_an_entry_others_may_write_or_past_the_size_bound_is_not_read(tmp_path: Path) -> None:
    entry = specs_entry(tmp_path)
    forgery = forged(entry, b"x")
    key = (Path(os.environ["XDG_DATA_HOME"]) / "perfdrill" / "cache.key").read_bytes()
    payload = forgery.partition(b"\n")[2]
    genuine_forgery = hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload
    entry.write_bytes(genuine_forgery)
    entry.chmod(0o666)  # anyone could have written it
    assert calc_ridge(tmp_path) == pytest.approx(L4_RIDGE, abs=0.01)
    entry = specs_entry(tmp_path)
    with entry.open("ab") as out:  # past MAX_ENTRY_BYTES (a sparse file: no disk used)
        out.truncate(cache.MAX_ENTRY_BYTES + 1)
    assert calc_ridge(tmp_path) == pytest.approx(L4_RIDGE, abs=0.01)


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache.cache_dir.cache_clear()
    yield tmp_path / "cache" / "perfdrill"
    cache.cache_dir.cache_clear()


def test_another_users_entry_is_not_read(
    own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "source.txt"
    source.write_text("1")
    assert cache.cached("probe", [source], dict[str, int], lambda: {"n": 1}) == {"n": 1}
    assert cache.cached("probe", [source], dict[str, int], lambda: {"n": 2}) == {"n": 1}  # a hit
    (entry,) = own_cache.glob("probe-*.json")
    real = entry.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: real + 1)  # as if another user owned the entry
    assert cache._read(entry, dict[str, int]) is None


def test_entries_are_private_and_pruned(own_cache: Path, tmp_path: Path) -> None:
    old = own_cache / "probe-0000000000000000-00000000000000000000.json"  # an older engine's
    own_cache.mkdir(parents=True)
    old.write_text("{}")
    for n in range(cache.KEEP_PER_KIND + 3):
        source = tmp_path / f"source-{n}.txt"
        source.write_text(str(n))
        cache.cached("probe", [source], dict[str, int], lambda n=n: {"n": n})
        for entry in own_cache.glob("probe-*.json"):  # older entries older on disk, whatever the clock
            os.utime(entry, (entry.stat().st_mtime - 1,) * 2)
    entries = list(own_cache.glob("probe-*.json"))
    assert len(entries) == cache.KEEP_PER_KIND and old not in entries
    for entry in entries:
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    newest = max(entries, key=lambda path: path.stat().st_mtime)
    assert cache._read(newest, dict[str, int]) == {"n": cache.KEEP_PER_KIND + 2}


def test_a_key_planted_as_a_link_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key planted as a link could be one the planter knows: it is never used, and a fresh key of
    this user's own (0600) takes its place, so every entry made under the planted one is rebuilt."""
    data = tmp_path / "data"
    (data / "perfdrill").mkdir(parents=True)
    known = tmp_path / "known.key"
    known.write_bytes(b"k" * 32)
    known.chmod(0o600)
    (data / "perfdrill" / "cache.key").symlink_to(known)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    cache._key.cache_clear()
    try:
        key = cache._key()
        assert key != b"k" * 32  # the link was replaced by a fresh key of this user's own
        assert not (data / "perfdrill" / "cache.key").is_symlink()
        assert stat.S_IMODE((data / "perfdrill" / "cache.key").stat().st_mode) == 0o600
    finally:
        cache._key.cache_clear()
