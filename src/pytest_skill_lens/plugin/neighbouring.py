"""Each case's neighbours, resolved at collection (suite/neighbours.py has the rules).

A case's own ``neighbours:`` and the file's list are resolved as its skill is collected;
``neighbours = "suite"`` once every skill of the run is known, at the end of collection.
The item's skill carries them (``Skill.neighbours``), so every runner reads them there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from ..suite.errors import AuthoringError, combined
from ..suite.loaded import LoadedCase
from ..suite.neighbours import SUITE, Configured, case_neighbours, suite_neighbours
from ..suite.skill import Skill, load_skill
from .run_config import RunConfig
from .state import SessionState

Offered = dict[tuple[int, Path], tuple[Skill, ...]]  # (case index, eval file) -> neighbours


def offered_with(
    skill: Skill, cases: Sequence[LoadedCase], run: RunConfig, errors: list[AuthoringError]
) -> Offered:
    """Each case's neighbours (its own, or the file's list); every mistake is added to
    ``errors``."""
    wanted = run.settings.neighbours
    configured = None
    if isinstance(wanted, list) and run.config_path is not None:
        configured = Configured(tuple(wanted), run.config_path)
    offered: Offered = {}
    for loaded in cases:
        found, wrong = case_neighbours(skill, loaded, configured)
        errors += wrong
        offered[loaded.index, loaded.file] = found
    return offered


def with_neighbours(skill: Skill, neighbours: tuple[Skill, ...]) -> Skill:
    """The skill as a case offers it: with its neighbours, if it has any."""
    return dataclasses.replace(skill, neighbours=neighbours) if neighbours else skill


def offer_the_suite(state: SessionState, items: Sequence[pytest.Item]) -> None:
    """``neighbours = "suite"``: every offered case without neighbours of its own is
    offered every other skill the run collected. A mistake stops the run (exit 2)."""
    run = state.run
    if run.settings.neighbours != SUITE or run.config_path is None:
        return
    from .items import CaseItem

    suite = [load_skill(path) for path in sorted(set(state.facts.skills_by_name.values()))]
    errors: list[AuthoringError] = []
    for item in items:
        if not isinstance(item, CaseItem):
            continue
        case = item.loaded.case
        if case.mode != "offered" or case.neighbours is not None:
            continue
        found, wrong = suite_neighbours(item.skill, item.loaded, suite, run.config_path)
        errors += wrong
        item.skill = item.acting_skill = with_neighbours(item.skill, found)
    if errors:
        from .flags import user_error

        user_error("authoring error: " + combined(errors).message)
