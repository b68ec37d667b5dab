"""Rules for the paths and patterns an author writes (``file:``, ``file_glob:``, artifacts).

A path or pattern that could never name a workspace file is the author's
mistake, caught at load time. What the run later puts at a valid path is the
skill's doing, and is scored, not refused.
"""

from __future__ import annotations

import fnmatch
import re

GLOB_CHARS = frozenset("*?[")


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a file inside a workspace, or ``None`` when it can."""
    if not path or not path.strip():
        return "the path is empty"
    if "\x00" in path:
        return "the path holds a NUL byte"
    if "\\" in path:
        return "the path holds a backslash; write '/' between directories"
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        return "the path is absolute; write it relative to the workspace"
    parts = path.split("/")
    if ".." in parts:
        return "the path contains '..', which would leave the workspace"
    if path.endswith("/") or parts[-1] == ".":
        return "the path ends in '/' or '/.'; name a file"
    return None


def has_wildcard(pattern: str) -> bool:
    return any(ch in GLOB_CHARS for ch in pattern)


def pattern_problem(pattern: str, *, in_list: bool) -> str | None:
    """Why ``pattern`` is refused as a ``file_glob``, or ``None``.

    A single pattern must hold a wildcard (a literal belongs in ``file:``); an
    entry of a list may be a literal path.
    """
    problem = path_problem(pattern)
    if problem is not None:
        return problem.replace("the path", "the pattern")
    if "**" in pattern:
        return (
            "'**' is not supported: a wildcard never crosses '/'; write one '*' per directory level"
        )
    if not in_list and not has_wildcard(pattern):
        return "the pattern has no wildcard; use file: for a literal path"
    for segment in pattern.split("/"):
        problem = _set_problem(segment)
        if problem is not None:
            return problem
    return None


def _set_problem(segment: str) -> str | None:
    i = 0
    while i < len(segment):
        if segment[i] == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                return "an unclosed '[' in the pattern"
            body = segment[i : end + 1]
            if not any(fnmatch.fnmatchcase(chr(c), body) for c in range(0x20, 0x2FFF)):
                return f"the set {body} matches no character"
            i = end + 1
        else:
            i += 1
    return None


def segment_match(pattern: str, path: str) -> bool:
    """fnmatch per directory level: a wildcard never crosses '/', case-sensitive."""
    pattern = pattern.removeprefix("./")
    pattern_parts = pattern.split("/")
    path_parts = path.split("/")
    if len(pattern_parts) != len(path_parts):
        return False
    return all(
        fnmatch.fnmatchcase(name, pat) for pat, name in zip(pattern_parts, path_parts, strict=True)
    )
