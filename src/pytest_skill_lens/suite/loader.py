"""Load a skill's eval files into checked cases.

Every independent mistake is reported in one run (:mod:`.mistakes`): a file that
cannot be read as a whole (its YAML, its ``cases:`` list) stops there, and the
other files are still read; in a file, each case is checked on its own.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import AuthoringError, Where, combined
from .evals_json import read_evals_json
from .field_lines import LinesInFile
from .loaded import LoadedCase, SkillSuite
from .mistakes import Mistakes
from .model import EvalCase
from .parse_cache import ParseCache
from .quoting import shown
from .rules import PLACEHOLDER, Fail, case_errors, placeholder_errors
from .skill import Skill
from .skill_md_errors import offered_without_description
from .tool_libraries import ToolLibraries
from .tool_rules import raw_returns_errors
from .validation import authoring_errors_from, line_at, parse_field_path
from .yamlload import MarkedDict, load_yaml_text, read_text, too_deep


def load_suite(skill: Skill, eval_files: list[Path], cache: ParseCache | None = None) -> SkillSuite:
    """The skill's cases; every mistake found in its files is raised together."""
    suite, errors = gather_suite(skill, eval_files, cache)
    if errors:
        raise combined(errors)
    return suite


def gather_suite(
    skill: Skill, eval_files: list[Path], cache: ParseCache | None = None
) -> tuple[SkillSuite, list[AuthoringError]]:
    """The cases that loaded, and every mistake of every file.

    With no mistake the suite is whole. With one, it holds every case whose shape was
    right, some of which may break a rule: only for the checks that follow loading
    (the runner-dependent rules), so their mistakes are reported in the same run.
    """
    cases: list[LoadedCase] = []
    mistakes = Mistakes()
    for path in eval_files:
        try:
            if path.suffix == ".json":
                loaded, errors = read_evals_json(path, skill)
            else:
                loaded, errors = read_yaml_eval_file(path, skill.name, cache)
        except RecursionError:  # a schema or a value nested hundreds of levels deep
            loaded, errors = [], [too_deep(path)]
        cases.extend(loaded)
        for error in errors:
            mistakes.add(error)
    for error in unique_name_errors(cases):
        mistakes.add(error)
    offered = offered_without_description(
        skill.path, skill.description, skill.key_lines.get("description"), cases
    )
    if offered is not None:
        mistakes.add(offered)
    suite = SkillSuite(skill=skill, eval_files=tuple(eval_files), cases=tuple(cases))
    return suite, mistakes.found


def load_yaml_eval_file(
    path: Path, skill_name: str | None = None, cache: ParseCache | None = None
) -> list[LoadedCase]:
    """One YAML eval file's cases; its mistakes are raised together."""
    cases, errors = read_yaml_eval_file(path, skill_name, cache)
    if errors:
        raise combined(errors)
    return cases


def read_yaml_eval_file(
    path: Path, skill_name: str | None = None, cache: ParseCache | None = None
) -> tuple[list[LoadedCase], list[AuthoringError]]:
    """The cases of one YAML eval file that loaded, and its mistakes."""
    try:
        text = read_text(path)
    except AuthoringError as exc:
        return [], [exc]
    # A file importing tool libraries depends on other files: never cached.
    cacheable = cache is not None and skill_name is not None and "tool_libraries" not in text
    if cacheable:
        assert cache is not None and skill_name is not None
        cached = cache.get(path, skill_name, text)
        if cached is not None:
            return cached, []
    try:
        cases, errors = _parse_yaml_eval_file(path, text, skill_name)
    except AuthoringError as exc:  # the file cannot be read as a whole
        return [], [exc]
    if cacheable and not errors:  # a file with a mistake is read afresh every time
        assert cache is not None and skill_name is not None
        cache.put(path, skill_name, text, cases)
    return cases, errors


def _parse_yaml_eval_file(
    path: Path, text: str, skill_name: str | None
) -> tuple[list[LoadedCase], list[AuthoringError]]:
    data = load_yaml_text(text, path)
    if not isinstance(data, dict) or "cases" not in data:
        raise _no_cases(path, data)
    raw_cases = data["cases"]
    if not isinstance(raw_cases, list):
        raise AuthoringError(
            "'cases:' must be a list",
            where=Where(path, getattr(raw_cases, "line", None), field="cases"),
            fix="start each case with '- name: ...'",
        )
    mistakes = Mistakes()
    # A case still holding the placeholder is unfinished: its placeholders are reported
    # and nothing else of it (every other rule on a scaffold would be noise).
    unfinished: set[int] = set()
    libraries_broken = False
    if PLACEHOLDER in text:  # most files hold none: only then walk the cases
        libraries_line = (
            data.key_lines.get("tool_libraries") if isinstance(data, MarkedDict) else None
        )
        for error in placeholder_errors(
            data.get("tool_libraries"), Where(path, libraries_line, field="tool_libraries")
        ):
            libraries_broken = True
            mistakes.add(error)
        for i, raw in enumerate(raw_cases):
            if isinstance(raw, MarkedDict):
                name = raw.get("name")
                where = Where(path, raw.line, name if isinstance(name, str) else None, i)
                for error in placeholder_errors(raw, where):
                    unfinished.add(i)
                    mistakes.add(error)
    libraries = ToolLibraries(path, data.get("tool_libraries"))
    if "tool_libraries" in data and not libraries_broken:
        # Imported before the cases (an import no case refers to is checked all the same),
        # after the placeholder scan: an unfilled scaffold is reported as such.
        try:
            libraries.tools()
        except AuthoringError as exc:
            mistakes.add(exc)
            libraries_broken = True
    imported = libraries.sources() if "tool_libraries" in data and not libraries_broken else ()
    cases: list[LoadedCase] = []
    for i, raw in enumerate(raw_cases):
        if i in unfinished or (libraries_broken and _uses_ref(raw)):
            continue  # a ref: into a broken library cannot be judged; its error says why
        loaded = _load_case(raw, path, i, skill_name, libraries, mistakes)
        if loaded is not None:
            cases.append(replace(loaded, libraries=imported) if imported else loaded)
    return cases, mistakes.found


