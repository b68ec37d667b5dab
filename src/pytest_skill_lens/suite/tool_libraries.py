"""Shared mock tools: ``tool_libraries:`` imports and ``ref:`` entries.

A library owns a tool's contract (name, description, schema); a case that
names it with ``ref:`` owns only the scenario (``returns:``). After resolution
a case is exactly what it would be with the library's block pasted in, and no
runner ever sees a reference.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import AuthoringError, Where, combined
from .mistakes import gather
from .model import ToolSpec
from .quoting import shown
from .regular_files import eval_like_files, not_regular, special_kind
from .rules import placeholder_errors
from .tool_rules import Fail, tool_errors
from .validation import authoring_error_from
from .yamlload import MarkedDict, load_yaml_file

_REF_KEYS = {"ref", "returns"}


class ToolLibraries:
    """The libraries one eval file imports, loaded on first use."""

    def __init__(self, eval_file: Path, entries: Any) -> None:
        self.eval_file = eval_file
        self.entries = entries
        self._tools: dict[str, tuple[dict[str, Any], Path]] | None = None
        self._sources: tuple[Path, ...] = ()

    def sources(self) -> tuple[Path, ...]:
        """The files and directories imported, resolved (loading them first): what a run reads."""
        self.tools()
        return self._sources

    def tools(self) -> dict[str, tuple[dict[str, Any], Path]]:
        if self._tools is None:
            self._tools = self._load()
        return self._tools

    def _load(self) -> dict[str, tuple[dict[str, Any], Path]]:
        files = self._files()
        found: dict[str, tuple[dict[str, Any], Path]] = {}
        for file in files:
            for name, raw in _load_library(file, self.eval_file).items():
                if name in found:
                    raise AuthoringError(
                        f"tool {shown(name)} is declared by two imported libraries: "
                        f"{found[name][1]} and {file}",
                        where=Where(self.eval_file, field="tool_libraries"),
                        fix="remove one declaration, or import only one of the libraries",
                    )
                found[name] = (raw, file)
        return found

    def _files(self) -> list[Path]:
        where = Where(self.eval_file, getattr(self.entries, "line", None), field="tool_libraries")
        if not isinstance(self.entries, list) or not all(isinstance(e, str) for e in self.entries):
            raise AuthoringError(
                f"tool_libraries: must be a list of paths, got {shown(self.entries)}",
                where=where,
                fix="write tool_libraries: [../shared/tools.yaml], one path per entry",
            )
        base = self.eval_file.parent
        files: list[Path] = []
        sources: list[Path] = []
        for entry in self.entries:
            if not entry.strip() or entry.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", entry):
                raise AuthoringError(
                    f"library path {shown(entry)} must be relative to the eval file",
                    where=where,
                    fix="write it relative to the eval file's directory, e.g. ../shared/tools.yaml",
                )
            target = (base / entry).resolve()
            if target.is_dir():
                found = _listed(target, self.eval_file)
                if not found:
                    raise AuthoringError(
                        f"library directory {shown(entry)} holds no .yaml/.yml file",
                        where=where,
                        fix="point the entry at a library file, or add one to the directory",
                    )
            elif target.is_file():
                found = [target]
            elif special_kind(target) is not None:
                raise _imported(not_regular(target), self.eval_file)  # never opened
            else:
                raise AuthoringError(
                    f"library {shown(entry)} does not exist (looked for {target})",
                    where=where,
                    fix="write the path relative to the eval file's own directory",
                )
            for path in found:
                if path in files:
                    raise AuthoringError(
                        f"library {path} is imported twice",
                        where=where,
                        fix="list each library once (a directory entry already imports its files)",
                    )
                files.append(path)
            sources.append(target)  # a directory, so a library added to it is seen too
        self._sources = tuple(sources)
        return files

    def resolve(self, raw_tools: Any, where: Where) -> Any:
        """``raw_tools`` with every ``ref:`` entry replaced by its library tool (new objects).

        Each entry is resolved on its own; the mistakes of all of them are raised together.
        """
        if not isinstance(raw_tools, list) or not any(
            isinstance(t, dict) and "ref" in t for t in raw_tools
        ):
            return raw_tools
        resolved: list[Any] = []
        errors: list[AuthoringError] = []
        for i, raw in enumerate(raw_tools):
            if not (isinstance(raw, dict) and "ref" in raw):
                resolved.append(raw)
                continue
            with gather(errors):
                resolved.append(self._resolved(raw, f"tools[{i}]", where))
        if errors:
            raise combined(errors)
        return resolved

    def _resolved(self, raw: dict[str, Any], field: str, where: Where) -> MarkedDict:
        extra = sorted(set(raw) - _REF_KEYS)
        if extra:
            raise _at(
                where,
                f"{field}.{extra[0]}",
                f"a ref: entry may set only returns:, not {shown(extra[0])}",
                "declare the tool inline if the case needs a different contract",
            )
        name = raw["ref"]
        if not isinstance(name, str):
            raise _at(
                where,
                f"{field}.ref",
                f"ref: must name a library tool, got {shown(name)}",
                "write ref: <the tool's name in the library>",
            )
        if self.entries is None:
            raise _at(
                where,
                f"{field}.ref",
                f"ref: {shown(name)} needs a tool library, but the eval file has no "
                "tool_libraries: key",
                "add tool_libraries: [path/to/library.yaml] beside cases:",
            )
        library = self.tools()
        if name not in library:
            known = ", ".join(sorted(library)) or "none"
            guess = difflib.get_close_matches(name, list(library), n=1)
            fix = "fix the spelling, or import the library that declares it"
            raise _at(
                where,
                f"{field}.ref",
                f"no imported library declares {shown(name)} (declared: {known})",
                f"did you mean {guess[0]!r}? otherwise {fix}" if guess else fix,
            )
        tool = MarkedDict(getattr(raw, "line", 0) or 0)
        tool.update(library[name][0])
        if "returns" in raw:
            tool["returns"] = raw["returns"]
        return tool


def _at(where: Where, field: str, problem: str, fix: str | None) -> AuthoringError:
    return AuthoringError(
        problem,
        where=Where(where.file, where.line, where.case_name, where.case_index, field),
        fix=fix,
    )


def _listed(directory: Path, importer: Path) -> list[Path]:
    """A library directory's YAML files; one that is a FIFO or a device is refused."""
    try:
        return eval_like_files(directory, lambda name: Path(name).suffix in (".yaml", ".yml"))
    except AuthoringError as exc:
        raise _imported(exc, importer) from None


