"""Strict YAML for eval files: libyaml parses, we construct.

libyaml (``CSafeLoader``) composes the node tree in C and keeps every node's
mark, so line numbers survive at little cost. Our own construction then
applies the eval-file rules PyYAML's constructors would get wrong:

* only ``true``/``false`` are booleans; ``yes``/``no``/``on``/``off`` stay strings;
* a date stays a string (a task may mention one);
* a duplicate mapping key is an error, never a silent overwrite;
* a recursive alias is an error, never a crash;
* aliases may add at most :data:`ALIAS_EXPANSION_LIMIT` to the file's expanded size,
  so nested aliases (a "billion laughs") are refused instead of multiplying.

Mappings come back as :class:`MarkedDict`, lists as :class:`MarkedList`, both
carrying the 1-based line where they start and, for mappings, of each key.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

from ..gcpause import gc_paused
from .errors import AuthoringError, Where
from .quoting import shown
from .regular_files import read_regular
from .yaml_messages import explained

try:  # libyaml is the fast path; the pure-Python parser gives the same nodes.
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

_PLAIN = "tag:skill-lens,plain"  # an untagged, unquoted scalar: typed by _scalar below

ALIAS_EXPANSION_LIMIT = 10_000_000
"""How much expanding its aliases may add to one file, in characters: each text counts
its length, each other value 1. Construction shares an aliased value, but anything
that writes it out (evidence, a report, a provider request) pays for every copy."""


class _Loader(_BaseLoader):
    """Skips YAML 1.1 implicit typing (a regex walk per scalar); we type scalars ourselves."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]

    # The composer asks these around every node, for path resolvers we never register.
    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


_INT = re.compile(r"[-+]?[0-9][0-9_]*\Z")
_INT_OTHER = re.compile(r"[-+]?0(x[0-9a-fA-F_]+|o[0-7_]+|b[01_]+)\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?\Z")
_SPECIAL_FLOAT = {
    ".inf": float("inf"),
    "+.inf": float("inf"),
    "-.inf": float("-inf"),
    ".nan": float("nan"),
}

_STR = "tag:yaml.org,2002:str"
_TAGS_INT = "tag:yaml.org,2002:int"
_TAGS_FLOAT = "tag:yaml.org,2002:float"
_TAGS_BOOL = "tag:yaml.org,2002:bool"
_TAGS_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"
_EXPLICIT: dict[str, tuple[type, ...]] = {
    _TAGS_BOOL: (bool,),
    _TAGS_INT: (int,),
    _TAGS_FLOAT: (float, int),
    _TAGS_NULL: (type(None),),
}


class MarkedDict(dict[str, Any]):
    """A mapping that remembers where it, and each of its keys, started."""

    __slots__ = ("key_lines", "line")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.key_lines: dict[str, int] = {}


class MarkedList(list[Any]):
    """A sequence that remembers where it started and where each item did."""

    __slots__ = ("item_lines", "line")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.item_lines: list[int] = []


def _scalar(node: yaml.ScalarNode) -> Any:
    text: str = node.value
    tag = node.tag
    if node.style:
        return text  # quoted or block: always a string
    if tag == _PLAIN:
        return _plain(text)
    if tag == _STR:
        return text
    wanted = _EXPLICIT.get(tag)
    if wanted is not None:
        # An explicit !!bool/!!int/!!float/!!null types by the same rules as a plain
        # scalar, and keeps the text when it does not spell that type.
        value = _plain(text)
        if type(value) in wanted:
            return float(value) if tag == _TAGS_FLOAT else value
        return text
    return text  # timestamps, binary and unknown implicit tags stay text


_NULL_WORDS = {"", "~", "null", "Null", "NULL"}
_TRUE_WORDS = {"true", "True", "TRUE"}
_FALSE_WORDS = {"false", "False", "FALSE"}


def _plain(text: str) -> Any:
    """Type a plain scalar: only true/false are booleans; yes/no/on/off and dates stay text."""
    if text in _TRUE_WORDS:
        return True
    if text in _FALSE_WORDS:
        return False
    if text in _NULL_WORDS:
        return None
    first = text[:1]
    if first.isdigit() or first in "+-.":
        if _INT.match(text):
            return int(text.replace("_", ""))  # past 4,300 digits: ValueError, see _Builder
        if _INT_OTHER.match(text):
            return int(text.replace("_", ""), 0)
        lowered = text.lower()
        if lowered in _SPECIAL_FLOAT:
            return _SPECIAL_FLOAT[lowered]
        if _FLOAT.match(text):
            return float(text.replace("_", ""))
    return text