def _no_cases(path: Path, data: Any) -> AuthoringError:
    """No top-level ``cases:``; a key spelt close to it (``case:``) is named with its line."""
    fix = "put the cases under 'cases:', each starting with '- name: ...'"
    keys = {str(key).lower(): str(key) for key in data} if isinstance(data, dict) else {}
    found = difflib.get_close_matches("cases", list(keys), n=1, cutoff=0.7)
    guess = [keys[found[0]]] if found else []
    if not guess:
        return AuthoringError(
            "an eval file needs a top-level 'cases:' list",
            where=Where(path, getattr(data, "line", None)),
            fix=fix,
        )
    lines = data.key_lines if isinstance(data, MarkedDict) else {}
    return AuthoringError(
        f"an eval file needs a top-level 'cases:' list, and this one has {shown(guess[0])}",
        where=Where(path, lines.get(guess[0], getattr(data, "line", None)), field=guess[0]),
        fix=f"did you mean 'cases'? rename {guess[0] + ':'!r} to 'cases:'",
    )


def _uses_ref(raw: Any) -> bool:
    tools = raw.get("tools") if isinstance(raw, dict) else None
    return isinstance(tools, list) and any(isinstance(t, dict) and "ref" in t for t in tools)


def _load_case(
    raw: Any,
    path: Path,
    index: int,
    skill_name: str | None,
    libraries: ToolLibraries,
    mistakes: Mistakes,
) -> LoadedCase | None:
    """The case (``None`` when its shape is broken), its mistakes added: the shape first,
    then the rules.

    A case whose shape is broken reports each broken field; the rules that need more
    than one field run once the shape is right, so one typo never reads as five.
    """
    line = getattr(raw, "line", None)
    name = raw.get("name") if isinstance(raw, dict) else None
    where = Where(path, line, name if isinstance(name, str) else None, index)
    if not isinstance(raw, MarkedDict):
        mistakes.add(
            AuthoringError(
                f"a case must be a mapping of keys, got {_kind(raw)}",
                where=where,
                fix="start the case with '- name: ...' and indent its keys under it",
            )
        )
        return None
    checked = raw
    unresolved = False
    if "tools" in raw:
        try:
            tools = libraries.resolve(raw["tools"], where)
        except AuthoringError as exc:
            for error in exc.each:
                mistakes.add(_at_field(error, raw))
            unresolved = True
            tools = None
        checked = _with_tools(raw, tools)
        before = len(mistakes.found)
        for error in raw_returns_errors(checked.get("tools"), _failer(where)):
            mistakes.add(_at_field(error, checked))
        unresolved = unresolved or len(mistakes.found) > before
    try:
        case = EvalCase.model_validate(checked)
    except ValidationError as exc:
        for error in authoring_errors_from(exc, EvalCase, checked, where):
            mistakes.add(error)
        return None
    if unresolved:
        return None  # the other fields' shapes were checked; the rules need the tools
    for error in case_errors(case, where, skill_name):
        mistakes.add(_at_field(error, checked))
    # A case refused by a rule is still returned: the rules that need the runner run on it
    # too, so they are reported in the same run (with a mistake, no case of the file runs).
    line = line or 1
    return LoadedCase(
        case=case, file=path, line=line, index=index, field_lines=LinesInFile(path, index, line)
    )


def _at_field(error: AuthoringError, raw: Any) -> AuthoringError:
    """``error`` at its field's own line rather than the case's first line."""
    line = line_at(raw, parse_field_path(error.where.field or ""))
    if not line or line == error.where.line:
        return error
    return AuthoringError(error.problem, where=replace(error.where, line=line), fix=error.fix)


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (a '-' with no keys under it)"
    return shown(value)


def _with_tools(raw: MarkedDict, tools: Any) -> MarkedDict:
    """``raw`` with its ``tools:`` replaced (resolved refs), or dropped when ``tools`` is None."""
    if tools is raw["tools"]:
        return raw
    copy = MarkedDict(raw.line)
    copy.update(raw)
    copy.key_lines.update(raw.key_lines)
    if tools is None:
        del copy["tools"]
    else:
        copy["tools"] = tools
    return copy


def _failer(where: Where) -> Fail:
    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        return AuthoringError(
            problem,
            where=Where(where.file, where.line, where.case_name, where.case_index, field),
            fix=fix,
        )

    return fail


def unique_name_errors(cases: list[LoadedCase]) -> list[AuthoringError]:
    """An error for each case whose name repeats an earlier one's, ignoring letter case."""
    seen: dict[str, LoadedCase] = {}
    errors: list[AuthoringError] = []
    for loaded in cases:
        key = loaded.name.casefold()
        first = seen.get(key)
        if first is None:
            seen[key] = loaded
            continue
        errors.append(
            AuthoringError(
                f"the case name {shown(loaded.name)} repeats {shown(first.name)} "
                f"({first.file}:{first.line}, case #{first.index + 1}); "
                "names are compared ignoring letter case",
                where=Where(loaded.file, loaded.line, loaded.name, loaded.index, "name"),
                fix="rename one of the two cases",
            )
        )
    return errors
