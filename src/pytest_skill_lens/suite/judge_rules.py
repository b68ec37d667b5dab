"""Rules for a ``judge:`` block."""

from __future__ import annotations

import re
from collections.abc import Callable

from .errors import AuthoringError
from .model import ArtifactGlob, Judge
from .paths import has_wildcard, path_problem, pattern_problem
from .quoting import naming, shown

Fail = Callable[[str, str, str | None], AuthoringError]

_NOUNS = r"(?:data|responses?|results?|returns?|values?|outputs?|tools?)"
_AFTER_TOOL = r"(?:returned|returns|return\s+values?|responses?|results?|outputs?|data|values?)"
# The harness's own vocabulary for what a mock tool returned: the judge never sees it.
HIDDEN_DATA = re.compile(
    r"\bmock(?:ed)?\s+" + _NOUNS + r"\b"
    r"|\b(?:tools?|mocks?)(?:['’]s|['’])?\s+" + _AFTER_TOOL + r"\b"
    r"|\breturned\s+by\s+(?:the|a|an|any|each|every)\s+(?:tools?|mocks?)\b",
    re.IGNORECASE,
)


_GLOB_FIX = (
    "write a relative pattern with a wildcard in one directory level, "
    'e.g. - glob: "reports/*.md" (quote a pattern that starts with * or [)'
)


def artifact_patterns(entry: str | ArtifactGlob) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    return [entry.glob] if isinstance(entry.glob, str) else list(entry.glob)


def check_judge(judge: Judge, *, workspace: bool, fail: Fail) -> None:
    if not judge.rubric:
        raise fail(
            "the rubric is empty", "judge.rubric", "list at least one statement the judge checks"
        )
    for i, line in enumerate(judge.rubric):
        field = f"judge.rubric[{i}]"
        if not line.strip():
            raise fail("a rubric entry is blank", field, "write the statement or remove the entry")
        found = HIDDEN_DATA.search(line)
        if found:
            raise fail(
                f"the entry compares against data the judge never sees ({shown(found.group(0))}): "
                "the judge is not shown what mock tools returned",
                field,
                "phrase it against the response itself, or put the data in a workspace file "
                "named under judge.artifacts",
            )
    if judge.expected is not None and not judge.expected.strip():
        raise fail("expected is blank", "judge.expected", "describe a good answer or drop the key")
    if not judge.artifacts:
        return
    if not workspace:
        raise fail(
            "judge.artifacts names workspace files, but the case has no workspace: block",
            "judge.artifacts",
            "add workspace: {} (or files to seed), or drop artifacts",
        )
    paths: set[str] = set()
    globs: set[str] = set()
    for i, entry in enumerate(judge.artifacts):
        field = f"judge.artifacts[{i}]"
        if isinstance(entry, str):
            problem = path_problem(entry)
            if problem:
                raise fail(naming(problem, entry), field, "name a file relative to the workspace")
            paths.add(entry)
            continue
        patterns = artifact_patterns(entry)
        _check_pattern_list(entry.glob, f"{field}.glob", fail)
        globs.update(patterns)
    both = sorted(paths & globs)
    if both:
        raise fail(
            f"{shown(both[0])} is listed both as a path and as a glob",
            "judge.artifacts",
            "keep one of the two entries",
        )


def _check_pattern_list(value: str | list[str], field: str, fail: Fail) -> None:
    if isinstance(value, str):
        problem = pattern_problem(value, in_list=False)
        if problem:
            problem = problem.replace("use file:", "list it as a plain entry")
            raise fail(naming(problem, value), field, _GLOB_FIX)
        return
    if len(value) < 2 or len(set(value)) < len(value):
        single = value[0] if value else None
        raise fail(
            f"a list of patterns needs at least two different entries, got {shown(value)}",
            field,
            # A single pattern needs a wildcard; a literal path is a plain entry.
            f"list {single} as a plain entry instead"
            if single is not None and not has_wildcard(single)
            else "write a single pattern as a string",
        )
    for j, pattern in enumerate(value):
        problem = pattern_problem(pattern, in_list=True)
        if problem:
            raise fail(naming(problem, pattern), f"{field}[{j}]", _GLOB_FIX)
