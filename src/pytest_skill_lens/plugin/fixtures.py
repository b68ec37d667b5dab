"""The fixtures a case item runs with: real pytest fixtures a ``conftest.py`` can wrap.

A case item is a :class:`pytest.Function` whose signature names them, so pytest
resolves them per directory like any fixture: a ``conftest.py`` that defines one
of the same name overrides it, and one that takes it as an argument wraps it.
The item acts in its setup, once pytest has filled them:

* ``skill_lens_runner``: the runner that performs the item (built once per name);
* ``skill_lens_judge`` (session): the judge that grades a rubric;
* ``skill_lens_sandbox`` (session): the OS sandbox decision bundled scripts run under;
* ``skill_lens_workspace``: the item's fresh, seeded workspace (``None`` for a case
  without a ``workspace:`` block), deleted at teardown unless kept.

A fixture that raises makes the item *errored* with the exception as its reason,
never failed. Heavy modules are imported inside, so registering these costs a run
without ``--skill-lens`` nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .state import SessionState, get_state

if TYPE_CHECKING:
    from ..run.sandbox import SandboxDecision
    from ..run.workspace import Workspace
    from .items import CaseItem

CASE_FIXTURES = (
    "skill_lens_sandbox",
    "skill_lens_runner",
    "skill_lens_judge",
    "skill_lens_workspace",
)


def _case_item(request: pytest.FixtureRequest, fixture: str) -> CaseItem:
    from .items import CaseItem

    node = request.node
    if not isinstance(node, CaseItem):
        pytest.fail(f"{fixture} belongs to skill-lens case items, not to {node.nodeid}", False)
    return node


def _state(config: pytest.Config, fixture: str) -> SessionState:
    state = get_state(config)
    if state is None:
        pytest.skip(f"{fixture}: pytest-skill-lens is not enabled (no --skill-lens PATH)")
    return state


@pytest.fixture(scope="session")
def skill_lens_sandbox(request: pytest.FixtureRequest) -> SandboxDecision | None:
    """Where ``run_script`` runs bundled scripts: ``bwrap``, ``sandbox-exec`` or none (why).

    ``None`` when scripts are off: nothing runs, so nothing is probed.
    """
    from ..run.sandbox import decide

    # request.config, not pytestconfig: one fixture less to resolve for every item.
    settings = _state(request.config, "skill_lens_sandbox").settings
    return decide(settings.script_sandbox) if settings.allow_scripts else None


@pytest.fixture
def skill_lens_runner(
    request: pytest.FixtureRequest, skill_lens_sandbox: SandboxDecision | None
) -> Any:
    """The runner that performs this item, shared by every item of the same runner name."""
    from .registry import build_runner

    item = _case_item(request, "skill_lens_runner")
    state = _state(request.config, "skill_lens_runner")
    _note_sandbox(state, skill_lens_sandbox)
    key = (item.runner_name, skill_lens_sandbox)
    runner = state.runners.get(key)
    if runner is None:
        runner = build_runner(item.config, item.runner_name, state.settings, skill_lens_sandbox)
        state.runners[key] = runner
    return runner


def _note_sandbox(state: SessionState, decision: SandboxDecision | None) -> None:
    """Remember a sandbox a conftest chose instead of the run's, so the report says so."""
    if decision is None or state.scripts is None:
        return
    if (decision.backend, decision.detail) != (state.scripts["sandbox"], state.scripts["detail"]):
        state.sandbox_overrides.add(decision.label)


@pytest.fixture(scope="session")
def skill_lens_judge(request: pytest.FixtureRequest) -> Any:
    """The judge that grades every rubric of the session."""
    from .registry import build_judge

    state = _state(request.config, "skill_lens_judge")
    if state.judge is None:
        state.judge = build_judge(request.config, state.settings.judge, state.settings)
    return state.judge


@pytest.fixture
def skill_lens_workspace(request: pytest.FixtureRequest) -> Iterator[Workspace | None]:
    """A fresh directory seeded with the case's ``workspace: files:``; ``None`` without one.

    Deleted at teardown, unless ``--skill-lens-keep-workspace`` keeps it (its path
    is then printed in the summary).
    """
    from ..run.workspace import Limits, Workspace, workspace_label

    item = _case_item(request, "skill_lens_workspace")
    state = _state(request.config, "skill_lens_workspace")
    block = item.loaded.case.workspace
    if block is None:
        yield None
        return
    label = workspace_label(
        item.skill.name, item.case_name, item.runner_name, item.arm, f"r{item.repeat_index + 1}"
    )
    workspace = Workspace.create(
        label,
        block.files,
        Limits.from_settings(state.settings),
        kept=state.settings.keep_workspace,  # a kept one is never swept by a later run
    )
    try:
        yield workspace
    finally:
        if not state.settings.keep_workspace:
            workspace.cleanup()
