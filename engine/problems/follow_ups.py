"""Interview follow-ups, as a template declares them: the same drawn variant with one thing
changed ("The batch doubles.", "Now on 8 chips.", "The KV cache goes to fp8."), and the parts
the change moves asked again. A follow-up is data, so authors write interview chains in YAML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.schema import Where


@dataclass(frozen=True)
class FollowUp:
    say: str  # the interviewer's line
    set: tuple[tuple[str, Any], ...]  # parameter -> its new value
    times: tuple[tuple[str, float], ...]  # parameter -> factor
    ask: tuple[str, ...]  # the parts asked again; empty: every part

    def changed(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The drawn `params` after the change; None where it changes nothing (the value set is
        already the drawn one), so the follow-up would not be one."""
        new = dict(params)
        for name, value in self.set:
            new[name] = value
        for name, factor in self.times:
            product = new[name] * factor
            new[name] = int(product) if float(product).is_integer() else product
        return None if new == dict(params) else new


def follow_ups(
    declared: Sequence[Any], parameter_kinds: Mapping[str, str], parts: Sequence[str], where: Where
) -> tuple[FollowUp, ...]:
    """Validate the template's `follow_ups`: known parameters, choice or range only (the
    interview keeps one chip and one model), factors on numbers, parts that exist."""
    result = []
    for index, fields in enumerate(declared):
        path: tuple[str | int, ...] = ("follow_ups", index)
        if not fields.set and not fields.times:
            raise where.error("a follow-up changes something: give set or times", *path)
        for key in ("set", "times"):
            for name in getattr(fields, key):
                kind = parameter_kinds.get(name)
                if kind not in ("choice", "range"):
                    known = ", ".join(n for n, k in parameter_kinds.items() if k in ("choice", "range"))
                    raise where.error(
                        f"must name a choice or range parameter; those: {known}", *path, key, name
                    )
        for position, name in enumerate(fields.ask):
            if name not in parts:
                raise where.error(f"no part {name!r}; parts: {', '.join(parts)}", *path, "ask", position)
        result.append(
            FollowUp(
                fields.say.strip(),
                tuple(fields.set.items()),
                tuple((name, float(factor)) for name, factor in fields.times.items()),
                tuple(fields.ask),
            )
        )
    return tuple(result)
