"""What an item acts with: its runner, judge, evaluators and workspace, made one way.

Three paths give an item these, and all take them from here: the plugin's fixtures
(pytest resolves them where a ``conftest.py`` defines one again, :mod:`.fixtures`), the
item's own shortcut where none is (:class:`.items.CaseItem`), and the prefetcher that
starts items ahead of their turn (:mod:`.concurrency`). Each is built once per session
and shared (the runner once per name and sandbox decision); the workspace is the item's
own. Heavy modules are imported where a value is first built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ..perform.outcome import CaseIdentity
    from ..perform.pipeline import Evaluators
    from ..run.runner import Runner
    from ..run.sandbox.script_sandbox import SandboxDecision
    from ..run.workspace.workspace import Workspace
    from ..score.check import Evaluator
    from ..score.judge import Judge
    from ..settings import Settings
    from ..suite.model import EvalCase
    from .state import SessionState

_NO_VALUES: Mapping[str, object] = {}


@dataclass(frozen=True)
class Equipment:
    """What one item acts with."""

    runner: Runner
    judge: Judge | None  # only for a case with a rubric
    evaluators: Evaluators  # added by conftests: the tuple, or how to ask for it
    workspace: Workspace | None  # only for a case with a workspace: block
    made_workspace: bool  # made here, not by a fixture: its taker deletes it


def equip(
    state: SessionState,
    case: EvalCase,
    identity: CaseIdentity,
    given: Mapping[str, object] = _NO_VALUES,
    *,
    ahead: bool = False,
) -> Equipment:
    """The item's runner, judge, evaluators and workspace.

    ``given``: the fixture values pytest resolved for the item (a conftest's override or
    wrapper, checked by perform); what it lacks is made as the plugin's fixtures make it.
    ``ahead``: for a run started on another thread, so the evaluators hook is asked now,
    on this one; otherwise once scoring starts.
    """
    if "skill_lens_runner" in given:
        runner = cast("Runner", given["skill_lens_runner"])
    else:
        given_sandbox = "skill_lens_sandbox" in given  # None is a decision: scripts off
        sandbox = given["skill_lens_sandbox"] if given_sandbox else run_sandbox(state)
        runner = runner_for(state, identity.runner, cast("SandboxDecision | None", sandbox))
    judge = cast("Judge | None", given.get("skill_lens_judge"))
    if case.judge is not None and "skill_lens_judge" not in given:
        judge = judge_of(state)
    evaluators: Evaluators = evaluators_of(state) if ahead else (lambda: evaluators_of(state))
    if "skill_lens_workspace" in given:
        workspace = cast("Workspace | None", given["skill_lens_workspace"])
        return Equipment(runner, judge, evaluators, workspace, made_workspace=False)
    workspace = new_workspace(case, identity, state.run.settings)
    return Equipment(runner, judge, evaluators, workspace, made_workspace=workspace is not None)


def run_sandbox(state: SessionState) -> SandboxDecision | None:
    """The run's script sandbox decision, made at configure: ``None`` when scripts are off."""
    return state.run.script_sandbox


def runner_for(state: SessionState, name: str, sandbox: SandboxDecision | None) -> Runner:
    """The runner ``name``, built once per sandbox decision and shared by every item."""
    _note_sandbox(state, sandbox)
    key = (name, sandbox)
    runner = state.caches.runners.get(key)
    if runner is None:  # asked of every item: the import only where one is built
        from .registry import build_runner

        run = state.run
        runner = build_runner(state.config, name, run.settings, sandbox, run.product_sandbox)
        state.caches.runners[key] = runner
    return runner


def _note_sandbox(state: SessionState, decision: SandboxDecision | None) -> None:
    """Remember a sandbox a conftest chose instead of the run's, so the report says so."""
    scripts = state.run.scripts
    if decision is None or scripts is None:
        return
    if (decision.backend, decision.detail) != (scripts["sandbox"], scripts["detail"]):
        state.results.sandbox_overrides.add(decision.label)


def judge_of(state: SessionState) -> Judge:
    """The judge that grades every rubric of the session, built once."""
    if state.caches.judge is None:
        from .registry import build_judge

        settings, decision = state.run.settings, state.run.product_sandbox
        state.caches.judge = build_judge(state.config, settings.judge, settings, decision)
    return state.caches.judge


def evaluators_of(state: SessionState) -> tuple[Evaluator, ...]:
    """Evaluators that conftests add, asked for once every conftest has loaded."""
    caches, config = state.caches, state.config
    if caches.evaluators is None:
        groups = config.hook.pytest_skill_lens_evaluators(config=config)
        caches.evaluators = tuple(evaluator for group in groups for evaluator in group or ())
    return caches.evaluators


def new_workspace(case: EvalCase, identity: CaseIdentity, settings: Settings) -> Workspace | None:
    """The item's fresh, seeded workspace; ``None`` for a case without a ``workspace:`` block."""
    block = case.workspace
    if block is None:  # asked of every item: no import for the common case
        return None
    from ..run.workspace.workspace import Limits, Workspace, workspace_label

    label = workspace_label(
        identity.skill_name,
        identity.case_name,
        identity.runner,
        identity.arm,
        f"r{identity.repeat_index + 1}",
    )
    return Workspace.create(
        label,
        block.files,
        Limits.from_settings(settings),
        kept=settings.keep_workspace,  # a kept one is never swept by a later run
    )


def fixture_failure(exc: Exception) -> str:
    """Why an item could not be given what it acts with: its errored outcome's reason."""
    from ..run.workspace.workspace import WorkspaceError

    if isinstance(exc, WorkspaceError):
        return f"WorkspaceError: {exc}"
    return f"a fixture could not be set up: {type(exc).__name__}: {exc}"
