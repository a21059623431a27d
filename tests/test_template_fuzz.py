"""`perfdrill check` on randomly broken templates: it never raises, never hangs, and every finding
names a file and a line.

Each example takes a valid template (a hand-checked matmul, the guide's two worked examples),
breaks it in one to three places (a value of another type or shape, a deleted or unknown field,
a name or expression that does not exist, a broken Jinja snippet in the prompt) and checks it
in-process. Before issue 17, about one such mutation in a hundred ended in a traceback: a mapping
or a list as a scenario value, text used as a chip count, `derived` without `value`.
"""

from __future__ import annotations

import contextlib
import copy
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.check import check_paths

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
BASES = {
    "kv_cache/long-context": EXAMPLES / "kv_cache" / "long-context",
    "serving_lab/speculative-draft": EXAMPLES / "serving_lab" / "speculative-draft",
    "matmul/gemv": ROOT / "questions" / "matmul" / "gemv",
}
NAMES = [
    "chip", "model", "batch", "context", "runtime", "kv_cache_bytes", "fits", "bound", "draft",
    "drafting", "drafting.runtime", "nosuch.runtime", "alpha", "k", "page", "weight_bytes",
    "chip.name", "max_batch + 2", "1/0", "9**9**9", "ceil(context / page)", "(", "bf16", "token",
    "KiB", "ms", "GB/s", "__class__", "[1]", "numeric", "choice", "multi", "relative",
]  # fmt: skip
SNIPPETS = [
    "{{ given.runtime }}", "{{ given.drafting.runtime }}", "{{ nope }}", "{{ chip.nmae }}", "{% for %}",
    "{{ 1/0 }}", "{{ 'a' * 10**6 }}", "{% for i in range(10**6) %}{% endfor %}", "{{ given.x | qty('s') }}",
    "{{ qty(given.kv_bytes_per_token, 'KiB/token') }}", "{{ given.runtime | qty('GB') }}", "{{", "\x1b[31m",
]  # fmt: skip
SPECS = load_specs()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.sampled_from([0, -1, 10**30, 2**70]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(NAMES),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
    max_leaves=6,
)


def _places(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in the data, parents before children."""
    places: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for key in keys:
            places.append((node, key))
            stack.append(node[key])
    return places


@st.composite
def broken(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    base = draw(st.sampled_from(sorted(BASES)))
    folder = BASES[base]
    data = yaml.safe_load((folder / "question.yaml").read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["id"] = data["id"] + "-fuzzed"  # never the built-in's own id (that is its own finding)
    prompt = (folder / "prompt.md.j2").read_text(encoding="utf-8")
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["replace", "name", "name", "delete", "add", "prompt"]))
        places = _places(data)
        if kind == "prompt":
            at = draw(st.integers(min_value=0, max_value=len(prompt)))
            prompt = prompt[:at] + draw(st.sampled_from(SNIPPETS)) + prompt[at:]
            continue
        container, key = draw(st.sampled_from(places))
        if kind == "replace":
            container[key] = draw(values)
        elif kind == "name":  # well-formed but wrong: another name, number or expression
            container[key] = draw(st.sampled_from(NAMES) | st.sampled_from([0, 1, 2.5, -3, 10**9]))
        elif kind == "delete" and isinstance(container, dict):
            del container[key]
        elif kind == "delete":
            container.pop(key)
        elif isinstance(container, dict):
            container[draw(st.sampled_from(NAMES))] = draw(values)
        else:
            container.insert(key, draw(values))
    return base, data, prompt


@contextlib.contextmanager
def at_most(seconds: int) -> Iterator[None]:
    """Fail the example, rather than hang the run, when checking takes longer than `seconds`."""

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"check ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@settings(
    max_examples=80,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=broken())
def test_check_never_raises_and_every_finding_is_located(tmp_path: Path, case: tuple[str, dict, str]) -> None:
    base, data, prompt = case
    root = tmp_path / "root"
    shutil.rmtree(root, ignore_errors=True)
    folder = root / base
    folder.mkdir(parents=True)
    family = BASES[base].parent / "family.yaml"
    if family.exists():
        shutil.copy(family, folder.parent / "family.yaml")
    (folder / "question.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (folder / "prompt.md.j2").write_text(prompt, encoding="utf-8")
    with at_most(60):
        seen, findings = check_paths([root], SPECS, seeds=3)
    assert seen == 1
    for finding in findings:
        assert finding.file.startswith(f"root/{base}/"), finding
        assert finding.line is not None and finding.line >= 1, finding.one_line()
        assert len(finding.one_line()) < 1000 and "\n" not in finding.one_line()
