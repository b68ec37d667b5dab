"""What a merge of shards compares to know they are shards of one run: digests, not values.

Each shard's report says what the whole run selected (every shard's items, in one
digest, and each skill's content in another) and a digest of each setting, so a merge
can tell a shard run on other items, another version of the suite or other settings
from one of the same run. Digests and not values: a setting may hold a URL with a
token in it, and a suite's items may number tens of thousands.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# What a machine may set its own way without changing an outcome: how many cases run at
# once, whether workspaces are kept, whether reports show whole outputs, and where its
# reuse store is (a reused outcome counts as a fresh one, docs/reuse.md).
MACHINE_LOCAL = frozenset({"concurrency", "keep_workspace", "full_output", "reuse"})

ItemIdentity = tuple[str, str, str, str, int]  # skill, case, runner, arm, repeat index


@dataclass(frozen=True)
class Selection:
    """What a sharded run selected, every shard's part included (the same on each shard)."""

    items: int  # selected items: each case's runners, arms and repeats
    digest: str  # items_digest of them
    skills: Mapping[str, str] = field(default_factory=dict)  # skill -> content_digest

    def as_dict(self) -> dict[str, Any]:
        return {"items": self.items, "digest": self.digest, "skills": dict(self.skills)}


def items_digest(items: Iterable[ItemIdentity]) -> str:
    """One SHA-256 over a set of items, whatever their order."""
    lines = sorted(json.dumps(list(item), ensure_ascii=True) for item in items)
    return _sha256("\n".join(lines))


def content_digest(parts: Iterable[str]) -> str:
    """One SHA-256 over ``parts`` in the order given (each part's length bounds it)."""
    return _sha256("".join(f"{len(part)}:{part}" for part in parts))


def settings_digests(values: Mapping[str, Any]) -> dict[str, str]:
    """Each setting's value as a short digest, by name, leaving out the machine-local ones."""
    return {
        name: _sha256(json.dumps(value, sort_keys=True, ensure_ascii=True, default=str))[:16]
        for name, value in sorted(values.items())
        if name not in MACHINE_LOCAL
    }


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
