"""pytest's JUnit file amended without building its tree (issue 35).

The amendment adds the run's suite properties to every suite and, when the gate failed
and no test case did, the failing ``gate`` suite (:mod:`.junit_gate`). An element tree of
a 50,000-case file costs some 300 MB; here expat walks the file once, noting where each
addition goes, and the file is copied with the additions put in, pytest's own bytes
untouched around them. What is added is written as ElementTree writes it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import xml.parsers.expat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .junit_gate import with_gate_case
from .printable import printable

# ElementTree's own escaping, so what is added reads as a whole tree's writing had it.
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTRIBUTE = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\r": "&#13;",
        "\n": "&#10;",
        "\t": "&#09;",
    }
)


def xml_attribute(text: str) -> str:
    return text.translate(_ATTRIBUTE)


def xml_text(text: str) -> str:
    return text.translate(_TEXT)


@dataclass(eq=False)  # each element is itself: compared by identity
class _Element:
    name: str
    start: int  # the offset of its start tag's "<"
    inside: int | None = None  # just after its start tag (None: an empty-element tag)
    end: int | None = None  # its end tag's "<", or just after an empty-element tag
    properties: _Element | None = None  # a suite's first <properties> child


@dataclass
class _Scan:
    suites: list[_Element] = field(default_factory=list)
    root: _Element | None = None
    failing: bool = False  # some <testcase> holds a <failure> or an <error>


def _scan(data: bytes) -> _Scan:
    """Where each suite, its properties and the root start and end; ExpatError if no XML."""
    scan = _Scan()
    stack: list[_Element] = []
    waiting: list[_Element] = []  # elements whose start tag's end the next event gives
    parser = xml.parsers.expat.ParserCreate()

    def settle() -> None:
        for element in waiting:
            element.inside = parser.CurrentByteIndex
        waiting.clear()

    def start(name: str, _attributes: object) -> None:
        settle()
        element = _Element(name, parser.CurrentByteIndex)
        parent = stack[-1] if stack else None
        if parent is None:
            scan.root = element
        if name == "testsuite" and (
            parent is None or (parent is scan.root and parent.name == "testsuites")
        ):
            scan.suites.append(element)
        elif name == "properties" and parent in scan.suites and parent.properties is None:
            parent.properties = element
        elif name in ("failure", "error") and parent is not None and parent.name == "testcase":
            scan.failing = True
        stack.append(element)
        waiting.append(element)

    def end(_name: str) -> None:
        element = stack.pop()
        if element in waiting:  # nothing came between: <x/> or <x></x>
            waiting.remove(element)
            here = parser.CurrentByteIndex  # after "<x/>", or at the "</x>" of <x></x>
            element.inside = None if data[here - 2 : here] == b"/>" else here
        else:
            settle()
        element.end = parser.CurrentByteIndex

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = lambda _text: settle()
    parser.CommentHandler = lambda _text: settle()
    parser.ProcessingInstructionHandler = lambda _target, _data: settle()
    parser.StartCdataSectionHandler = settle
    parser.Parse(data, True)
    return scan


def amended_junit(
    data: bytes, properties: Sequence[tuple[str, str]], reasons: Sequence[str] | None
) -> Iterator[bytes] | None:
    """The file's bytes with ``properties`` on every suite and, when ``reasons`` is given
    (the gate failed) and no case failed, the gate suite; ``None``: nothing to add.
    Raises ``xml.parsers.expat.ExpatError`` for a file that is no XML."""
    scan = _scan(data)
    gate = reasons is not None and not scan.failing
    if (not properties and not gate) or scan.root is None:
        return None
    edits: list[tuple[int, int, bytes]] = []  # replace data[start:stop] with the bytes
    if properties:
        added = "".join(
            f'<property name="{xml_attribute(printable(name))}" '
            f'value="{xml_attribute(printable(value))}" />'
            for name, value in properties
        )
        for suite in scan.suites:
            edits.append(_put_properties(data, suite, added))
    if gate:
        assert reasons is not None
        gate_suite = "".join(
            ET.tostring(element, encoding="unicode")
            for element in with_gate_case(ET.Element("testsuites"), reasons)
        )
        edits.extend(_put_gate(data, scan.root, gate_suite))
    # By place; an insertion before a replacement that starts where it is.
    return _pieces(data, sorted(edits, key=lambda edit: (edit[0], edit[1])))


def _put_properties(data: bytes, suite: _Element, added: str) -> tuple[int, int, bytes]:
    found = suite.properties
    if found is not None:
        assert found.end is not None
        if found.inside is not None:  # before its end tag
            return (found.end, found.end, added.encode())
        return (found.start, found.end, f"<properties>{added}</properties>".encode())
    block = f"<properties>{added}</properties>".encode()
    if suite.inside is not None:  # the schema puts it before the test cases
        return (suite.inside, suite.inside, block)
    return _opened(data, suite, block)


def _put_gate(data: bytes, root: _Element, suite: str) -> list[tuple[int, int, bytes]]:
    assert root.end is not None
    if root.name != "testsuite":  # <testsuites>: the gate suite last in it
        if root.inside is not None:
            return [(root.end, root.end, suite.encode())]
        return [_opened(data, root, suite.encode())]
    # A single-suite file: wrapped in <testsuites> so both suites count.
    after = root.end if root.inside is None else data.index(b">", root.end) + 1
    return [
        (root.start, root.start, b"<testsuites>"),
        (after, after, f"{suite}</testsuites>".encode()),
    ]


def _opened(data: bytes, element: _Element, content: bytes) -> tuple[int, int, bytes]:
    """An empty-element tag ``<x a="1" />`` rewritten as ``<x a="1">content</x>``."""
    assert element.end is not None
    tag = data[element.start : element.end].rstrip()
    tag = tag[: -len(b"/>")].rstrip() if tag.endswith(b"/>") else tag
    return (element.start, element.end, tag + b">" + content + f"</{element.name}>".encode())


def _pieces(data: bytes, edits: list[tuple[int, int, bytes]]) -> Iterator[bytes]:
    view, at = memoryview(data), 0
    for start, stop, replacement in edits:
        yield bytes(view[at:start])
        yield replacement
        at = stop
    yield bytes(view[at:])
