"""Load a skill's eval files into checked cases."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import AuthoringError, Where
from .evals_json import load_evals_json
from .loaded import LoadedCase, SkillSuite
from .model import EvalCase
from .parse_cache import ParseCache
from .rules import PLACEHOLDER, Fail, check_case, check_placeholder
from .skill import Skill
from .tool_libraries import ToolLibraries
from .tool_rules import check_raw_returns
from .validation import authoring_error_from, line_at, parse_field_path
from .yamlload import MarkedDict, load_yaml_text, read_text, too_deep


def load_suite(skill: Skill, eval_files: list[Path], cache: ParseCache | None = None) -> SkillSuite:
    cases: list[LoadedCase] = []
    for path in eval_files:
        try:
            if path.suffix == ".json":
                cases.extend(load_evals_json(path, skill))
            else:
                cases.extend(load_yaml_eval_file(path, skill.name, cache))
        except RecursionError:  # a schema or a value nested hundreds of levels deep
            raise too_deep(path) from None
    check_unique_names(cases)
    return SkillSuite(skill=skill, eval_files=tuple(eval_files), cases=tuple(cases))


def load_yaml_eval_file(
    path: Path, skill_name: str | None = None, cache: ParseCache | None = None
) -> list[LoadedCase]:
    text = read_text(path)
    # A file importing tool libraries depends on other files: never cached.
    if cache is None or skill_name is None or "tool_libraries" in text:
        return _parse_yaml_eval_file(path, text, skill_name)
    cached = cache.get(path, skill_name, text)
    if cached is not None:
        return cached
    cases = _parse_yaml_eval_file(path, text, skill_name)
    cache.put(path, skill_name, text, cases)
    return cases


def _parse_yaml_eval_file(path: Path, text: str, skill_name: str | None) -> list[LoadedCase]:
    data = load_yaml_text(text, path)
    if not isinstance(data, dict) or "cases" not in data:
        raise AuthoringError(
            "an eval file needs a top-level 'cases:' list",
            where=Where(path, getattr(data, "line", None)),
            fix="put the cases under 'cases:', each starting with '- name: ...'",
        )
    raw_cases = data["cases"]
    if not isinstance(raw_cases, list):
        raise AuthoringError(
            "'cases:' must be a list",
            where=Where(path, getattr(raw_cases, "line", None), field="cases"),
            fix="start each case with '- name: ...'",
        )
    # Most files hold no placeholder at all; only walk the cases of one that might.
    scan = PLACEHOLDER in text
    if scan:
        # Every case is scanned before any library is imported: an unfilled
        # scaffold is reported as such, not as the broken import it also holds.
        libraries_line = (
            data.key_lines.get("tool_libraries") if isinstance(data, MarkedDict) else None
        )
        check_placeholder(
            {"tool_libraries": data.get("tool_libraries")}, Where(path, libraries_line)
        )
        for i, raw in enumerate(raw_cases):
            if isinstance(raw, MarkedDict):
                name = raw.get("name")
                check_placeholder(
                    raw, Where(path, raw.line, name if isinstance(name, str) else None, i)
                )
    libraries = ToolLibraries(path, data.get("tool_libraries"))
    cases = [_load_case(raw, path, i, skill_name, libraries) for i, raw in enumerate(raw_cases)]
    if "tool_libraries" in data:
        libraries.tools()  # an import no case refers to is checked all the same
    return cases


def _load_case(
    raw: Any, path: Path, index: int, skill_name: str | None, libraries: ToolLibraries
) -> LoadedCase:
    line = getattr(raw, "line", None)
    name = raw.get("name") if isinstance(raw, dict) else None
    where = Where(path, line, name if isinstance(name, str) else None, index)
    if not isinstance(raw, MarkedDict):
        raise AuthoringError(
            "a case must be a mapping of keys",
            where=where,
            fix="start the case with '- name: ...' and indent its keys under it",
        )
    if "tools" in raw:
        tools = libraries.resolve(raw["tools"], where)
        if tools is not raw["tools"]:
            resolved = MarkedDict(raw.line)
            resolved.update(raw)
            resolved.key_lines.update(raw.key_lines)
            resolved["tools"] = tools
            raw = resolved
        check_raw_returns(raw["tools"], _failer(where))
    try:
        case = EvalCase.model_validate(raw)
    except ValidationError as exc:
        raise authoring_error_from(exc, EvalCase, raw, where) from None
    try:
        check_case(case, where, skill_name)
    except AuthoringError as exc:
        # Point at the field's own line rather than the case's first line.
        line = line_at(raw, parse_field_path(exc.where.field or "")) or exc.where.line
        raise AuthoringError(
            exc.problem, where=replace(exc.where, line=line), fix=exc.fix
        ) from None
    return LoadedCase(case=case, file=path, line=line or 1, index=index)


def _failer(where: Where) -> Fail:
    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        return AuthoringError(
            problem,
            where=Where(where.file, where.line, where.case_name, where.case_index, field),
            fix=fix,
        )

    return fail


def check_unique_names(cases: list[LoadedCase]) -> None:
    """Case names are unique per skill, ignoring letter case, across all its files."""
    seen: dict[str, LoadedCase] = {}
    for loaded in cases:
        key = loaded.name.casefold()
        first = seen.get(key)
        if first is not None:
            raise AuthoringError(
                f"the case name {loaded.name!r} repeats {first.name!r} "
                f"({first.file}:{first.line}, case #{first.index + 1}); "
                "names are compared ignoring letter case",
                where=Where(loaded.file, loaded.line, loaded.name, loaded.index, "name"),
                fix="rename one of the two cases",
            )
        seen[key] = loaded
