"""Problem sets as PDF through the `typst` package: no TeX, no network, embedded fonts only.

A set is laid out in pieces of at most PIECE problems, one compile each, and the pieces are joined
(pdf_join.py), tags and all. Typst keeps every layout of a compile in memory (about 1 MB a page),
so one compile of a 1,000-problem set peaked at 1.1 GB; pieces keep the peak flat whatever the
set's size.
"""

from __future__ import annotations

import datetime
import io
import json
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from itertools import chain, islice
from pathlib import Path
from typing import Any, BinaryIO

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.output.sections import Section

TEMPLATE = Path(__file__).resolve().parent / "templates" / "set.typ"
EMPTY = TEMPLATE.with_name("empty.typ")
PIECE = 60  # problems a compile lays out; its memory grows with it, its speed barely does
GRID_ROWS = 240  # lines of a key's answer grid a compile lays out (about four pages)
_EVICTION_AGE = 10  # typst-py evicts cached layouts unused for this many compiles


def unprintable(text: str) -> str:
    """The characters of `text` the PDF's fonts have no glyph for (emoji and CJK, which are wide
    in Unicode's East Asian Width), each once; they would print as empty boxes."""
    wide = dict.fromkeys(c for c in text if unicodedata.east_asian_width(c) in ("W", "F"))
    return "".join(wide)


@cache
def _compiler(source: Path) -> Any:
    """One typst compiler per file, its fonts loaded once. System fonts are ignored, so every
    machine prints the same pages."""
    import typst

    return typst.Compiler(source, root=source.parent, ignore_system_fonts=True)


def _compile(piece: dict[str, Any], stamp: datetime.datetime) -> bytes:
    """One piece as PDF, with typst's tag tree for screen readers (the join keeps it)."""
    try:
        pdf: bytes = _compiler(TEMPLATE).compile(
            format="pdf",
            sys_inputs={"piece": json.dumps(piece, ensure_ascii=False)},
            timestamp=stamp,
            pdf_tags=True,
        )
    except RuntimeError as exc:  # typst reports compile errors as RuntimeError
        raise PerfdrillError(f"typst could not lay out the set: {str(exc).splitlines()[0]}") from None
    return pdf


def _forget_layouts() -> None:
    """Age the last piece's cached layouts out of typst's process-wide cache (it evicts entries
    unused for _EVICTION_AGE compiles), so memory does not grow piece after piece. An empty page
    compiles in a fraction of a millisecond."""
    for _ in range(_EVICTION_AGE + 1):
        _compiler(EMPTY).compile(format="svg")  # the cheapest export of the three


def _pieces(sections: Iterable[Section]) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(section meta, entries) of each piece, built as they are asked for. A key's answer grid
    opens it, GRID_ROWS lines a piece: typst's table layout took 250 MB for a 2,000-line grid
    in one compile. The grid's last lines share a piece with the key's first problems."""
    for section in sections:
        grid, first = section.grid(), True
        while len(grid) > GRID_ROWS:
            yield {**section.meta(), "first": first, "last": False, "grid": grid[:GRID_ROWS]}, []
            grid, first = grid[GRID_ROWS:], False
        entries, done = iter(section.entries), 0
        while chunk := list(islice(entries, PIECE)):
            done += len(chunk)
            yield {**section.meta(), "first": first, "last": done >= section.total, "grid": grid}, chunk
            grid, first = [], False


def _typeset(piece: dict[str, Any], stamp: datetime.datetime) -> Any:
    import pypdf

    return pypdf.PdfReader(io.BytesIO(_compile(piece, stamp)))


def _headings(reader: Any) -> list[tuple[str, int]]:
    """(title, page index) of each problem heading typst put in a piece's outline."""
    return [
        (i.title, reader.get_destination_page_number(i)) for i in reader.outline if not isinstance(i, list)
    ]