_SHARED_TEXT = 40  # a scalar up to this long is likely to repeat: see _Builder.scalar


class _Builder:
    def __init__(self, file: Path, *, aliased: bool = True) -> None:
        self.file = file
        # Whether the text may hold an alias ('*'); without one every node is met once.
        self.aliased = aliased
        self.done: dict[int, Any] = {}
        self.active: set[int] = set()
        # Where the builder is: (key or index, node) per level, for messages.
        self.trail: list[tuple[str | int, yaml.Node]] = []
        # For check_aliases: each node's expanded size, the nodes being weighed, and
        # how much the aliases met so far have added.
        self._sizes: dict[int, int] = {}
        self._open: set[int] = set()
        self._added = 0

    def where(self, line: int, last: str | int | None = None) -> Where:
        """``line`` in the file, with the case and field when the trail is inside ``cases:``."""
        parts: list[str | int] = [part for part, _ in self.trail]
        if last is not None:
            parts.append(last)
        case_index: int | None = None
        case_name: str | None = None
        if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
            case_index = parts[1]
            case_node = self.trail[1][1]
            if isinstance(case_node, yaml.MappingNode):
                for key_node, value_node in case_node.value:
                    if key_node.value == "name" and isinstance(value_node, yaml.ScalarNode):
                        case_name = value_node.value
            parts = parts[2:]
        field = ""
        for part in parts:
            field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else part)
        return Where(self.file, line, case_name, case_index, field or None)

    def check_aliases(self, root: yaml.Node) -> None:
        """Refuse a tree whose aliases would expand it by more than the limit.

        The composer hands back the anchored node itself for an alias, so a node met
        a second time is an alias; its expanded size is memoised, and the walk costs
        one visit per node whatever the expansion.
        """
        self._weigh(root, root.start_mark.line + 1)

    def _weigh(self, node: yaml.Node, line: int) -> int:
        """The expanded size of ``node``; ``line`` is where its parent starts."""
        key = id(node)
        size = self._sizes.get(key)
        if size is not None:
            self._added += size
            if self._added > ALIAS_EXPANSION_LIMIT:
                raise AuthoringError(
                    f"aliases expand this file by more than {ALIAS_EXPANSION_LIMIT:,} "
                    "characters (nested aliases multiply: an alias bomb)",
                    where=self.where(line),
                    fix="write the repeated value out, or alias it fewer times; "
                    "share tools between files with tool_libraries:",
                )
            return size
        if key in self._open:
            return 0  # a recursive alias: build() refuses it with its own message
        if isinstance(node, yaml.ScalarNode):
            size = max(len(node.value), 1)
        else:
            self._open.add(key)
            here = node.start_mark.line + 1
            size = 1
            if isinstance(node, yaml.SequenceNode):
                for i, item in enumerate(node.value):
                    self.trail.append((i, item))
                    size += self._weigh(item, here)
                    self.trail.pop()
            else:
                for key_node, value_node in node.value:
                    size += self._weigh(key_node, here)
                    name = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                    self.trail.append((name, value_node))
                    size += self._weigh(value_node, here)
                    self.trail.pop()
            self._open.discard(key)
        self._sizes[key] = size
        return size

    def scalar(self, node: yaml.ScalarNode, last: str | int | None = None) -> Any:
        try:
            value = _scalar(node)
        except ValueError:  # an integer past Python's 4,300-digit limit for int()
            raise AuthoringError(
                f"the number {shown(node.value, 40)} has more digits than Python reads "
                f"({len(node.value):,})",
                where=self.where(node.start_mark.line + 1, last),
                fix="quote it if it is text; no count or limit needs that many digits",
            ) from None
        if type(value) is str and len(value) <= _SHARED_TEXT:
            # Tags, kinds, tool and file names repeat across thousands of cases, and every
            # case keeps its strings until its run is over: one copy each.
            return sys.intern(value)
        return value

    def build(self, node: yaml.Node) -> Any:
        if type(node) is yaml.ScalarNode:  # immutable: an aliased scalar needs no memo
            return self.scalar(node)
        if not self.aliased:  # no node is met twice: nothing to share, nothing recursive
            return self._container(node)
        key = id(node)
        if key in self.done:
            return self.done[key]
        if key in self.active:
            raise AuthoringError(
                "an alias refers to the node that contains it (a recursive anchor)",
                where=self.where(node.start_mark.line + 1),
                fix="remove the self-referencing alias",
            )
        self.active.add(key)
        try:
            value = self._container(node)
        finally:
            self.active.discard(key)
        self.done[key] = value
        return value

    def _container(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node)
        if isinstance(node, yaml.SequenceNode):
            seq = MarkedList(node.start_mark.line + 1)
            for i, item in enumerate(node.value):
                seq.item_lines.append(item.start_mark.line + 1)
                if type(item) is yaml.ScalarNode:  # the common case, kept off the trail
                    seq.append(self.scalar(item, i))
                    continue
                self.trail.append((i, item))
                seq.append(self.build(item))
                self.trail.pop()
            return seq
        raise AssertionError(type(node))  # pragma: no cover - the composer makes no other

    def _mapping(self, node: yaml.MappingNode) -> MarkedDict:
        out = MarkedDict(node.start_mark.line + 1)
        from_merge: set[str] = set()  # keys a '<<' supplied: an explicit key overrides them
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if key_node.tag == _MERGE or (key_node.tag == _PLAIN and key_node.value == "<<"):
                merged = self.build(value_node)
                sources = merged if isinstance(merged, list) else [merged]
                for source in sources:
                    if isinstance(source, dict):
                        for k, v in source.items():
                            if k not in out:
                                out[k] = v
                                out.key_lines[k] = line
                                from_merge.add(k)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise AuthoringError(
                    "a mapping key must be plain text, not a list or a mapping",
                    where=self.where(line),
                    fix="write the key as plain text; quote it if it starts with '[' or '{'",
                )
            k = key_node.value
            if k in from_merge:
                from_merge.discard(k)
            elif k in out.key_lines:
                raise AuthoringError(
                    f"duplicate key {shown(k)} (first on line {out.key_lines[k]})",
                    where=self.where(line, k),
                    fix="keep one of the two; YAML would silently keep only the last",
                )
            out.key_lines[k] = line
            if type(value_node) is yaml.ScalarNode:  # the common case, kept off the trail
                out[k] = self.scalar(value_node, k)
                continue
            self.trail.append((k, value_node))
            out[k] = self.build(value_node)
            self.trail.pop()
        return out


