"""The JSON report's ``changed`` block (``--skill-lens-changed``), written and read back.

Read strictly, as every block a merge judges from: the commit is a full hexadecimal
object name, every changed skill names at least one reason, no skill is both changed
and unchanged or listed twice; the figures derived from these (the unchanged reason,
``nothing_to_evaluate``) are checked against them in :mod:`.json_derived`. ``null``, or a
report without the key, is a run without the flag.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..gate.changed_skills import ChangedSelection, ChangedSkill
from .json_fields import Fields, ReportError, shown

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256


def changed_dict(block: ChangedSelection | None) -> dict[str, Any] | None:
    if block is None:
        return None
    return {
        "ref": block.ref,
        "commit": block.commit,
        "how": block.how,
        "unchanged_reason": block.unchanged_reason,
        "changed_skills": [
            {"skill_name": s.skill_name, "reasons": list(s.reasons), "moved_from": s.moved_from}
            for s in block.changed_skills
        ],
        "unchanged_skills": list(block.unchanged_skills),
        "nothing_to_evaluate": block.nothing_to_evaluate,
    }


def read_changed(top: Fields) -> ChangedSelection | None:
    """The ``changed`` block; ``None`` for a run without ``--skill-lens-changed``."""
    if top.data.get("changed") is None:
        return None
    block = top.child("changed")
    commit = block.text("commit")
    if _COMMIT.fullmatch(commit) is None:
        raise ReportError(f"{block.at('commit')}: expected a full commit id, got {shown(commit)}")
    changed = tuple(_skill(entry) for entry in block.objects("changed_skills"))
    unchanged = tuple(block.names("unchanged_skills"))
    counted = Counter([s.skill_name for s in changed] + list(unchanged))  # linear: no hang
    twice = sorted(name for name, count in counted.items() if count > 1)
    if twice:
        raise ReportError(f"{block.where}: skill {shown(twice[0])} is listed twice")
    return ChangedSelection(block.text("ref"), commit, block.text("how"), changed, unchanged)


def _skill(entry: Fields) -> ChangedSkill:
    reasons = tuple(entry.names("reasons"))
    if not reasons:
        raise ReportError(f"{entry.at('reasons')}: a changed skill names at least one reason")
    return ChangedSkill(entry.text("skill_name"), reasons, entry.optional_text("moved_from"))
