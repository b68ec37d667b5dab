"""``--skill-lens-shard K/N``: which items one CI machine runs.

A case is the unit: every item of one (skill, case) (its runners, arms and repeats)
lands on the same shard, so the pairing behind the delta and the per-case floor are
never split between machines. The cases are ordered by a SHA-256 digest of their
names (never ``hash()``, which changes with every process) and dealt out in turn,
so the shards differ in size by one case at most, and the choice depends on nothing
but the names of the cases selected: every machine running the same command on the
same commit makes the same split. Other items (ordinary tests, a skill without
cases) are not ours to split and stay on every shard.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

import pytest

from .run_config import Shard
from .state import get_session

if TYPE_CHECKING:
    from ..gate.fingerprint import Selection
    from .facts import CollectionFacts
    from .items import CaseItem

T = TypeVar("T")
CaseKey = tuple[str, str]  # (skill name, case name)


def digest(key: CaseKey) -> bytes:
    skill, case = key
    # A name holds no NUL (suite/names.py refuses control characters), so ("a b", "c")
    # and ("a", "b c") never hash alike; "surrogatepass" so no name can make it raise.
    text = f"{skill}\0{case}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def assign(keys: Iterable[CaseKey], count: int) -> dict[CaseKey, int]:
    """Each distinct case's shard (1 to ``count``), dealt in the order of its digest."""
    ordered = sorted(set(keys), key=lambda key: (digest(key), key))
    return {key: rank % count + 1 for rank, key in enumerate(ordered)}


def split(
    items: Sequence[T], key_of: Callable[[T], CaseKey | None], shard: Shard
) -> tuple[list[T], list[T]]:
    """(kept, dropped), each in the given order; an item without a case key is kept."""
    keys = [key_of(item) for item in items]
    chosen = assign((key for key in keys if key is not None), shard.count)
    kept: list[T] = []
    dropped: list[T] = []
    for item, key in zip(items, keys, strict=True):
        (kept if key is None or chosen[key] == shard.index else dropped).append(item)
    return kept, dropped


def apply_shard(
    config: pytest.Config, shard: Shard | None, items: list[pytest.Item], facts: CollectionFacts
) -> None:
    """Keep only ``shard``'s items (in place) and report the rest as deselected."""
    if shard is None:
        return
    from .items import CaseItem

    session = get_session(config)
    by_skill = session is not None and session.run.settings.repeat_auto

    def key_of(item: pytest.Item) -> CaseKey | None:
        # Under auto:N the skill is the unit: its rounds are read where all its cases ran.
        if not isinstance(item, CaseItem):
            return None
        return (item.skill.name, "") if by_skill else (item.skill.name, item.case_name)

    cases = [item for item in items if isinstance(item, CaseItem)]
    facts.case_order = case_order(cases)
    facts.selection = selection(cases).as_dict()
    kept, dropped = split(items, key_of, shard)
    if not dropped:
        return
    items[:] = kept
    # pytest's deselect hook keeps its counts honest ("N deselected"), but the session
    # reads every deselected case as -k/-m's doing. Another shard's cases were not
    # filtered out by the user, so the session's record of them is put back.
    filtered = set(facts.deselected_cases)
    config.hook.pytest_deselected(items=dropped)
    facts.deselected_cases = filtered
    if not any(isinstance(item, CaseItem) for item in kept):
        _say_empty(config, shard, len({key_of(item) for item in dropped} - {None}))


def case_order(items: Iterable[CaseItem]) -> dict[str, list[str]]:
    """Each skill's cases in eval-file order (once each, whatever its runners, arms and
    repeats): what every shard collects, and a merge orders by."""
    positions: dict[str, dict[str, int]] = {}
    for item in items:
        positions.setdefault(item.skill.name, {}).setdefault(item.case_name, item.position)
    return {skill: sorted(cases, key=cases.__getitem__) for skill, cases in positions.items()}


def selection(items: Sequence[CaseItem]) -> Selection:
    """Every selected item and each skill's content, as digests a merge compares."""
    from ..gate.fingerprint import Selection, content_digest, items_digest

    identities = [
        (item.skill.name, item.case_name, item.runner_name, item.arm, item.repeat_index)
        for item in items
    ]
    definitions: dict[str, dict[str, str]] = {}
    for item in items:  # each case's definition once, whatever its runners, arms and repeats
        cases = definitions.setdefault(item.skill.name, {})
        if item.case_name not in cases:
            cases[item.case_name] = item.loaded.case.model_dump_json()
    skills = {item.skill.name: item.skill for item in items}
    return Selection(
        items=len(identities),
        digest=items_digest(identities),
        skills={
            name: content_digest(
                [
                    json.dumps(skill.meta, sort_keys=True, default=str),
                    skill.description,
                    skill.instructions,
                    *(f"{case}\0{text}" for case, text in sorted(definitions[name].items())),
                ]
            )
            for name, skill in sorted(skills.items())
        },
    )


def _say_empty(config: pytest.Config, shard: Shard, cases: int) -> None:
    """A shard left without a case fails its own gate (no case ran); say why, up front.

    It fails rather than passes, because a green job that ran nothing must never read
    as a pass; the merge is not hurt, since it recomputes the gate from every shard's
    outcomes and this shard brings none.
    """
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or hasattr(config, "workerinput"):
        return
    reporter.ensure_newline()
    reporter.write_line(
        f"skill-lens: shard {shard.label} holds none of the {cases} selected case(s) "
        f"(fewer cases than shards), so its own gate fails; the merge of every shard's "
        f"report is not affected. Use at most {cases} shard(s).",
        yellow=True,
    )
