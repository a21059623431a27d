"""The catalogue of named mistakes. Each is a variation of the engine's own derivation: one
quantity replaced by what a person who made the slip would have used, everything downstream
recomputed by the same formulas. A wrong answer that lands on exactly one of these values gets
that mistake's name and explanation.

A mistake applies to a variant only where the slip is possible and matters: a replacement applies
only where every name it reads exists (a chip with no sparse figure cannot be misread as sparse),
and the slipped answer must differ from the right one (see variants.mistake_value).

The entries live by topic in the sibling modules; this module gathers them by id.
"""

from __future__ import annotations

from perfdrill.engine.problems.mistakes.attention_moe import ATTENTION_MOE
from perfdrill.engine.problems.mistakes.mistake import ANSWER, Mistake
from perfdrill.engine.problems.mistakes.reviewed import REVIEWED
from perfdrill.engine.problems.mistakes.roofline import ROOFLINE
from perfdrill.engine.problems.mistakes.serving import SERVING
from perfdrill.engine.problems.mistakes.training import TRAINING

__all__ = ["ANSWER", "CATALOGUE", "Mistake"]

# In this order: the question schema lists the ids as the catalogue orders them.
CATALOGUE: dict[str, Mistake] = {m.id: m for m in (*ROOFLINE, *TRAINING, *ATTENTION_MOE, *SERVING, *REVIEWED)}
