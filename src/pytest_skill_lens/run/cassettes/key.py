"""The key a cassette is recorded under: everything that can change the answer, in parts.

Each part is a digest with a name and the words a miss uses for it, so a miss says
*which* part changed ("SKILL.md changed", "the returns: of mock tool lookup changed")
instead of "the key changed". A part belongs to a seat: a change to a runner part makes
the whole cassette stale; a change to a judge part only the judge's calls, so under
``--skill-lens-record once`` a new rubric costs only a new verdict.

What only scores (assertions, trajectory, the budget's cost and latency limits, tags)
is not in the key: a replayed run is scored by the case as it is now, which is how a
new check is tried on a recorded run for free. What the runner actually sends (the
system prompt, the tool schemas, every tool's answer) is compared request by request
when the cassette is replayed (:mod:`.tape`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...settings import Settings
from ...suite.errors import AuthoringError
from ...suite.model import EvalCase
from ...suite.regular_files import read_regular
from ...suite.skill import Skill
from ..tools.bundle_tools import skill_bundle
from .files import KeyEntry, Seat, digest

# The settings that change what a workspace's tools and scripts answer.
_HARNESS_SETTINGS = (
    "allow_scripts",
    "script_sandbox",
    "script_interpreters",
    "script_timeout_seconds",
    "max_script_output_bytes",
    "max_file_bytes",
    "max_files",
    "max_total_bytes",
)


@dataclass(frozen=True)
class KeyPart:
    name: str  # stable, the entry's key in the file: "skill", "tool:lookup:returns"
    seat: Seat
    what: str  # what a miss calls it
    sha256: str
    shown: str | None = None  # the value in words, where it is no secret (a version)
    # Not known in this run (a product's version when replaying only, where the product
    # is never started to ask it): the recorded part is taken as it stands.
    unknown: bool = False

    def entry(self) -> KeyEntry:
        return KeyEntry(seat=self.seat, what=self.what, sha256=self.sha256, shown=self.shown)


def part(name: str, seat: Seat, what: str, value: Any, *, shown: str | None = None) -> KeyPart:
    return KeyPart(name, seat, what, digest(value), shown)


def unknown_part(name: str, seat: Seat, what: str) -> KeyPart:
    """A part this run cannot know; it never makes a recording stale (see ``unknown``)."""
    return KeyPart(name, seat, what, digest(None), unknown=True)


def runner_parts(
    skill: Skill,
    case: EvalCase,
    runner: str,
    settings: Settings,
    repeat_index: int,
    extra: Mapping[str, Any] | None = None,
    *,
    own: Sequence[KeyPart] = (),
) -> list[KeyPart]:
    """The runner seat's parts: the skill, the case as the agent meets it, the runner.

    ``extra`` is what else a runner reads, added to its settings. ``own`` are the
    parts of a runner that reads none of the framework settings (a product: its table
    and its version, :func:`product_parts`); they stand in for the settings part.
    """
    parts = [
        part("skill", "runner", "SKILL.md", _skill_text(skill)),
        part("bundle", "runner", "the skill's bundled files", _bundle_digest(skill)),
        *_neighbours_part(skill),
        part("task", "runner", "the task" if case.sessions is None else "sessions:", case.tasks),
        part("mode", "runner", "mode:", case.mode),
        part(
            "tools",
            "runner",
            "the mock tools declared (their names and order)",
            [tool.name for tool in case.tools],
        ),
    ]
    for tool in case.tools:
        definition = {"description": tool.description, "schema": tool.json_schema()}
        parts.append(
            part(
                f"tool:{tool.name}",
                "runner",
                f"the definition of mock tool {tool.name}",
                definition,
            )
        )
        returns = tool.model_dump(mode="json")["returns"]
        parts.append(
            part(
                f"tool:{tool.name}:returns",
                "runner",
                f"the returns: of mock tool {tool.name}",
                returns,
            )
        )
    if case.workspace is not None:
        parts.append(part("workspace", "runner", "the workspace: files", case.workspace.files))
        harness = {name: getattr(settings, name) for name in _HARNESS_SETTINGS}
        parts.append(part("harness", "runner", "the workspace and script settings", harness))
    max_tokens = case.budget.max_tokens if case.budget is not None else None
    parts.append(part("max_tokens", "runner", "budget: max_tokens", max_tokens))
    if own:
        parts.extend(own)
        parts.append(part("repeat", "runner", "the repeat index", repeat_index))
        return parts
    chosen = {
        "runner": runner,
        "model": settings.model,
        "base_url": settings.base_url,
        "temperature": settings.temperature,
        **(extra or {}),
    }
    parts.append(
        part("runner", "runner", "the runner's settings (runner, model, endpoint, ...)", chosen)
    )
    parts.append(part("repeat", "runner", "the repeat index", repeat_index))
    return parts


def judge_parts(
    case: EvalCase, judge: Mapping[str, Any], *, own: Sequence[KeyPart] = ()
) -> list[KeyPart]:
    """The judge seat's parts: its settings (resolved: model, endpoint, temperature) and
    the ``judge:`` block; none for a case without one. ``own`` stand in for the
    settings part, as for :func:`runner_parts` (a product judge's table and version)."""
    if case.judge is None:
        return []
    settings = list(own) or [
        part("judge", "judge", "the judge's settings (judge, model, endpoint, ...)", dict(judge))
    ]
    return [
        *settings,
        part("rubric", "judge", "the judge: block", case.judge.model_dump(mode="json")),
    ]


def product_parts(
    seat: Seat, name: str, table: Mapping[str, Any], version: str | None, *, known: bool
) -> list[KeyPart]:
    """A product's parts in ``seat``: its table as it reads it (argv entries, variable
    names, limits: never a variable's value) and the version its ``--version`` printed.

    ``known`` is false when replaying only: the product is never started, so its
    version cannot be asked, and the recorded one is taken as it stands.
    """
    key = "runner" if seat == "runner" else "judge"
    what = f"the {name} settings ([runners.{name}]: command, args, pass_env names, limits)"
    settings = part(key, seat, what, {"product": name, **table})
    label = f"the {name} version"
    if not known:
        return [settings, unknown_part(f"{key}:version", seat, label)]
    shown = version if version is not None else "not asked"  # a wrapper command, say
    return [settings, part(f"{key}:version", seat, label, version, shown=shown)]


def stale_parts(recorded: Mapping[str, KeyEntry], current: list[KeyPart]) -> dict[Seat, list[str]]:
    """What changed since the recording, per seat, in the words a miss uses."""
    now = {p.name: p for p in current}
    found: dict[Seat, list[str]] = {}
    for name, entry in recorded.items():
        here = now.get(name)
        if here is None:
            found.setdefault(entry.seat, []).append(f"{entry.what} was removed")
        elif here.unknown:
            continue  # cannot be told in this run: the recording's stands
        elif here.sha256 != entry.sha256:
            found.setdefault(here.seat, []).append(f"{here.what} changed{_values(entry, here)}")
    for name, here in now.items():
        if name not in recorded:
            found.setdefault(here.seat, []).append(f"{here.what} was added")
    return found


def _values(entry: KeyEntry, here: KeyPart) -> str:
    if entry.shown is None or here.shown is None:
        return ""
    return f" (recorded {entry.shown!r}, now {here.shown!r})"


def _skill_text(skill: Skill) -> dict[str, Any]:
    # The frontmatter as read plus the body: what any runner can deliver of SKILL.md.
    return {
        "name": skill.name,
        "description": skill.description,
        "instructions": skill.instructions,
        "version": skill.version,
        "frontmatter": {str(k): v for k, v in skill.meta.items()},
    }


def _neighbours_part(skill: Skill) -> list[KeyPart]:
    """The neighbours offered beside the skill, each as SKILL.md and bundle; no part at
    all without them, so a cassette recorded before neighbours existed still fits."""
    if not skill.neighbours:
        return []
    offered = [
        {"skill": _skill_text(neighbour), "bundle": _bundle_digest(neighbour)}
        for neighbour in skill.neighbours
    ]
    return [part("neighbours", "runner", "the neighbours offered beside the skill", offered)]


def _bundle_digest(skill: Skill) -> list[tuple[str, str]]:
    bundle = skill_bundle(skill)
    if bundle.root is None:
        return []
    return _file_digests(bundle.root, tuple(bundle.files()), bundle.refusal)


@functools.lru_cache(maxsize=64)
def _file_digests(root: Path, files: tuple[str, ...], refusal: str | None) -> list[tuple[str, str]]:
    """Each shipped file's digest, computed once per session for a skill (the files
    are the author's and do not change while the run reads them)."""
    found: list[tuple[str, str]] = [("refused", refusal)] if refusal else []
    for name in files:
        try:  # read_regular never opens a FIFO swapped in since the bundle's scan
            found.append((name, hashlib.sha256(read_regular(root / name)).hexdigest()))
        except (OSError, AuthoringError) as exc:
            found.append((name, f"unreadable: {type(exc).__name__}"))
    return found
