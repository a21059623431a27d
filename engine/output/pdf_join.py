"""Joining a set's PDF pieces as they are laid out, in flat memory.

pypdf's PdfWriter keeps every page of every piece until it writes the file, so a 2,000-problem set
held 100 MB more than a 1,000-problem one. Here each piece's objects are renumbered and written
out as soon as the piece arrives; only their offsets, the page references and the outline stay.
The output is deterministic: the same pieces give the same bytes.

Each piece's tag tree (typst's, for screen readers) is kept: its Document element becomes a Part
of the joined file's one Document, and its parent tree's keys move past the pieces before it.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from typing import Any, BinaryIO

from pypdf.generic import (
    ArrayObject,
    BooleanObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NullObject,
    NumberObject,
    PdfObject,
    TextStringObject,
)


class _Written(IndirectObject):
    """A reference into the file being written, so that renumbering never renumbers it twice
    (pypdf shares one inherited dictionary, such as /Resources, among a piece's pages)."""


def _ref(number: int) -> IndirectObject:
    """A reference to object `number` of the file being written (pypdf needs no document for it)."""
    return _Written(number, 0, None)


def _shift_key(value: DictionaryObject, key: str, shift: int) -> None:
    """Move a page's or an annotation's parent tree key past the pieces joined before it."""
    if key in value:
        value[NameObject(key)] = NumberObject(int(value[key]) + shift)  # type: ignore[call-overload]


_XREF_LINES = 10_000  # cross-reference lines written at once

# In an object's bytes: an escaped character or a parenthesis (a literal string's, where nothing
# is a reference), the end of the object or the start of a stream, or a reference.
_TOKEN = re.compile(rb"\\.|[()]|endobj|stream\r?\n|(?<![0-9.])([0-9]+) 0 R\b", re.S)
_REFERENCE = re.compile(rb"(?<![0-9.])([0-9]+) 0 R\b")


def _renumbered_body(data: bytes, offset: int, number: Callable[[int], int]) -> bytes | None:
    """The object at `offset` (`N 0 obj … endobj`) as bytes with each reference's object number
    replaced by `number(old)`, or None for a stream (its binary data may hold anything)."""
    start = data.index(b"obj", offset) + 3
    end = data.find(b"endobj", start)
    body = data[start:end]
    if end > 0 and b"(" not in body and b"stream" not in body and b"\\" not in body:
        # Most tag elements hold no string and no stream: every "N 0 R" in them is a reference.
        return _REFERENCE.sub(lambda found: b"%d 0 R" % number(int(found[1])), body).strip()
    pieces, position, depth = [], start, 0
    for token in _TOKEN.finditer(data, start):
        text = token.group()
        if text.startswith(b"\\") or (depth and text not in (b"(", b")")):
            continue
        if text == b"(":
            depth += 1
        elif text == b")":
            depth -= 1
        elif text == b"endobj":
            pieces.append(data[position : token.start()])
            return b"".join(pieces).strip()
        elif text.startswith(b"stream"):
            return None
        else:
            pieces += [data[position : token.start()], b"%d 0 R" % number(int(token.group(1)))]
            position = token.end()
    raise ValueError(f"object at byte {offset} has no endobj")


def _number_tree(node: Any) -> list[tuple[int, Any]]:
    """A number tree's (key, value) pairs, values as written (a reference stays a reference)."""
    numbers = node.get("/Nums", ArrayObject())  # indexing an array never resolves a reference
    pairs = [(int(numbers[i]), numbers[i + 1]) for i in range(0, len(numbers), 2)]
    for kid in node.get("/Kids", []):
        pairs += _number_tree(kid.get_object())
    return pairs


class StreamingPdf:
    """A PDF written piece by piece: `add` each piece's reader, then `close`."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.written = 0  # bytes so far: `out` may be a pipe, which cannot tell()
        # By object number (object 0 is the free list's head), 8 bytes each: a tagged set has some
        # 80 objects a problem, and a list of Python ints held 12 MB more at 2,000 problems.
        self.offsets = array("q", [0])
        self.page_ids: list[int] = []
        self.outline: list[tuple[str, int, int | None]] = []  # (title, page index, parent's index)
        self.parts: list[int] = []  # each tagged piece's Part element
        self.parent_tree: list[tuple[int, int]] = []  # (key, object): what marks on pages belong to
        self.role_map = DictionaryObject()
        self.next_key = 0
        self._write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        self.pages_id, self.tree_id, self.document_id = self._reserve(), self._reserve(), self._reserve()

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.written += len(data)

    def _reserve(self) -> int:
        self.offsets.append(-1)
        return len(self.offsets) - 1

    def _object(self, number: int, value: PdfObject) -> None:
        self.offsets[number] = self.written
        self._write(f"{number} 0 obj\n".encode())
        value.write_to_stream(self)  # type: ignore[arg-type]  # pypdf only calls write()
        self._write(b"\nendobj\n")

    def write(self, data: bytes) -> int:  # what write_to_stream calls
        self._write(data)
        return len(data)

    def _renumbered(
        self, value: Any, numbers: dict[int, int], queue: list[tuple[int, IndirectObject]]
    ) -> Any:
        """`value` with every reference to the piece's objects turned into this file's numbers
        (in place: a piece's reader is dropped once written)."""
        if isinstance(value, _Written):
            return value
        if isinstance(value, IndirectObject):
            if value.idnum not in numbers:
                numbers[value.idnum] = self._reserve()
                queue.append((numbers[value.idnum], value))
            return _ref(numbers[value.idnum])
        if isinstance(value, DictionaryObject):  # streams too: their dictionary
            for key in list(value):  # raw_get: value[key] would resolve a reference and inline it
                value[key] = self._renumbered(value.raw_get(key), numbers, queue)
        elif isinstance(value, ArrayObject):
            for index, item in enumerate(value):
                value[index] = self._renumbered(item, numbers, queue)
        return value

    def _drain(self, numbers: dict[int, int], queue: list[tuple[int, IndirectObject]]) -> None:
        """Write the piece's objects met so far, and those they reach."""
        while queue:
            number, reference = queue.pop(0)
            self._object(number, self._renumbered(reference.get_object(), numbers, queue))

    def add(self, reader: Any) -> int:
        """Every page of `reader`, what it uses and its tags; returns the index of its first page."""
        first = len(self.page_ids)
        numbers: dict[int, int] = {}
        tags = reader.trailer["/Root"].get("/StructTreeRoot")
        shift = self.next_key  # the piece's parent tree keys start here
        if tags is not None:  # its elements' parent is the joined tree
            numbers[reader.trailer["/Root"].raw_get("/StructTreeRoot").idnum] = self.tree_id
        pages = [(page.indirect_reference.idnum, page) for page in reader.pages]
        for old, _ in pages:  # a link to a page of the piece points at the page written below
            numbers[old] = self._reserve()
            self.page_ids.append(numbers[old])
        for old, page in pages:
            queue: list[tuple[int, IndirectObject]] = []
            page[NameObject("/Parent")] = _ref(self.pages_id)
            _shift_key(page, "/StructParents", shift)
            for annotation in page.get("/Annots", []):
                _shift_key(annotation.get_object(), "/StructParent", shift)
            for key in list(page):
                if key != "/Parent":
                    page[key] = self._renumbered(page.raw_get(key), numbers, queue)
            self._object(numbers[old], page)
            self._drain(numbers, queue)
        if tags is not None:
            self._add_tags(reader, tags, numbers, shift)
        return first

    def _add_tags(self, reader: Any, tags: DictionaryObject, numbers: dict[int, int], shift: int) -> None:
        """The piece's tag tree: its Document element as a Part of the joined Document, and its
        parent tree's entries under keys moved by `shift`, as its pages' were."""
        queue: list[tuple[int, IndirectObject]] = []
        top = tags.raw_get("/K")
        for element in top if isinstance(top, ArrayObject) else [top]:
            value = element.get_object()
            if value.get("/S") == "/Document":
                value[NameObject("/S")] = NameObject("/Part")
            value[NameObject("/P")] = _ref(self.document_id)
            if element.idnum not in numbers:
                numbers[element.idnum] = self._reserve()
            self.parts.append(numbers[element.idnum])
            self._object(self.parts[-1], self._renumbered(value, numbers, queue))  # as changed here
        for key, value in _number_tree(tags["/ParentTree"].get_object()):
            if not isinstance(value, IndirectObject):  # written as an object of its own
                number = self._reserve()
                queue.append((number, value))
            else:
                number = self._renumbered(value, numbers, queue).idnum
            self.parent_tree.append((key + shift, number))
        self.role_map.update(tags.get("/RoleMap", {}))
        last = self.parent_tree[-1][0] + 1 if self.parent_tree else 0
        self.next_key = max(last, shift + int(tags.get("/ParentTreeNextKey", 0)))
        self._drain_copies(reader, numbers, queue)

    def _drain_copies(self, reader: Any, numbers: dict[int, int], queue: list[tuple[int, Any]]) -> None:
        """As `_drain`, copying each object's bytes with its references renumbered instead of
        parsing it: a 60-problem piece has some 5,000 tag elements, and pypdf took a second a
        piece to parse and write them. A stream, or a value that is no object of the file, goes
        through pypdf."""
        data = reader.stream.getvalue()
        offsets = reader.xref[0]

        def number(old: int) -> int:
            if old not in numbers:
                numbers[old] = self._reserve()
                queue.append((numbers[old], IndirectObject(old, 0, reader)))
            return numbers[old]

        while queue:
            new, value = queue.pop(0)
            body = None
            if isinstance(value, IndirectObject) and value.idnum in offsets:
                body = _renumbered_body(data, offsets[value.idnum], number)
            if body is None:
                self._object(new, self._renumbered(value.get_object(), numbers, queue))
                continue
            self.offsets[new] = self.written
            self._write(b"%d 0 obj\n%s\nendobj\n" % (new, body))

    def add_outline_item(self, title: str, page_number: int, parent: int | None = None) -> int:
        """An outline entry (as pypdf's PdfWriter takes it); returns what `parent` takes."""
        self.outline.append((title, page_number, parent))
        return len(self.outline) - 1

    def _outline(self) -> int:
        root = self._reserve()
        ids = [self._reserve() for _ in self.outline]
        children: dict[int | None, list[int]] = {}
        for index, (_, _, parent) in enumerate(self.outline):
            children.setdefault(parent, []).append(index)
        for index, (title, page, parent) in enumerate(self.outline):
            item = DictionaryObject()
            item[NameObject("/Title")] = TextStringObject(title)
            item[NameObject("/Parent")] = _ref(root if parent is None else ids[parent])
            destination = [_ref(self.page_ids[page]), NameObject("/XYZ")]
            item[NameObject("/Dest")] = ArrayObject([*destination, NullObject(), NullObject(), NullObject()])
            siblings = children[parent]
            position = siblings.index(index)
            if position > 0:
                item[NameObject("/Prev")] = _ref(ids[siblings[position - 1]])
            if position + 1 < len(siblings):
                item[NameObject("/Next")] = _ref(ids[siblings[position + 1]])
            self._link_children(item, [ids[c] for c in children.get(index, [])])
            self._object(ids[index], item)
        top = DictionaryObject({NameObject("/Type"): NameObject("/Outlines")})
        self._link_children(top, [ids[c] for c in children.get(None, [])])
        self._object(root, top)
        return root

    @staticmethod
    def _link_children(item: DictionaryObject, kids: list[int]) -> None:
        if kids:
            item[NameObject("/First")] = _ref(kids[0])
            item[NameObject("/Last")] = _ref(kids[-1])
            item[NameObject("/Count")] = NumberObject(len(kids))

    def _tags(self) -> dict[NameObject, PdfObject]:
        """The joined tag tree (one Document, a Part per piece) and what the catalogue says of it;
        nothing when no piece was tagged."""
        if not self.parts:
            return {}
        document: dict[NameObject, PdfObject] = {
            NameObject("/Type"): NameObject("/StructElem"),
            NameObject("/S"): NameObject("/Document"),
            NameObject("/P"): _ref(self.tree_id),
            NameObject("/K"): ArrayObject(map(_ref, self.parts)),
        }
        self._object(self.document_id, DictionaryObject(document))
        nums = ArrayObject(
            item for key, number in self.parent_tree for item in (NumberObject(key), _ref(number))
        )
        tree = {
            NameObject("/Type"): NameObject("/StructTreeRoot"),
            NameObject("/K"): ArrayObject([_ref(self.document_id)]),
            NameObject("/ParentTree"): DictionaryObject({NameObject("/Nums"): nums}),
            NameObject("/ParentTreeNextKey"): NumberObject(self.next_key),
            NameObject("/RoleMap"): self.role_map,
        }
        self._object(self.tree_id, DictionaryObject(tree))
        marked = DictionaryObject({NameObject("/Marked"): BooleanObject(True)})
        return {NameObject("/StructTreeRoot"): _ref(self.tree_id), NameObject("/MarkInfo"): marked}

    def close(self, info: dict[str, str]) -> int:
        """The page tree, outline, document info, catalogue and cross-reference table; returns
        the number of pages."""
        kids = ArrayObject([_ref(n) for n in self.page_ids])
        tree = {NameObject("/Type"): NameObject("/Pages"), NameObject("/Kids"): kids}
        self._object(self.pages_id, DictionaryObject({**tree, NameObject("/Count"): NumberObject(len(kids))}))
        outline = self._outline()
        tags = self._tags()
        info_id = self._reserve()
        self._object(info_id, DictionaryObject({NameObject(k): TextStringObject(v) for k, v in info.items()}))
        catalogue = self._reserve()
        self._object(
            catalogue,
            DictionaryObject(
                {
                    NameObject("/Type"): NameObject("/Catalog"),
                    NameObject("/Pages"): _ref(self.pages_id),
                    NameObject("/Outlines"): _ref(outline),
                    NameObject("/PageMode"): NameObject("/UseOutlines"),
                    NameObject("/Lang"): TextStringObject("en"),  # what screen readers read it as
                    **tags,
                }
            ),
        )
        start = self.written
        self._write(f"xref\n0 {len(self.offsets)}\n0000000000 65535 f \n".encode())
        for first in range(1, len(self.offsets), _XREF_LINES):  # a slice at a time, in flat memory
            lines = self.offsets[first : first + _XREF_LINES]
            self._write(b"".join(b"%010d 00000 n \n" % offset for offset in lines))
        trailer = f"trailer\n<< /Size {len(self.offsets)} /Root {catalogue} 0 R /Info {info_id} 0 R >>\n"
        self._write(f"{trailer}startxref\n{start}\n%%EOF\n".encode())
        return len(self.page_ids)
