"""`perfdrill practice` and `perfdrill review` on the command line (issue 24 §1): a fresh seed each
time unless one is given, printed so the set can be asked for again; review settings saved and
the queue started in the same command."""

from __future__ import annotations

from typing import Any

import pytest

from perfdrill.engine.practice import Plan, ProgressStore


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What the app would have been opened with; the terminal is taken as interactive."""
    from perfdrill.cli import practice

    seen: dict[str, Any] = {}
    monkeypatch.setattr(practice, "_needs_terminal", lambda: None)
    monkeypatch.setattr(practice, "_run_app", lambda store, args, **options: seen.update(options) or 0)
    return seen


def test_practice_without_a_seed_draws_a_fresh_one_and_prints_it(opened: dict[str, Any], run_cli) -> None:  # type: ignore[no-untyped-def]
    seeds = []
    for _ in range(3):
        code, out, _ = run_cli("practice", "--family", "roofline", "--count", "3", "--start")
        assert code == 0
        plan: Plan = opened["plan"]
        assert f"seed {plan.seed} (--seed {plan.seed} asks the same questions again)" in out
        seeds.append(plan.seed)
    assert len(set(seeds)) > 1  # 1 in 10^12 that three fresh draws from a million all agree


def test_practice_with_a_seed_keeps_it_and_prints_nothing(opened: dict[str, Any], run_cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli("practice", "--count", "3", "--seed", "0", "--start")
    assert code == 0 and opened["plan"].seed == 0 and out == ""


def test_review_settings_are_saved_and_the_queue_starts(
    opened: dict[str, Any],
    run_cli,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    code, out, _ = run_cli("review", "--new-per-day", "3", "--mastery", "2")
    assert code == 0 and "saved: --new-per-day 3, --mastery 2" in out
    assert opened == {"review": True}  # then today's queue, under the new settings
    store = ProgressStore(readonly=True)
    assert (store.setting("new_per_day"), store.setting("mastery_after")) == (3, 2)
    store.close()