def _imported(exc: AuthoringError, importer: Path) -> AuthoringError:
    """Each of ``exc``'s mistakes, saying which eval file imported the library."""
    return combined(
        [
            AuthoringError(
                f"{one.problem} (in a tool library imported by {importer})",
                where=one.where,
                fix=one.fix,
            )
            for one in exc.each
        ]
    )


def _load_library(file: Path, importer: Path) -> dict[str, dict[str, Any]]:
    try:
        return _parse_library(file)
    except AuthoringError as exc:
        raise _imported(exc, importer) from None


def _parse_library(file: Path) -> dict[str, dict[str, Any]]:
    data = load_yaml_file(file)
    if not isinstance(data, dict) or set(data) != {"tools"} or not isinstance(data["tools"], list):
        raise AuthoringError(
            "a tool library holds one top-level tools: list and nothing else",
            where=Where(file),
            fix="keep only the tools: list; move any other key to the eval files",
        )
    tools: dict[str, dict[str, Any]] = {}
    specs: list[tuple[int, ToolSpec]] = []  # with each tool's position in the library
    errors: list[AuthoringError] = []
    for i, raw in enumerate(data["tools"]):
        where = Where(file, getattr(raw, "line", None), field=f"tools[{i}]")
        unfilled = placeholder_errors(raw, where)
        if unfilled:
            errors += unfilled
            continue
        with gather(errors):
            spec = _library_tool(raw, i, where)
            if spec.name in tools:
                raise AuthoringError(
                    f"the library declares {shown(spec.name)} twice",
                    where=where,
                    fix="keep one declaration of the tool",
                )
            tools[spec.name] = raw
            specs.append((i, spec))
    for position, spec in specs:  # names are unique by now: each tool's rules on its own
        fail = _failer(file, position)
        errors += tool_errors([spec], workspace=False, offered_name=None, fail=fail)
    if errors:
        raise combined(errors)
    return tools


def _failer(file: Path, position: int) -> Fail:
    """Errors at the tool's own position in the library (the rules number it ``tools[0]``)."""

    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        field = f"tools[{position}]" + field.removeprefix("tools[0]")
        return AuthoringError(problem, where=Where(file, field=field), fix=fix)

    return fail


def _library_tool(raw: Any, i: int, where: Where) -> ToolSpec:
    if not isinstance(raw, dict):
        raise AuthoringError(
            f"a library tool must be a mapping, got {shown(raw)}",
            where=where,
            fix="start each tool with '- name: ...' and indent its keys under it",
        )
    try:
        return ToolSpec.model_validate(raw)
    except ValidationError as exc:
        raise authoring_error_from(exc, ToolSpec, raw, where, prefix=f"tools[{i}]") from None
