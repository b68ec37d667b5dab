"""``judge.artifacts``: the workspace files a judge is shown, as (label, content) pairs.

Each entry is labelled as the author wrote it (a pattern list's entries joined
with `` | ``), never with the path the run picked, so a file name cannot talk to
the judge. A file that cannot be shown is a sentinel the judge can tell apart:
``(not produced)`` from ``(too large to read)``, because that file does exist, and
a file with more than one hard link (perhaps a file outside) is never shown.
Contents are capped per file and in total; sentinels cost nothing.
"""

from __future__ import annotations

from ..run.workspace.workspace import Workspace
from ..suite.model import ArtifactGlob
from ..suite.model import Judge as JudgeBlock

ARTIFACT_MAX_CHARS = 20_000
ARTIFACTS_TOTAL_CHARS = 60_000
NOT_PRODUCED = "(not produced)"
TOO_LARGE = "(too large to read)"
NOT_UTF8 = "(not valid UTF-8 text)"
REFUSED = "(refused by the workspace: not a regular file inside it)"
HARD_LINKED = "(refused by the workspace: a file with more than one hard link)"
EXHAUSTED = "(omitted, artifact budget exhausted)"


def artifact_label(entry: str | ArtifactGlob) -> str:
    if isinstance(entry, str):
        return entry
    return entry.glob if isinstance(entry.glob, str) else " | ".join(entry.glob)


def collect_artifacts(block: JudgeBlock, workspace: Workspace | None) -> list[tuple[str, str]]:
    """Every declared artifact once, in the author's order, as the last session left it."""
    if workspace is None or not block.artifacts:
        return []
    shown: list[tuple[str, str]] = []
    seen: set[str] = set()
    budget = ARTIFACTS_TOTAL_CHARS
    for entry in block.artifacts:
        label = artifact_label(entry)
        key = f"{'glob' if isinstance(entry, ArtifactGlob) else 'path'}:{label}"
        if key in seen:
            continue
        seen.add(key)
        content, sentinel = _content(entry, workspace)
        if sentinel:
            shown.append((label, content))
            continue
        if budget <= 0:
            shown.append((label, EXHAUSTED))
            continue
        cut = min(ARTIFACT_MAX_CHARS, budget)
        if len(content) > cut:
            content = f"{content[:cut]}\n... [truncated, {len(content) - cut} characters omitted]"
            budget -= cut
        else:
            budget -= len(content)
        shown.append((label, content))
    return shown


def _content(entry: str | ArtifactGlob, workspace: Workspace) -> tuple[str, bool]:
    """The artifact's text and False, or a sentinel and True."""
    if isinstance(entry, str):
        path = entry
    else:
        found = workspace.glob(entry.glob)
        if not found.matches:
            return NOT_PRODUCED, True
        if found.path is None:
            return f"(matched {len(found.matches)} files; exactly one is required)", True
        path = found.path
    read = workspace.read_for_check(path)
    if read.text is not None:
        return read.text, False
    return _SENTINELS.get(read.failure or "", REFUSED), True


_SENTINELS = {
    "missing": NOT_PRODUCED,
    "too_large": TOO_LARGE,
    "not_utf8": NOT_UTF8,
    "hard_link": HARD_LINKED,
}