def load_yaml_text(text: str, file: Path) -> Any:
    """Parse one YAML document from ``text``; ``file`` is only used in messages."""
    with gc_paused():  # the node tree is acyclic and short-lived
        return _load_yaml_text(text, file)


def _load_yaml_text(text: str, file: Path) -> Any:
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        line = mark.line + 1 if mark else None
        problem, fix = explained(problem, text, line, mark.column if mark else 0)
        raise AuthoringError(
            f"not valid YAML: {problem}", where=Where(file, line), fix=fix
        ) from None
    except yaml.YAMLError as exc:
        raise AuthoringError(
            f"not valid YAML: {exc}", where=Where(file), fix="save the file as plain YAML text"
        ) from None
    if node is None:
        return None
    builder = _Builder(file, aliased="*" in text)
    try:
        if "&" in text and "*" in text:  # no anchor or no alias: nothing can expand
            builder.check_aliases(node)
        return builder.build(node)
    except RecursionError:
        raise too_deep(file) from None


def too_deep(file: Path) -> AuthoringError:
    """A file nested deeper than Python's own recursion can follow."""
    return AuthoringError(
        "values are nested too deeply to be read (hundreds of levels)",
        where=Where(file),
        fix="flatten the nesting; no eval file needs values nested this deep",
    )


def read_text(file: Path) -> str:
    """Read a UTF-8 text file, naming it in the error when it cannot be read."""
    try:
        data = read_regular(file)  # never opens a FIFO or a device
    except OSError as exc:
        raise AuthoringError(
            f"cannot read the file: {exc.strerror or exc}",
            where=Where(file),
            fix="make the file readable",
        ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AuthoringError(
            f"not valid UTF-8 text (byte {exc.start})",
            where=Where(file),
            fix="save the file as UTF-8",
        ) from None


def load_yaml_file(file: Path) -> Any:
    return load_yaml_text(read_text(file), file)
