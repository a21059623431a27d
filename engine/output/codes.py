"""The problem codes printed on student pages: opaque to a reader, decodable by perfdrill.

A code like "7KQ2-XM4P" is 40 bits: 20 bits naming the template (a hash of its id) and the
variant's 20-bit seed, scrambled by a fixed four-round Feistel permutation so that neither can be
read off the sheet. `perfdrill grade --code` turns it back into the variant, so a student can check
a printed problem with nothing but what the sheet shows. It is obfuscation, not secrecy: perfdrill
itself can decode it, which is why `grade --code` never prints the worked solution.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from perfdrill.engine.errors import UsageError
from perfdrill.engine.problems.templates import Template

# Crockford's base-32 alphabet: no I, L, O or U, so a code read aloud or copied by hand survives.
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_READ_AS = {"O": "0", "I": "1", "L": "1"}  # Crockford's rule for letters people confuse with digits
_HALF = 20
_MASK = (1 << _HALF) - 1
_ROUNDS = 4


def _round(number: int, half: int) -> int:
    digest = hashlib.sha256(f"perfdrill-code#{number}#{half}".encode()).digest()
    return int.from_bytes(digest[:3], "big") & _MASK


def template_tag(template_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"template#{template_id}".encode()).digest()[:3], "big") & _MASK


def problem_code(template_id: str, seed: int) -> str:
    """The 8-character code of variant `seed` of a template (seeds of printed sets are < 10⁶)."""
    if not 0 <= seed <= _MASK:
        raise UsageError(f"seed {seed} does not fit a problem code (at most {_MASK:,})")
    left, right = template_tag(template_id), seed
    for number in range(_ROUNDS):
        left, right = right, left ^ _round(number, right)
    value = (left << _HALF) | right
    text = "".join(_ALPHABET[(value >> shift) & 31] for shift in range(35, -1, -5))
    return f"{text[:4]}-{text[4:]}"


def _value(code: str) -> int:
    text = "".join(_READ_AS.get(c, c) for c in code.upper() if c not in "- ")
    if len(text) != 8 or any(c not in _ALPHABET for c in text):
        raise UsageError(f"--code {code!r} is not a problem code like 7KQ2-XM4P (8 letters and digits)")
    value = 0
    for char in text:
        value = value * 32 + _ALPHABET.index(char)
    return value


def find_problem(code: str, templates: Iterable[Template]) -> tuple[Template, int]:
    """The (template, seed) a printed code names; a code no template matches is a usage error."""
    value = _value(code)
    left, right = value >> _HALF, value & _MASK
    for number in reversed(range(_ROUNDS)):
        left, right = right ^ _round(number, left), left
    matches = [t for t in templates if template_tag(t.id) == left]
    if len(matches) != 1:
        why = "no question of this bank has it" if not matches else "two questions share it"
        raise UsageError(f"--code {code}: {why}; check it against the sheet (and give --questions if needed)")
    return matches[0], right
