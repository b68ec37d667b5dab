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

from .state import get_session

if TYPE_CHECKING:
    from ..run.sandbox.script_sandbox import SandboxDecision
    from ..run.workspace.workspace import Workspace
    from .items import CaseItem
    from .state import SessionState


def _case_item(request: pytest.FixtureRequest, fixture: str) -> CaseItem:
    from .items import CaseItem

    node = request.node
    if not isinstance(node, CaseItem):
        pytest.fail(f"{fixture} belongs to skill-lens case items, not to {node.nodeid}", False)
    return node


def _session(config: pytest.Config, fixture: str) -> SessionState:
    session = get_session(config)
    if session is None:
        pytest.skip(f"{fixture}: pytest-skill-lens is not enabled (no --skill-lens PATH)")
    return session


@pytest.fixture(scope="session")
def skill_lens_sandbox(request: pytest.FixtureRequest) -> SandboxDecision | None:
    """Where ``run_script`` runs bundled scripts: ``bwrap``, ``sandbox-exec`` or none (why).

    ``None`` when scripts are off: nothing runs, so nothing is probed.
    """
    from .equip import run_sandbox

    # request.config, not pytestconfig: one fixture less to resolve for every item.
    return run_sandbox(_session(request.config, "skill_lens_sandbox"))


@pytest.fixture
def skill_lens_runner(
    request: pytest.FixtureRequest, skill_lens_sandbox: SandboxDecision | None
) -> Any:
    """The runner that performs this item, shared by every item of the same runner name."""
    from .equip import runner_for

    item = _case_item(request, "skill_lens_runner")
    return runner_for(
        _session(request.config, "skill_lens_runner"), item.runner_name, skill_lens_sandbox
    )


@pytest.fixture(scope="session")
def skill_lens_judge(request: pytest.FixtureRequest) -> Any:
    """The judge that grades every rubric of the session."""
    from .equip import judge_of

    return judge_of(_session(request.config, "skill_lens_judge"))


@pytest.fixture
def skill_lens_workspace(request: pytest.FixtureRequest) -> Iterator[Workspace | None]:
    """A fresh directory seeded with the case's ``workspace: files:``; ``None`` without one.

    Deleted at teardown, unless ``--skill-lens-keep-workspace`` keeps it (its path
    is then printed in the summary).
    """
    from .equip import new_workspace

    item = _case_item(request, "skill_lens_workspace")
    settings = _session(request.config, "skill_lens_workspace").run.settings
    workspace = new_workspace(item.loaded.case, item.identity(), settings)
    if workspace is None:
        yield None
        return
    try:
        yield workspace
    finally:
        if not settings.keep_workspace:
            workspace.cleanup()


# The plugin's own definitions, which a conftest that imports them does not override.
OWN_FIXTURES = (skill_lens_sandbox, skill_lens_runner, skill_lens_judge, skill_lens_workspace)
