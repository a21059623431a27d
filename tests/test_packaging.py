"""The engine stays headless, and an installed wheel (not only a checkout) finds its data."""

import importlib
import os
import pkgutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import perfdrill.engine

ROOT = Path(__file__).resolve().parent.parent


def test_engine_never_imports_textual() -> None:
    """Every engine module, imported and used to load the bank and specs, leaves Textual unloaded."""
    modules = [
        m.name for m in pkgutil.walk_packages(perfdrill.engine.__path__, "perfdrill.engine.") if not m.ispkg
    ]
    assert "perfdrill.engine.practice.progress" in modules and "perfdrill.engine.practice.session" in modules
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "perfdrill.engine.model.spec_files.load_specs(); perfdrill.engine.problems.bank.load_bank()\n"
        + "bad = [m for m in sys.modules if m.split('.')[0] == 'textual' or m.startswith('perfdrill.tui')]\n"
        + "print(bad); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_installed_wheel_finds_its_specs_and_questions(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("perfdrill-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        top_level = {name.split("/")[0] for name in archive.namelist()}
    assert {name for name in top_level if not name.endswith(".dist-info")} == {"perfdrill"}
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    outside = tmp_path / "elsewhere"
    # A folder holding its own `engine` and `tui` packages must not shadow perfdrill's.
    for foreign in ("engine", "tui"):
        (outside / foreign).mkdir(parents=True)
        (outside / foreign / "__init__.py").write_text("raise ImportError('foreign package imported')\n")
    # PYTHONPATH precedes site-packages (and an editable install's .pth), so the wheel's copy wins.
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = (
        "import perfdrill.engine.resources as r; print(r.__file__); "
        "print(r.data_dir('specs')); print(r.data_dir('questions'))"
    )
    lines = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=outside, env=env, check=True
    ).stdout.splitlines()
    assert lines == [
        f"{site}/perfdrill/engine/resources.py",
        f"{site}/perfdrill/specs",
        f"{site}/perfdrill/questions",
    ]
    calc = subprocess.run(
        [sys.executable, "-m", "perfdrill", "calc", "roofline", "--chip", "l4", "--json"],
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
        check=True,
    )
    assert '"value": 403.33' in calc.stdout
    # The print templates and the scaffold are package data too: a wheel must print and scaffold.
    for command in (
        ["generate", "--count", "2", "--format", "pdf", "-o", "set.pdf", "--date", "2026-11-22"],
        ["new", "matmul/from-wheel", "--into", "mine"],
        ["check", "mine/matmul/from-wheel", "--seeds", "5"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "perfdrill", *command],
            capture_output=True,
            text=True,
            cwd=outside,
            env=env,
        )
        assert done.returncode == 0, done.stderr
    assert (outside / "set.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(
    "package",
    [
        "perfdrill.engine",
        "perfdrill.engine.model",
        "perfdrill.engine.problems",
        "perfdrill.engine.output",
        "perfdrill.engine.practice",
    ],
)
def test_public_names_are_not_shadowed_by_submodules(package: str) -> None:
    """Importing a submodule sets it as an attribute of its package, so a public function sharing
    a submodule's name would turn into that module as soon as anything imported it."""
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not set(module.__all__) & submodules


def test_calc_loads_no_sympy_no_bank_and_no_other_subcommand() -> None:
    """`perfdrill calc` is the quick estimate: its start-up imports the generated formulas only,
    never sympy (about 0.3 s), the question bank or another subcommand's module (a regression
    once tripled its cold start)."""
    code = (
        "import sys\n"
        "from perfdrill.cli import main\n"
        "main(['calc', 'decode', '--chip', 'h100-sxm', '--model', 'llama-3.1-8b', '--batch', '8', "
        "'--context', '2048', '--json'])\n"
        "heavy = ('sympy', 'perfdrill.engine.problems', 'perfdrill.cli.practice', 'perfdrill.cli.printing',"
        " 'perfdrill.cli.authoring', 'textual', 'rich.markdown')\n"
        "bad = [m for m in sys.modules if m.startswith(heavy)]\n"
        "print(bad, file=sys.stderr); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert '"step_time"' in done.stdout


def test_the_practice_app_loads_no_sympy() -> None:
    """The app's first question is on screen in about a second: importing it (bank, grading, worked
    solutions) must not load sympy, about a quarter of a second. A move of the what-if wording into
    the sympy formula module once did, through the explanation's imports."""
    code = (
        "import sys\n"
        "import perfdrill.tui.app\n"
        "from perfdrill.engine.problems.bank import load_bank\n"
        "from perfdrill.engine.model import load_specs\n"
        "from perfdrill.engine.problems.generation import generate\n"
        "problem = generate(load_bank([]).get('performance_model/batching-gain'), 1, load_specs([]))\n"
        "assert problem.explanation is not None\n"
        "bad = [m for m in sys.modules if m.startswith('sympy')]\n"
        "print(bad[:5], file=sys.stderr); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
