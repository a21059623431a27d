"""Writing small templates into a temporary folder, for tests that need fixed, hand-checkable values;
and a built-in template's worked solution as the key prints it, for tests that read its lines."""

from __future__ import annotations

import textwrap
from functools import cache
from pathlib import Path
from typing import Any


def write_template(root: Path, template_id: str, question: str, prompt: str = "A question.\n") -> Path:
    folder = root / template_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "question.yaml").write_text(textwrap.dedent(question).lstrip(), encoding="utf-8")
    (folder / "prompt.md.j2").write_text(textwrap.dedent(prompt), encoding="utf-8")
    return folder


# One chip, one shape: every answer is worked out by hand where a test uses it.
# 2·4096³ = 137,438,953,472 FLOP (137.4 GFLOP); at 989 TFLOP/s that is 138.97 µs. Bytes moved:
# 3·4096²·2 = 100,663,296, which at 3.35 TB/s takes 30.05 µs, so the matmul is compute-bound.
MATMUL = """
id: matmul/h100-4096
title: 4096 cubed on an H100
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
scenario: {chip: chip, dtype: bf16}
inputs: {m: 4096, k: 4096, n: 4096, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: flops, kind: numeric, prompt: FLOPs?, answer: flops, unit: GFLOP, mistakes: [matmul-missing-2]}
  - name: runtime
    kind: numeric
    prompt: Runtime?
    answer: runtime
    unit: us
    mistakes: [sparse-peak, summed-not-max, unit-slip-high, unit-slip-low]
  - {name: bound, kind: choice, prompt: Bound?, answer: bound}
hints:
  - A matmul of (m, k) by (k, n) does one multiply and one add per m·n·k.
  - Compare the time for the FLOPs with the time for the bytes.
"""

# The GPU workshop's L4 roof: 121 TFLOP/s dense bf16 over 300 GB/s is a ridge of 403 FLOP/byte.
RIDGE = """
id: roofline/l4-ridge
title: The workshop's L4 ridge
family: roofline
difficulty: easy
workload: roofline
parameters:
  chip: {chip: {ids: [l4]}}
scenario: {chip: chip, dtype: bf16}
parts:
  - {name: ridge, kind: numeric, prompt: Ridge?, answer: ridge_point, unit: FLOP/B, mistakes: [sparse-peak]}
"""


def hand_checked_bank(root: Path) -> Path:
    """A folder with the two hand-checked templates above, to add to the bank with --questions."""
    write_template(root, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices on **H100**.\n")
    write_template(root, "roofline/l4-ridge", RIDGE, "The **L4** in bf16.\n")
    return root


# A one-part template whose two variants (m = 64 or 128) the error and leave-out tests break on purpose.
TINY = """
id: matmul/tiny
title: Tiny
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  m: {choice: [64, 128]}
scenario: {chip: chip, dtype: bf16}
inputs: {m: m, k: 1024, n: 1024, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: runtime, kind: numeric, prompt: Runtime?, answer: runtime, unit: us}
"""


@cache
def _bank_and_specs() -> tuple[Any, Any]:
    from perfdrill.engine.model import load_specs
    from perfdrill.engine.problems.bank import load_bank

    return load_bank([]), load_specs([])


def key_lines(template_id: str, seed: int) -> list[str]:
    """A built-in template's worked solution as the key prints it (Markdown), line by line, with
    plain spaces and no Markdown escapes."""
    from perfdrill.engine.output.markdown import explanation_markdown
    from perfdrill.engine.problems.generation import generate

    bank, specs = _bank_and_specs()
    problem = generate(bank.get(template_id), seed, specs)
    return explanation_markdown(problem).replace("\u00a0", " ").replace("\\", "").splitlines()
