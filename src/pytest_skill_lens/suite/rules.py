"""Authoring rules that span several fields of one case.

Each rule raises :class:`AuthoringError` naming the field and the fix. The
loader runs them on every case as it loads, before anything is spent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .errors import AuthoringError, Where, combined
from .judge_rules import check_judge
from .mistakes import gather
from .model import Assertion, EvalCase
from .names import check_case_name, other_names
from .paths import has_wildcard, path_problem, pattern_problem, segment_match
from .product_config import config_path_problem
from .quoting import naming, shown
from .regex_rules import regex_problem
from .schemas import schema_problem, unsafe_part
from .tool_rules import BUILTIN_TOOLS, offered_tool_name, tool_errors
from .validation import field_path, line_at

PLACEHOLDER = "TODO(skill-lens)"
_PRODUCT_CONFIG_FIX = (
    "seed the workspace with the files the skill works on; skill-lens gives each product "
    "its configuration itself (docs/security.md, Product configuration)"
)
Fail = Callable[[str, str, str | None], AuthoringError]


def _joined(path: str, loc: tuple[int | str, ...]) -> str:
    field = field_path(loc)
    if path and field:
        return f"{path}{field}" if field.startswith("[") else f"{path}.{field}"
    return path or field


def _walk_text(
    value: Any, loc: tuple[int | str, ...], seen: set[int]
) -> Iterator[tuple[tuple[int | str, ...], str]]:
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        if id(value) in seen:
            return
        seen.add(id(value))
        for key, item in value.items():
            sub = (*loc, str(key))
            yield sub, str(key)
            yield from _walk_text(item, sub, seen)
    elif isinstance(value, list):
        if id(value) in seen:
            return
        seen.add(id(value))
        for i, item in enumerate(value):
            yield from _walk_text(item, (*loc, i), seen)


def placeholder_errors(raw: Any, where: Where) -> list[AuthoringError]:
    """An error per field of ``raw`` still holding ``TODO(skill-lens)``, each at its own line.

    A value and the key above it are one place: the key's line is reported once.
    """
    errors: list[AuthoringError] = []
    reported: set[tuple[int | str, ...]] = set()
    for loc, text in _walk_text(raw, (), set()):
        if PLACEHOLDER not in text or loc in reported:
            continue
        reported.add(loc)
        field = _joined(where.field or "", loc) or "(top level)"
        errors.append(
            AuthoringError(
                f"still holds the placeholder {PLACEHOLDER}",
                where=Where(
                    where.file,
                    line_at(raw, loc) or where.line,
                    where.case_name,
                    where.case_index,
                    field,
                ),
                fix="replace it with the real value; an unfilled scaffold would check nothing",
            )
        )
    return errors


def check_placeholder(raw: Any, where: Where) -> None:
    """Raise the placeholder errors of ``raw``, if it holds any."""
    errors = placeholder_errors(raw, where)
    if errors:
        raise combined(errors)


def case_errors(
    case: EvalCase, where: Where, skill_name: str | None = None
) -> list[AuthoringError]:
    """Every block's mistake: the name, each tag and trajectory name, task and sessions,
    each assertion, each tool, the trajectory, the judge and each seeded file are checked
    on their own, and within a block the first mistake stops it."""

    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        return AuthoringError(
            problem,
            where=Where(where.file, where.line, case.name, where.case_index, field),
            fix=fix,
        )

    errors: list[AuthoringError] = []
    with gather(errors):
        if not case.name.strip():
            raise fail("the case name is blank", "name", "give the case a short descriptive name")
        check_case_name(case, fail)  # a name reaches node ids, the terminal and every report
    for check in other_names(case, fail):
        with gather(errors):
            check()
    with gather(errors):
        _check_prompts(case, fail)
    workspace = case.workspace is not None
    for i, assertion in enumerate(case.assertions):
        with gather(errors):
            _check_assertion(assertion, i, case, fail)
    offered = offered_tool_name(skill_name) if case.mode == "offered" and skill_name else None
    with gather(errors):
        if offered is not None and workspace and offered in BUILTIN_TOOLS:
            # Two tools of one name: the provider would refuse the request, after the spend began.
            checks_trigger = (
                case.trajectory is not None and case.trajectory.skill_triggered is not None
            )
            raise fail(
                f"the skill is offered as the tool {offered!r}, the name of a built-in tool "
                "in a workspace case",
                "mode",
                # skill_triggered needs mode: offered, so "run it as loaded" would be refused.
                "rename the skill (its tool name comes from its name)"
                if checks_trigger
                else "rename the skill, or run this case as mode: loaded",
            )
    with gather(errors):
        if case.neighbours is not None and case.mode != "offered":
            raise fail(
                "neighbours needs mode: offered; a loaded skill is in force whatever else "
                "is installed",
                "neighbours",
                "add mode: offered, or drop neighbours",
            )
    errors += tool_errors(list(case.tools), workspace=workspace, offered_name=offered, fail=fail)
    if case.trajectory is not None:
        errors += _trajectory_errors(case, fail)
    if case.judge is not None:
        with gather(errors):
            check_judge(case.judge, workspace=workspace, fail=fail)
    if case.workspace is not None:
        for name in case.workspace.files:
            with gather(errors):
                problem = path_problem(name)
                if problem:
                    raise fail(
                        naming(problem, name),
                        "workspace.files",
                        "key each file by a relative path",
                    )
                configures = config_path_problem(name)
                if configures:
                    raise fail(configures, "workspace.files", _PRODUCT_CONFIG_FIX)
    return errors


def _check_prompts(case: EvalCase, fail: Fail) -> None:
    if case.task is not None and case.sessions is not None:
        raise fail(
            "task and sessions are exclusive",
            "sessions",
            "keep task for one prompt, or sessions for several prompts in one workspace",
        )
    if case.task is None and case.sessions is None:
        raise fail("the case has neither task nor sessions", "task", "add task: <the prompt>")
    if case.task is not None and not case.task.strip():
        raise fail("the task is blank", "task", "write the prompt handed to the agent")
    if case.sessions is None:
        return
    if len(case.sessions) < 2:
        raise fail(
            "sessions needs at least two entries",
            "sessions",
            "one session is task: spelled longer; use task:",
        )
    for i, text in enumerate(case.sessions):
        if not text.strip():
            raise fail("a session is blank", f"sessions[{i}]", "write that session's prompt")
    if case.workspace is None:
        raise fail(
            "sessions needs a workspace: block",
            "sessions",
            "add workspace: {} - the workspace is the only thing that carries over",
        )


def _trajectory_errors(case: EvalCase, fail: Fail) -> list[AuthoringError]:
    trajectory = case.trajectory
    assert trajectory is not None
    errors: list[AuthoringError] = []
    with gather(errors):
        if trajectory.skill_triggered is not None and case.mode != "offered":
            raise fail(
                "skill_triggered needs mode: offered; a loaded skill is always in force",
                "trajectory.skill_triggered",
                "add mode: offered, or drop skill_triggered",
            )
    for i, entry in enumerate(trajectory.call_args):
        field = f"trajectory.call_args[{i}]"
        with gather(errors):
            if (entry.contains is None) == (entry.equals is None):
                raise fail(
                    "a call_args entry needs exactly one of contains: and equals:",
                    field,
                    "contains: for a subset of the arguments, equals: for all of them",
                )
            if entry.contains is not None and not entry.contains:
                raise fail(
                    "contains: {} matches every call, which is called: spelled longer",
                    f"{field}.contains",
                    f"name the arguments that matter, or use called: [{entry.tool}]",
                )
    return errors


_TEXT_KINDS = ("contains", "not_contains", "regex", "equals")
_GLOB_FIX = (
    "write a relative pattern with a wildcard in one directory level, "
    'e.g. file_glob: "reports/*.md" (quote a pattern that starts with * or [)'
)


def check_assertion_rules(assertion: Assertion, index: int, case: EvalCase) -> None:
    """One assertion's rules, for a case that may never have been through the loader.

    The rules belong to the case, so a case built in code gets them too: scoring
    asks this before it reads a workspace file, and a pattern that bypassed
    validation is an :class:`AuthoringError`, never a silent match.
    """

    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        return AuthoringError(problem, where=Where(case_name=case.name, field=field), fix=fix)

    _check_assertion(assertion, index, case, fail)


def _check_assertion(assertion: Assertion, index: int, case: EvalCase, fail: Fail) -> None:
    field = f"assertions[{index}]"
    kind = assertion.kind
    targets_file = assertion.file is not None or assertion.file_glob is not None
    if kind in _TEXT_KINDS and assertion.value is None:
        raise fail(
            f"a {kind} assertion needs value:",
            f"{field}.value",
            f"add value: <the text the {kind} check compares>",
        )
    if kind in ("file-produced", "json-schema") and assertion.value is not None:
        raise fail(
            f"a {kind} assertion takes no value:",
            f"{field}.value",
            "drop value:, or use contains/regex with file: to check the file's text",
        )
    if kind == "file-produced" and not targets_file:
        raise fail(
            "file-produced needs file: or file_glob:",
            f"{field}.file",
            "add file: <path in the workspace> (or file_glob: for a pattern)"
            # file: is refused in turn without a workspace: say both at once.
            + ("" if case.workspace is not None else ", and a workspace: block (workspace: {})"),
        )
    if kind == "json-schema":
        if assertion.json_schema is None:
            raise fail(
                "a json-schema assertion needs json_schema:",
                f"{field}.json_schema",
                "add json_schema: with the JSON Schema the output must validate against",
            )
        _check_json_schema(assertion.json_schema, f"{field}.json_schema", fail)
    elif assertion.json_schema is not None:
        raise fail(
            f"json_schema: belongs to a json-schema assertion, not {kind}",
            f"{field}.json_schema",
            "drop json_schema:, or set kind: json-schema",
        )
    if kind == "regex" and assertion.value is not None:
        _check_regex(assertion.value, f"{field}.value", fail)
    if not targets_file:
        return
    if assertion.file is not None and assertion.file_glob is not None:
        raise fail("file: and file_glob: are both set", f"{field}.file_glob", "keep one of the two")
    if case.workspace is None:
        if assertion.file is not None:
            read = f"the workspace file {shown(assertion.file)}"
        else:
            read = f"workspace files matching {shown(assertion.file_glob)}"
        raise fail(
            f"the assertion reads {read}, but the case has no workspace: block",
            f"{field}.file" if assertion.file is not None else f"{field}.file_glob",
            "add workspace: {} (or the files to seed it with)",
        )
    seeded = list(case.workspace.files)
    if assertion.file is not None:
        problem = path_problem(assertion.file)
        if problem:
            raise fail(
                naming(problem, assertion.file),
                f"{field}.file",
                "name a file relative to the workspace",
            )
        if kind == "file-produced" and assertion.file.removeprefix("./") in seeded:
            raise fail(
                f"file-produced names {shown(assertion.file)}, which the case seeds itself: "
                "it would pass whatever the skill did",
                f"{field}.file",
                "check a file the skill must write, or check the seeded file's content instead",
            )
        return
    glob = assertion.file_glob
    patterns = glob_patterns(glob)
    if isinstance(glob, list) and (len(glob) < 2 or len(set(glob)) < len(glob)):
        single = glob[0] if glob else None
        raise fail(
            f"a file_glob list needs at least two different entries, got {shown(glob)}",
            f"{field}.file_glob",
            # A single pattern needs a wildcard; a literal path belongs in file:.
            f"write it as file: {single}"
            if single is not None and not has_wildcard(single)
            else "write a single pattern as a string",
        )
    for j, pattern in enumerate(patterns):
        sub = f"{field}.file_glob" if isinstance(glob, str) else f"{field}.file_glob[{j}]"
        problem = pattern_problem(pattern, in_list=isinstance(glob, list))
        if problem:
            raise fail(naming(problem, pattern), sub, _GLOB_FIX)
        if kind == "file-produced":
            hit = next((name for name in seeded if segment_match(pattern, name)), None)
            if hit is not None:
                raise fail(
                    f"file-produced pattern {shown(pattern)} matches the seeded file {shown(hit)}: "
                    "it would pass whatever the skill did",
                    sub,
                    "narrow the pattern so it can only match what the skill writes",
                )


def glob_patterns(glob: str | list[str] | None) -> list[str]:
    """The patterns of a ``file_glob``: one, or each of a list."""
    return [glob] if isinstance(glob, str) else list(glob or [])


def _check_json_schema(schema: dict[str, object], field: str, fail: Fail) -> None:
    problem = schema_problem(schema)
    if problem is not None:
        raise fail(
            f"json_schema is not a valid JSON Schema: {problem}",
            field,
            "fix the schema so it validates against JSON Schema draft 2020-12",
        )
    part = unsafe_part(schema)
    if part is not None:
        raise fail(f"json_schema's {part.describe()}", f"{field}.{part.path}", part.fix)


def _check_regex(pattern: str, field: str, fail: Fail) -> None:
    found = regex_problem(pattern)
    if found is not None:
        problem, fix = found
        raise fail(problem, field, fix)