def _outline(
    writer: Any, headings: list[tuple[str, int]], meta: dict[str, Any], start: int, parent: Any
) -> Any:
    """The piece's problems in the outline under their section's node (a version, a student's
    copy or a key), which a piece that opens the section adds; returns the section's node."""
    if meta["first"]:
        title = meta["name"] or ("Answer key" if meta["kind"] == "key" else "Problems")
        parent = writer.add_outline_item(title=title, page_number=start)
    for title, page in headings:
        writer.add_outline_item(title=title, page_number=start + page, parent=parent)
    return parent


def _join(
    joined: Any,
    head: dict[str, Any],
    pieces: Iterable[tuple[dict[str, Any], list[dict[str, Any]]]],
    stamp: datetime.datetime,
    checkpoint: Callable[[], None],
) -> None:
    """Lay out the pieces and write each into `joined` as it comes: typst lays out one piece in a
    worker thread (it releases the GIL) while the next piece's problems are generated."""
    pending: tuple[dict[str, Any], Future[Any]] | None = None
    start = 0
    node = None

    def join(meta: dict[str, Any], reader: Any) -> None:
        nonlocal node
        headings = _headings(reader)  # read before `add` renumbers the piece's objects
        node = _outline(joined, headings, meta, joined.add(reader), node)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="typst") as typesetter:
        for meta, chunk in pieces:
            checkpoint()
            previous = (pending[0], pending[1].result()) if pending is not None else None
            pages = len(previous[1].pages) if previous is not None else 0
            start = 1 if meta["first"] else start + pages
            piece = {"head": head, "section": {**meta, "page_start": start}, "entries": chunk}
            pending = (meta, typesetter.submit(_typeset, piece, stamp))  # typst starts before the join
            if previous is not None:
                _forget_layouts()  # here, not in the typst thread, which lays out on the critical path
                join(*previous)
        if pending is not None:
            join(pending[0], pending[1].result())


def render_pdf(
    head: dict[str, Any],
    sections: Iterable[Section],
    out: BinaryIO,
    checkpoint: Callable[[], None] = lambda: None,
) -> int:
    """Lay out `sections` (each starting at its own page 1) and write one PDF to `out`.

    System fonts are ignored and the date is the PDF timestamp, so the same set gives the same
    bytes on any machine. `checkpoint` runs between pieces (the CLI stops there on Ctrl+C).
    The outline has a node per section with its problems under it, and every PDF is tagged for
    screen readers. Returns the number of pages.
    """
    import pypdf
    from pypdf.generic import NameObject, TextStringObject

    stamp = datetime.datetime.strptime(head["date"], "%Y-%m-%d").replace(tzinfo=datetime.UTC)
    info = {
        "/Title": head["title"],
        "/Producer": "perfdrill (typst, pypdf)",
        "/CreationDate": stamp.strftime("D:%Y%m%d%H%M%S+00'00'"),
    }
    pieces = _pieces(sections)
    opening = list(islice(pieces, 2))
    if len(opening) > 1:  # pieces written out as they come, in flat memory
        from perfdrill.engine.output.pdf_join import StreamingPdf

        joined = StreamingPdf(out)
        _join(joined, head, chain(opening, pieces), stamp, checkpoint)
        checkpoint()
        return joined.close(info)
    # One piece: typst's own file, tagged for screen readers, with the outline made here.
    meta, chunk = opening[0]
    reader = _typeset({"head": head, "section": {**meta, "page_start": 1}, "entries": chunk}, stamp)
    writer = pypdf.PdfWriter(clone_from=reader)
    writer.root_object.pop("/Outlines", None)  # typst's flat one; _outline makes the tree
    _outline(writer, _headings(reader), meta, 0, None)
    checkpoint()
    writer.add_metadata(info)
    writer.root_object[NameObject("/Lang")] = TextStringObject("en")  # what screen readers read it as
    writer.page_mode = "/UseOutlines"
    writer.write(out)
    return len(writer.pages)
