"""Where each field of a loaded case was written, found again only when a message asks.

Only an authoring error raised after loading (a rule that needs the runner) names a
field's own line, and most runs raise none. So a case keeps no table of lines: on the
first question its eval file is read and parsed again, the case found by its position
and first line, and its field lines walked. Every case of a file asks the same parse.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from pathlib import Path

from .errors import AuthoringError
from .yamlload import MarkedDict, MarkedList, load_yaml_text, read_text

# Below these keys is data (a schema, a file's text, a tool's answers), never a field the
# rules after loading name; their own lines are kept.
_DATA_KEYS = frozenset(
    {"files", "json_schema", "input_schema", "parameters", "returns", "contains", "equals"}
)
_MAX_FIELD_LINES = 1_000


def field_lines(raw: object) -> dict[str, int]:
    """The line of each field of a case the rules after loading may name, by field path.

    Four levels deep (``trajectory.call_args[0].tool``), not into data, and at most
    :data:`_MAX_FIELD_LINES` of them: what :meth:`LoadedCase.line_of` looks up.
    """
    lines: dict[str, int] = {}
    pending: list[tuple[object, str, int]] = [(raw, "", 0)]
    while pending and len(lines) < _MAX_FIELD_LINES:
        node, prefix, depth = pending.pop()
        if isinstance(node, MarkedDict):
            for key, line in node.key_lines.items():
                if key not in node:
                    continue
                path = f"{prefix}.{key}" if prefix else key
                lines[path] = line
                child = node[key]
                if (
                    depth < 3
                    and key not in _DATA_KEYS
                    and isinstance(child, MarkedDict | MarkedList)
                ):
                    pending.append((child, path, depth + 1))
        elif isinstance(node, MarkedList):
            for i, line in enumerate(node.item_lines[: len(node)]):
                path = f"{prefix}[{i}]"
                lines[path] = line
                child = node[i]
                if depth < 3 and isinstance(child, MarkedDict | MarkedList):
                    pending.append((child, path, depth + 1))
    return lines


class LinesInFile(Mapping[str, int]):
    """The field lines of the case at ``index`` of a YAML eval file, whose first line is
    ``line``, parsed from the file on first use.

    Empty when the file no longer holds that case there (it changed since it was
    loaded, or cannot be read): :meth:`LoadedCase.line_of` then names the case's own line.
    """

    __slots__ = ("_file", "_index", "_line", "_lines")

    def __init__(self, file: Path, index: int, line: int) -> None:
        self._file, self._index, self._line = file, index, line
        self._lines: dict[str, int] | None = None

    def _read(self) -> dict[str, int]:
        if self._lines is None:
            self._lines = _lines_of(self._file, self._index, self._line)
        return self._lines

    def __getitem__(self, path: str) -> int:
        return self._read()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def _lines_of(file: Path, index: int, line: int) -> dict[str, int]:
    try:
        stat = file.stat()
        cases = _cases_of(file, stat.st_mtime_ns, stat.st_size)
    except (OSError, AuthoringError, RecursionError):
        return {}
    raw = cases[index] if index < len(cases) else None
    if not isinstance(raw, MarkedDict) or raw.line != line:
        return {}
    return field_lines(raw)


@functools.lru_cache(maxsize=4)  # the cases of one file ask in a row
def _cases_of(file: Path, _mtime_ns: int, _size: int) -> list[object]:
    data = load_yaml_text(read_text(file), file)
    cases = data.get("cases") if isinstance(data, dict) else None
    return cases if isinstance(cases, list) else []
