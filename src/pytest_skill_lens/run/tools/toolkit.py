"""Every built-in tool a framework runner offers for one case, from one place.

Both framework runners call :func:`builtin_tools`, so the agent sees the same
names, descriptions and schemas whichever framework drives it: the workspace
tools first, then the bundle tools (``list_skill_files``, ``read_skill_file``
and, under ``allow_scripts``, ``run_script``) when the skill ships a bundle.
A case without a workspace gets none of them.
"""

from __future__ import annotations

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..sandbox.script_sandbox import SandboxDecision
from ..workspace.workspace import Workspace
from .bundle_tools import bundle_tools, skill_bundle
from .script_tool import with_run_script
from .skill_tool import offered_tools
from .workspace_tools import BuiltinTool, workspace_tools


def builtin_tools(
    skill: Skill,
    workspace: Workspace | None,
    settings: Settings,
    sandbox: SandboxDecision | None = None,
) -> list[BuiltinTool]:
    """The built-in tools for a case run with ``skill`` in ``workspace``, in offering order.

    ``sandbox`` is where ``run_script`` runs scripts; ``None`` means the run's own
    decision for ``script_sandbox``.
    """
    if workspace is None:
        return []
    tools = workspace_tools(workspace)
    # The skill's bundle (run/tools/bundle_tools.py): only when it ships at least one file.
    bundle = skill_bundle(skill)
    tools += bundle_tools(bundle)
    # run_script (run/tools/script_tool.py): only under allow_scripts, with a file under scripts/.
    return with_run_script(tools, bundle, workspace, settings, sandbox)


def harness_tools(
    skill: Skill,
    case: EvalCase,
    workspace: Workspace | None,
    settings: Settings,
    sandbox: SandboxDecision | None = None,
) -> list[BuiltinTool]:
    """Every tool the harness adds to a case's own: the offered skill's tool under
    ``mode: offered``, then :func:`builtin_tools` (registered in offered cases too)."""
    return offered_tools(skill, case) + builtin_tools(skill, workspace, settings, sandbox)
