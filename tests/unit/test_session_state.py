"""The session's typed parts: the collection facts an xdist worker sends, and the frozen
run configuration."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pytest_skill_lens.gate.delta import BaselineNote
from pytest_skill_lens.plugin.facts import CollectionFacts, PlannedItem
from pytest_skill_lens.plugin.results import SessionResults
from pytest_skill_lens.plugin.run_config import RunConfig
from pytest_skill_lens.run.sandbox.product_sandbox import ProductSandbox
from pytest_skill_lens.run.sandbox.script_sandbox import SandboxDecision
from pytest_skill_lens.settings import Settings


def _facts(skill: str, *, errors: int = 0) -> CollectionFacts:
    nodeid = f"skills/{skill}/SKILL.md::case[fake]"
    return CollectionFacts(
        skills_by_name={skill.casefold(): Path(f"/work/skills/{skill}/SKILL.md")},
        skipped_skills={f"{skill}-empty"},
        deselected_skills={f"{skill}-gone"},
        deselected_cases={f"{skill}-gone", skill},
        deselected_by={"-k"},
        planned={nodeid: PlannedItem(skill, "case", "fake", "candidate", 0, 3)},
        idle_scripts={skill: 2},
        collection_errors=errors,
        baseline_notes={
            (skill, "", ""): BaselineNote(skill, "unavailable", "git is not installed"),
            (skill, "offered", ""): BaselineNote(skill, "skipped", "no skill to offer", "offered"),
        },
    )


def test_facts_survive_a_round_trip_through_json() -> None:
    facts = _facts("Alpha", errors=1)
    # What xdist sends between processes is plain data: JSON is the strictest such test.
    sent = json.loads(json.dumps(facts.to_dict()))
    assert CollectionFacts.from_dict(sent) == facts


def test_empty_facts_survive_a_round_trip() -> None:
    assert CollectionFacts.from_dict(CollectionFacts().to_dict()) == CollectionFacts()


def test_to_dict_copies_so_the_sent_data_does_not_change_with_the_facts() -> None:
    facts = _facts("alpha")
    sent = facts.to_dict()
    facts.planned["other"] = PlannedItem("alpha", "other", "fake", "candidate", 0, 9)
    facts.idle_scripts["alpha"] = 5
    assert "other" not in sent["planned"]
    assert sent["idle_scripts"] == {"alpha": 2}


def test_merge_unites_what_every_worker_found() -> None:
    controller = CollectionFacts()
    controller.merge(_facts("alpha"))
    controller.merge(_facts("beta"))
    controller.merge(_facts("beta"))  # every worker collects everything: merging is idempotent

    assert set(controller.skills_by_name) == {"alpha", "beta"}
    assert controller.skipped_skills == {"alpha-empty", "beta-empty"}
    assert controller.deselected_skills == {"alpha-gone", "beta-gone"}
    assert controller.deselected_cases == {"alpha-gone", "alpha", "beta-gone", "beta"}
    assert controller.deselected_by == {"-k"}
    assert sorted(controller.planned) == [
        "skills/alpha/SKILL.md::case[fake]",
        "skills/beta/SKILL.md::case[fake]",
    ]
    assert controller.idle_scripts == {"alpha": 2, "beta": 2}


def test_merge_leaves_the_controllers_count_of_collection_errors() -> None:
    # The controller counts each failed collection report once, as xdist relays it.
    controller = CollectionFacts(collection_errors=1)
    controller.merge(_facts("alpha", errors=1))
    controller.merge(_facts("beta", errors=1))
    assert controller.collection_errors == 1


def test_merge_of_nothing_changes_nothing() -> None:
    facts = _facts("alpha")
    before = CollectionFacts.from_dict(facts.to_dict())
    facts.merge(CollectionFacts())
    assert facts == before


def test_baseline_notes_come_out_in_one_order_however_workers_found_them() -> None:
    first, second = CollectionFacts(), CollectionFacts()
    second.add_baseline_note(BaselineNote("zeta", "unavailable", "no earlier version"))
    second.add_baseline_note(BaselineNote("alpha", "skipped", "offered", "b-case"))
    first.add_baseline_note(BaselineNote("alpha", "unavailable", "not a repository"))
    first.merge(second)
    keys = [(n.skill_name, n.case_name) for n in first.sorted_baseline_notes()]
    assert keys == [("alpha", ""), ("alpha", "b-case"), ("zeta", "")]


def test_the_run_configuration_is_frozen() -> None:
    run = RunConfig(
        settings=Settings(),
        config_path=None,
        roots=(Path("/work/skills"),),
        runner_names=("fake",),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.roots = ()  # type: ignore[misc]
    assert run.scripts is None and run.json_path is None


def test_the_records_sandbox_lines_come_from_the_run_configurations_typed_decisions() -> None:
    from pytest_skill_lens.plugin.finish import build_record

    product = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")
    scripts = SandboxDecision("none", detail="bwrap not found on PATH")
    run = RunConfig(
        settings=Settings(default_runner="claude-code", allow_scripts=True),
        config_path=None,
        roots=(Path("/work/skills"),),
        runner_names=("claude-code",),
        script_sandbox=scripts,
        hardening="hidden",
        product_sandbox=product,
    )
    record = build_record(run, CollectionFacts(), SessionResults())
    assert record.scripts == {
        "sandbox": "none",
        "detail": "bwrap not found on PATH",
        "hardening": "hidden",
    }
    assert [(entry.name, entry.sandbox) for entry in record.products] == [("claude-code", product)]
