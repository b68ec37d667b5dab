"""The reuse store (``--skill-lens-reuse DIR``, docs/reuse.md): outcomes found by content.

An entry is a cassette file (:mod:`.files`: the same shape and bounds, written in one
rename, never read or written through a link below ``DIR``) named by the digest of its
key: ``DIR/outcomes/<digest>.json``. The key is every part a cassette is keyed on (the
skill's content, the case, the runner and its settings, the model, the repeat index, a
judge's settings and rubric) and deliberately not the item's arm or file: a pull
request's ``previous`` arm, the skill as it was on main, finds the entry main's
candidate recorded of the same content. An item found is a replay (:class:`.Tape` under
``once``: nothing is sent); one not found runs and is added.

Beside the entries, ``DIR/items/<skill>/<case>-<hash>.<runner>[.baseline][.r<k>].json``
says which key each item was last recorded under, so a miss names what changed since,
as a cassette miss does. Each file is written by one rename and no two items of a run
write the same item file; two items of the same content may write the same entry, each
a whole recording of it, and the last rename stands. No lock is taken.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from ...labels import Arm
from ..previous_git import Git, GitFailed, find_git
from .files import (
    CassetteError,
    KeyEntry,
    Origin,
    cassette_path,
    digest,
    parse_strict,
    shape_error,
)
from .key import KeyPart, stale_parts
from .place import read_under, write_under
from .tape import Mode, Tape, TapeReport

MAX_ITEM_BYTES = 1024 * 1024  # an item file holds a key and a few names
_FIX = "delete it from the reuse store (the item then runs and is added again)"
# What a Tape's messages advise: after "delete it and" (an unusable entry), and alone.
_FIXES = ("run the item again: it is then added afresh", _FIX)
_MODE: Mode = "once"  # what is found is replayed, what is missing is recorded


class ItemFile(BaseModel):
    """``DIR/items/...``: the key an item was last recorded under, and its entry."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    reuse: Literal[1]
    item: dict[str, JsonValue]
    key: dict[str, KeyEntry]
    entry: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    origin: Origin


Name = Annotated[str, Field(max_length=100_000)]  # far past any real name; a report stays small


class StoredItem(BaseModel):
    """The item an entry says recorded it: reported as ``reused_from.item``, so read as
    strictly as the rest (an entry's ``item`` is free-form in a cassette)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    skill: Name
    case: Name
    runner: Name
    arm: Arm
    repeat: Annotated[int, Field(ge=1, le=1_000_000)]


class StoreTape(Tape):
    """An item's tape whose file is found by content in the reuse store."""

    def __init__(self, store: Path, key: list[KeyPart], item: dict[str, Any]) -> None:
        self.store = store
        self.digest = key_digest(key)
        path = store / "outcomes" / f"{self.digest}.json"
        super().__init__(
            path, _MODE, key, item, root=store, origin=recording_origin(), fixes=_FIXES
        )
        self.note: str | None = None  # why the item is not reused
        self.recorder: StoredItem | None = None  # the item that recorded what was found
        if self.found is not None:
            try:
                self.recorder = StoredItem.model_validate(self.found.item)
            except ValidationError as exc:
                self.refusal = (
                    f"reuse store unusable: {path} has the wrong shape: item: {shape_error(exc)}; "
                    f"{_FIX}"
                )
        elif self.refusal is None:
            try:
                self.note = self._miss()
            except CassetteError as exc:  # the store's file, not the case: errored, named
                self.refusal = f"reuse store unusable: {exc}; {_FIX}"

    def reused_from(self) -> dict[str, Any] | None:
        """The outcome's ``reused_from``: the run, commit and item that recorded it."""
        found = self.found
        if found is None or self.recorder is None:
            return None
        origin = found.origin
        dates = sorted(call.recorded_at for call in found.calls)
        return {
            "commit": origin.commit if origin is not None else None,
            "recorded_at": origin.at if origin is not None else (dates[0] if dates else None),
            "item": self.recorder.model_dump(),
            "entry": self.digest,
        }

    def finish(self, *, keep: bool, error: str | None = None) -> TapeReport:
        report = super().finish(keep=keep, error=error)
        if report.action != "written" or self.origin is None:
            return report
        index = ItemFile(
            reuse=1,
            item=self.item,
            key={p.name: p.entry() for p in self.key},
            entry=self.digest,
            origin=self.origin,
        )
        try:
            write_under(self._item_path(), self.store, _render(index))
        except (OSError, CassetteError) as exc:
            cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return replace(report, note=f"{self._item_path()} could not be written: {cause}")
        return report

    def _miss(self) -> str:
        """Why the item is not reused, naming what changed since it was recorded."""
        path = self._item_path()
        data = read_under(path, self.store, MAX_ITEM_BYTES)
        if data is None:
            return "not in the reuse store: this item was never recorded there"
        last = parse_strict(data, path, ItemFile)
        stale = stale_parts(last.key, self.key)
        changes = [*stale.get("runner", []), *stale.get("judge", [])]
        when = _when(last.origin)
        if not changes:
            return f"its entry, recorded {when}, is no longer in the reuse store"
        return f"recorded {when} for other content: {'; '.join(changes)}"

    def _item_path(self) -> Path:
        item = self.item
        return cassette_path(
            self.store / "items",
            str(item["skill"]),
            str(item["case"]),
            str(item["runner"]),
            str(item["arm"]),
            int(item["repeat"]) - 1,
        )


def key_digest(key: Sequence[KeyPart]) -> str:
    """The content an outcome is a function of, as one digest (a part's order aside)."""
    return digest(sorted((part.name, part.sha256) for part in key))


def recording_origin() -> Origin:
    """This run's commit (the working directory's ``HEAD``) and the time, to the second."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Origin(commit=_head(str(Path.cwd())), at=now)


@functools.lru_cache(maxsize=4)
def _head(cwd: str) -> str | None:
    """``git rev-parse HEAD`` once per process; None outside git (said, not guessed)."""
    executable = find_git()
    if executable is None:
        return None
    try:
        head = Git(executable, Path(cwd)).run("rev-parse", "--verify", "-q", "HEAD")
    except GitFailed:
        return None
    text = head.decode("ascii", "replace").strip()
    return text if len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text) else None


def _when(origin: Origin) -> str:
    at = origin.at.replace("T", " ").removesuffix("Z") + " UTC"
    return f"{at} at commit {origin.commit[:8]}" if origin.commit else at


def _render(index: ItemFile) -> bytes:
    text = json.dumps(index.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False)
    return (text + "\n").encode("utf-8")
