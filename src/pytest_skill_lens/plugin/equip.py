"""What an item acts with: its runner, judge, evaluators and workspace.

The plugin's fixtures (:mod:`.fixtures`), the item's own shortcut
(:class:`.items.CaseItem`) and the prefetcher (:mod:`.concurrency`) build them here.
Each is built once per session and shared (the runner once per name and sandbox
decision); the workspace is the item's own. Heavy modules are imported where a value is
first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..perform.outcome import CaseIdentity
    from ..run.runner import Runner
    from ..run.sandbox import SandboxDecision
    from ..run.workspace import Workspace
    from ..score.check import Evaluator
    from ..score.judge import Judge
    from ..settings import Settings
    from ..suite.model import EvalCase
    from .state import SessionState


def run_sandbox(state: SessionState) -> SandboxDecision | None:
    """The run's sandbox decision, made once: ``None`` when scripts are off."""
    caches = state.caches
    if caches.sandbox is None:
        from ..run.sandbox import decide

        settings = state.run.settings
        caches.sandbox = (decide(settings.script_sandbox) if settings.allow_scripts else None,)
    return caches.sandbox[0]


def runner_for(state: SessionState, name: str, sandbox: SandboxDecision | None) -> Runner:
    """The runner ``name``, built once per sandbox decision and shared by every item."""
    _note_sandbox(state, sandbox)
    key = (name, sandbox)
    runner = state.caches.runners.get(key)
    if runner is None:  # asked of every item: the import only where one is built
        from .registry import build_runner

        runner = build_runner(state.config, name, state.run.settings, sandbox)
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

        settings = state.run.settings
        state.caches.judge = build_judge(state.config, settings.judge, settings)
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
    from ..run.workspace import Limits, Workspace, workspace_label

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
    from ..run.workspace import WorkspaceError

    if isinstance(exc, WorkspaceError):
        return f"WorkspaceError: {exc}"
    return f"a fixture could not be set up: {type(exc).__name__}: {exc}"
