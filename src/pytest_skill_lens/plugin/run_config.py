"""The run's configuration: decided once in ``pytest_configure``, read-only after."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # kept out of the import path of a run without --skill-lens
    from ..gate.record import RunSettings
    from ..run.changed import Changes
    from ..settings import Settings


@dataclass(frozen=True)
class Shard:
    """``--skill-lens-shard K/N``: shard ``index`` (1-based) of ``count`` (see :mod:`.shard`)."""

    index: int
    count: int

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class ChangedAsk:
    """``--skill-lens-changed [REF]``: ``ref`` as given, ``None`` for the default branch's
    merge base."""

    ref: str | None


@dataclass(frozen=True)
class RunConfig:
    """What flags, ini keys and ``skill-lens.toml`` settled (see :mod:`.configure`)."""

    settings: Settings
    config_path: Path | None  # None: the defaults, no skill-lens.toml
    roots: tuple[Path, ...]  # the skill paths, resolved
    runner_names: tuple[str, ...]
    evals_override: Path | None = None  # --skill-lens-evals
    json_path: Path | None = None
    markdown_path: Path | None = None
    markdown_max_chars: int | None = None
    html_path: Path | None = None  # --skill-lens-html
    # The one sandbox decision, when scripts are on: {sandbox, detail, hardening}.
    scripts: Mapping[str, str | None] | None = None
    shard: Shard | None = None  # --skill-lens-shard K/N
    # Where the judge's name came from ("--skill-lens-judge", "<toml>, field 'judge'", or
    # "" for the default): named when the name turns out unknown at collection.
    judge_source: str = ""
    # The same for the runners: "--skill-lens-runner" or "<toml>, field 'default_runner'".
    runner_source: str = ""
    cassette_dir: Path | None = None  # --skill-lens-cassettes or the toml's; None: by each file
    reuse_dir: Path | None = None  # --skill-lens-reuse or the toml's reuse; None: off
    changes: Changes | None = None  # --skill-lens-changed: what differs from REF, read once

    def recorded(self) -> RunSettings:
        """What the report must say of this run for a merge of shards to judge it again."""
        from ..gate.fingerprint import settings_digests
        from ..gate.record import GateSettings, RunSettings

        s = self.settings
        return RunSettings(
            fingerprint=settings_digests(s.model_dump(mode="json")),
            shard=self.shard.label if self.shard is not None else None,
            runners=self.runner_names,
            repeat=s.repeat,
            gate=GateSettings(
                min_pass_rate=s.min_pass_rate,
                fail_on_error=s.fail_on_error,
                per_skill_min=dict(s.per_skill_min),
                min_delta=s.min_delta,
                min_delta_confidence=s.min_delta_confidence,
                min_case_pass_rate=s.min_case_pass_rate,
                multiplicity=s.multiplicity,
                per_skill_min_confidence=s.per_skill_min_confidence,
                max_spend_usd=s.max_spend_usd,
            ),
        )
