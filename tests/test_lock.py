"""The committed lock (requirements/test.lock.txt) installs what pyproject.toml asks for.

The README's test command and CI install from the lock with --require-hashes, so every entry must
carry hashes, and every requirement of the project and of its test group must be met by the pin
the lock holds for each Python it supports (3.11 and newer; the lock splits numpy and pint by
version).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "test.lock.txt"
# An environment per Python the project supports; the lock's markers are read in each.
PYTHONS = ("3.11", "3.12", "3.13", "3.14")


def locked_pins() -> list[tuple[str, Version, Marker | None, int]]:
    """(name, version, marker, number of hashes) for each `name==version` entry of the lock."""
    pins = []
    for entry in re.split(r"\n(?=\S)", LOCK.read_text(encoding="utf-8")):
        head = entry.split("\\", 1)[0].strip()
        if not head or head.startswith("#"):
            continue
        requirement = Requirement(head)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"{head}: the lock pins exact versions"
        hashes = len(re.findall(r"--hash=sha256:[0-9a-f]{64}", entry))
        pins.append(
            (canonicalize_name(requirement.name), Version(specifier.version), requirement.marker, hashes)
        )
    return pins


def declared_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [Requirement(text) for text in project["project"]["dependencies"]] + [
        Requirement(text) for text in project["dependency-groups"]["test"]
    ]


def environment(python: str) -> dict[str, str]:
    return {
        "python_version": python,
        "python_full_version": python + ".0",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_python_implementation": "CPython",
        "implementation_name": "cpython",
        "os_name": "posix",
    }


def test_every_locked_package_carries_hashes() -> None:
    pins = locked_pins()
    assert len(pins) > 30  # the project's and the test group's whole closure
    unhashed = [name for name, _, _, hashes in pins if hashes == 0]
    assert unhashed == []


def lock_problems(
    pins: list[tuple[str, Version, Marker | None, int]], requirements: list[Requirement], python: str
) -> list[str]:
    """Each declared requirement that the lock fails to meet, for one Python version."""
    env = environment(python)
    pinned: dict[str, list[Version]] = {}
    for name, version, marker, _ in pins:
        if marker is None or marker.evaluate(env):
            pinned.setdefault(name, []).append(version)
    problems = []
    for requirement in requirements:
        if requirement.marker is not None and not requirement.marker.evaluate(env):
            continue
        versions = pinned.get(canonicalize_name(requirement.name), [])
        if len(versions) != 1:
            problems.append(f"{requirement.name}: {len(versions)} pins for Python {python}")
        elif versions[0] not in requirement.specifier:
            problems.append(f"{requirement.name}: locked {versions[0]} is outside {requirement.specifier}")
    return problems


@pytest.mark.parametrize("python", PYTHONS)
def test_the_lock_satisfies_pyproject(python: str) -> None:
    assert lock_problems(locked_pins(), declared_requirements(), python) == []


def test_a_stale_lock_is_caught() -> None:
    # The check must be able to fail: a lock holding textual 8.3.0 against ">=8.2,<8.3", and one
    # that lost numpy, as after a range is raised without writing the lock again.
    pins = [("textual", Version("8.3.0"), None, 1)]
    requirements = [Requirement("textual>=8.2,<8.3"), Requirement("numpy>=1.26")]
    assert lock_problems(pins, requirements, "3.11") == [
        "textual: locked 8.3.0 is outside <8.3,>=8.2",
        "numpy: 0 pins for Python 3.11",
    ]
