"""The rules a skill's cases are held to once the runners are known, before any case runs:
each runner serves the case's features, sees every tool its trajectory names, can serve
its mock tools, and no check reads a product's delivered copy of the skill; every bundled
script's interpreter is on PATH. Called by :mod:`.collect` for each collected skill.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

import pytest

from ..run.catalog import FEATURE_FIELDS, RunnerDescription
from ..suite.delivered_copy import delivered_copy_reader
from ..suite.errors import AuthoringError, Where
from ..suite.loaded import LoadedCase
from ..suite.mistakes import gather
from ..suite.quoting import shown
from ..suite.skill import Skill
from ..suite.tool_rules import BUILTIN_TOOLS, offered_tool_name, undeclared_tools

if TYPE_CHECKING:
    from ..settings import Settings


def runner_rules(
    cases: tuple[LoadedCase, ...], runners: list[RunnerDescription], skill_name: str
) -> list[AuthoringError]:
    """Runner-dependent rules, applied before any item runs (not under --collect-only)."""
    errors: list[AuthoringError] = []
    for loaded in cases:
        with gather(errors):
            _check_served(loaded, runners)
    # A runner that knows every tool its agent has can never see a call to another.
    strict = [r.name for r in runners if r.declares_every_tool]
    if not strict:
        return errors
    for loaded in cases:
        declared = [tool.name for tool in loaded.case.tools]
        for field, name in undeclared_tools(loaded.case):
            errors.append(_undeclared(loaded, field, name, declared, strict[0], skill_name))
    return errors


def _undeclared(
    loaded: LoadedCase, field: str, name: str, declared: list[str], runner: str, skill_name: str
) -> AuthoringError:
    builtin = name in BUILTIN_TOOLS
    fix = f"declare {shown(name)} under tools:, or fix the spelling"
    guess = difflib.get_close_matches(name, declared, n=1)
    if guess:
        fix = f"did you mean {guess[0]!r}? otherwise " + fix
    if builtin:
        # The author means the built-in: a workspace case has it, a declared mock would not.
        fix = (
            f"add a workspace: block (workspace: {{}}) to give the case the built-in {name}, "
            f"or declare a mock {name!r} under tools:"
        )
    if loaded.case.mode == "offered" and name == offered_tool_name(skill_name):
        # Declaring it would collide with the skill's own tool: point at the real check.
        fix = "check the offered skill's own tool with trajectory.skill_triggered instead"
    return AuthoringError(
        f"the trajectory names {shown(name)}, which the case does not declare in tools:"
        + (" (a built-in tool exists only in a case with a workspace: block)" if builtin else "")
        + f"; runner {runner!r} can never see such a call",
        where=Where(loaded.file, loaded.line_of(field), loaded.name, loaded.index, field),
        fix=fix,
    )


# The runners whose mock tools were checked in this run: the check starts a process.
_TOOLS_CHECKED = pytest.StashKey[set[str]]()


def preflight_tools(
    config: pytest.Config,
    cases: tuple[LoadedCase, ...],
    runners: list[RunnerDescription],
    settings: Settings,
) -> None:
    """Once per run and runner, on the first planned case with ``tools:``, whether the
    runner can serve mock tools (a product's MCP bridge, started with ``--check``)."""
    checked = config.stash.setdefault(_TOOLS_CHECKED, set())
    loaded = next((c for c in cases if c.case.tools), None)
    if loaded is None:
        return
    for runner in runners:
        if runner.check_tools is None or runner.name in checked:
            continue
        checked.add(runner.name)
        problem = runner.tools_problem(settings, loaded.case.tools)
        if problem is not None:
            raise AuthoringError(
                f"runner {runner.name!r} cannot serve the case's tools: {problem[0]}",
                where=Where(loaded.file, loaded.line, loaded.name, loaded.index, "tools"),
                fix=problem[1],
            )


def delivered_copy_readers(
    cases: tuple[LoadedCase, ...],
    runners: list[RunnerDescription],
    skill_name: str,
    settings: Settings,
) -> list[AuthoringError]:
    """A check that could read a product's copy of the skill checks harness files: exit 2."""
    errors: list[AuthoringError] = []
    for runner in runners:
        if runner.delivers_into is None:
            continue
        copy_dir = f"{runner.delivers_into(settings).strip('/')}/{skill_name}"
        for loaded in cases:
            found = delivered_copy_reader(loaded.case, copy_dir)
            if found is None:
                continue
            field, written = found
            errors.append(
                AuthoringError(
                    f"{shown(written)} can read {copy_dir}/, where runner {runner.name!r} "
                    "delivers the skill: it would check the harness's copy of the skill, not "
                    "what the skill produced",
                    where=Where(
                        loaded.file, loaded.line_of(field), loaded.name, loaded.index, field
                    ),
                    fix="point the check at a file the agent writes, outside that directory",
                )
            )
    return errors


def _check_served(loaded: LoadedCase, runners: list[RunnerDescription]) -> None:
    for runner in runners:
        feature = runner.unserved(loaded.case)
        if feature is None:
            continue
        spelled = FEATURE_FIELDS[feature]
        field = spelled.partition(":")[0]
        raise AuthoringError(
            f"the case uses {spelled}, which runner {runner.name!r} does not serve",
            where=Where(loaded.file, loaded.line_of(field), loaded.name, loaded.index, field),
            fix=f"run the case under another runner, or drop {spelled} from it",
        )


def preflight_interpreters(skill: Skill, settings: Settings) -> None:
    """Each bundled script's interpreter must be on PATH, or the run stops before any case."""
    if not skill.ships_scripts_dir:
        return  # nothing to run, so nothing to check (and no walk of the skill's files)
    from ..run.tools.script_tool import missing_interpreters

    found = missing_interpreters(skill.directory, settings, also_withheld=skill.withheld)
    if found is None:
        return
    script, interpreter = found
    raise AuthoringError(
        f"{script} of skill {skill.name!r} needs {interpreter}, which is not on PATH "
        "(every discovered skill's scripts are checked when scripts are on, "
        "whether or not its cases are selected)",
        where=Where(skill.path),
        fix=f"install {interpreter} or put it on PATH, map the extension to another "
        "interpreter under script_interpreters in skill-lens.toml, or run without "
        "--skill-lens-allow-scripts",
    )
