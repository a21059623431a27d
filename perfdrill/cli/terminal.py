"""Everything the command line writes passes through the one sanitiser (engine/safe_text.py).

Plain output (`print`, warnings, errors) goes through `SafeStream`, installed over stdout and
stderr for the run. Rich's tables keep their colours: a Rich console writes to the stream beneath,
and its render hook passes the text of every segment through the same sanitiser, so only Rich's
own styling reaches the terminal as escape sequences.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from perfdrill.engine.safe_text import safe_text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType
    from rich.segment import Segment


class SafeStream:
    """A text stream whose every write is made safe for a terminal; everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        self.raw.write(safe_text(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, buffer (binary output)...
        return getattr(self.raw, name)


class _Sanitised:
    """A renderable drawn as Rich draws it, with the text of every segment made safe."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, rich: Console, options: ConsoleOptions) -> Iterator[Segment]:
        from rich.segment import Segment

        for segment in rich.render(self.inner, options):
            yield segment if segment.control else Segment(safe_text(segment.text), segment.style)


class _SanitisingHook:  # Rich's RenderHook protocol
    def process_renderables(self, renderables: Sequence[RenderableType]) -> list[RenderableType]:
        return [_Sanitised(renderable) for renderable in renderables]


def console(**options: Any) -> Console:
    """A Rich console on stdout (Rich imported only when a command draws a table). Markup is off:
    a chip's name or a prompt written `[link=…]` would otherwise become a terminal hyperlink."""
    import sys

    from rich.console import Console

    out = sys.stdout
    made = Console(file=out.raw if isinstance(out, SafeStream) else out, markup=False, **options)
    made.push_render_hook(_SanitisingHook())  # type: ignore[arg-type]
    return made
