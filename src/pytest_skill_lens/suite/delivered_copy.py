"""A product runner's copy of the skill is harness data, never the skill's output.

A product gets the skill delivered into its working directory (``.claude/skills/<name>/``,
``.agents/skills/<name>/``, or ``skills_dir`` under ``cli``), and the copy stays there so
``--keep-workspace`` shows what the product saw. A ``file:``, ``file_glob`` or judge
artifact that could read that copy would check the harness's files, so the case is
refused before any case runs. A glob reaches the copy when its first levels match the
copy's directory and it goes deeper (``*/*/*/SKILL.md`` does).
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import EvalCase
from .paths import segment_match


def delivered_copy_reader(case: EvalCase, copy_dir: str) -> tuple[str, str] | None:
    """``(field, path or pattern)`` of the first check that would read ``copy_dir``."""
    prefix = copy_dir.strip("/").split("/")
    for field, written, is_glob in _file_reads(case):
        text = written.removeprefix("./")
        parts = text.split("/")
        if len(parts) <= len(prefix):
            continue  # the directory itself, or something beside it: not a file inside
        head = "/".join(parts[: len(prefix)])
        if segment_match(head, "/".join(prefix)) if is_glob else parts[: len(prefix)] == prefix:
            return field, written
    return None


def _file_reads(case: EvalCase) -> Iterator[tuple[str, str, bool]]:
    for index, assertion in enumerate(case.assertions):
        if assertion.file is not None:
            yield f"assertions[{index}].file", assertion.file, False
        globs = assertion.file_glob
        for pattern in [globs] if isinstance(globs, str) else globs or []:
            yield f"assertions[{index}].file_glob", pattern, True
    if case.judge is not None:
        for index, artifact in enumerate(case.judge.artifacts):
            if isinstance(artifact, str):
                yield f"judge.artifacts[{index}]", artifact, False
                continue
            patterns = [artifact.glob] if isinstance(artifact.glob, str) else artifact.glob
            for pattern in patterns:
                yield f"judge.artifacts[{index}].glob", pattern, True
