"""``run_script``: run one of the skill's bundled scripts, as a built-in tool.

Offered only under ``allow_scripts`` (nothing in an eval file or SKILL.md can turn
it on), in a workspace case whose skill ships a file under ``scripts/``. It never
raises: every outcome, a refusal included, is text the model reads, and an
unrunnable script is a fact about the skill, not an errored case.

What runs is ``<interpreter argv> <the script's real path> <args...>`` with the
workspace as the current directory, the interpreter chosen by the file's
extension from ``script_interpreters``. The process layer (:mod:`..process.start`) adds
the portable guards, the sandbox (:mod:`..sandbox.script_sandbox`) the OS one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ...settings import Settings
from ..process.leftovers import RUN_DIR_VARIABLE, owner_mark, remove_marked
from ..process.start import Finished, StartFailed, run_process, script_env
from ..process.temp_parent import make_dir
from ..sandbox.bwrap import dies_with_parent
from ..sandbox.script_sandbox import CannotWrap, SandboxDecision, decide, wrap
from ..workspace.bundle import SCRIPTS_DIR, Bundle
from ..workspace.workspace import Workspace
from .workspace_tools import BuiltinTool

NAME = "run_script"
DESCRIPTION = (
    "Run a bundled script (a file under scripts/, e.g. `scripts/check.py`) with the working "
    "directory as its current directory. `path` is relative to the skill's directory, as "
    "list_skill_files shows it; `args` are its command-line arguments. Returns the exit code, "
    "stdout and stderr"
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "args": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def normalised_interpreters(settings: Settings) -> dict[str, list[str]]:
    """``script_interpreters`` with keys stripped, without a leading dot, lower-cased."""
    return {
        ext.strip().lstrip(".").lower(): list(argv)
        for ext, argv in settings.script_interpreters.items()
    }


def extension(path: str) -> str:
    return PurePosixPath(path).suffix.lstrip(".").lower()


def missing_interpreter(script: str, settings: Settings, path_env: str | None) -> str | None:
    """The interpreter ``script`` needs that is not on PATH, or ``None`` (also when unmapped)."""
    argv = normalised_interpreters(settings).get(extension(script))
    if argv is None or shutil.which(argv[0], path=path_env) is not None:
        return None
    return argv[0]


def missing_interpreters(
    skill_dir: Path, settings: Settings, *, also_withheld: Iterable[Path] = ()
) -> tuple[str, str] | None:
    """The first bundled script (and its interpreter) whose interpreter is not on PATH.

    The preflight over every discovered skill; an unmapped extension is simply not
    runnable, not an error.
    """
    path_env = os.environ.get("PATH", os.defpath)
    for script in Bundle.of(skill_dir, also_withheld=also_withheld).scripts():
        interpreter = missing_interpreter(script, settings, path_env)
        if interpreter is not None:
            return script, interpreter
    return None


def runnable_script_count(
    skill_dir: Path, settings: Settings, *, also_withheld: Iterable[Path] = ()
) -> int:
    """How many bundled scripts have a mapped interpreter: what a "scripts are off" note counts."""
    mapped = normalised_interpreters(settings)
    scripts = Bundle.of(skill_dir, also_withheld=also_withheld).scripts()
    return sum(1 for script in scripts if extension(script) in mapped)


def run_script_tool(
    bundle: Bundle,
    workspace: Workspace,
    settings: Settings,
    sandbox: SandboxDecision | None = None,
) -> BuiltinTool:
    """The ``run_script`` tool over ``bundle`` in ``workspace``, under ``sandbox``."""

    def call(arguments: Mapping[str, Any]) -> str:
        try:
            if "path" not in arguments:
                return "refused: run_script needs path (missing: path)"
            path, args = arguments["path"], arguments.get("args")
            return run_script(bundle, workspace, settings, path, args, sandbox)
        except Exception as exc:  # a built-in tool answers, it never raises
            return f"error: run_script failed: {type(exc).__name__}: {exc}"

    return BuiltinTool(NAME, DESCRIPTION, SCHEMA, call)


def run_script(
    bundle: Bundle,
    workspace: Workspace,
    settings: Settings,
    path: object,
    args: object,
    sandbox: SandboxDecision | None = None,
) -> str:
    """Run bundled script ``path`` with ``args``; the text the model reads.

    ``sandbox`` is the decision to run under; ``None`` means the run's own
    (``script_sandbox``, probed once per process).
    """
    if not isinstance(path, str):
        return f"refused: path is text, not {type(path).__name__}"
    arguments = _arguments(args)
    if isinstance(arguments, str):
        return arguments
    rel = path.removeprefix("./")
    if not _under_scripts(rel):
        return f"refused: {path!r} is not under {SCRIPTS_DIR}/; only bundled scripts can be run"
    if bundle.refusal is not None:
        return bundle.refusal
    scripts = bundle.scripts()
    if rel not in scripts:
        shipped = ", ".join(scripts) or "(none)"
        return f"refused: no such script {rel!r}; bundled scripts: {shipped}"
    real = bundle.resolve(rel)
    if isinstance(real, str):
        return real
    interpreters = normalised_interpreters(settings)
    interpreter = interpreters.get(extension(rel))
    if interpreter is None:
        allowed = ", ".join(sorted(interpreters))
        return (
            f"refused: {rel!r} has no configured interpreter; script_interpreters allows: {allowed}"
        )
    with _scratch_dir() as scratch:
        # Named, so what the script leaves running is killed before its scratch is removed.
        env = {**script_env(scratch), RUN_DIR_VARIABLE: str(scratch)}
        executable = shutil.which(interpreter[0], path=env.get("PATH"))
        if executable is None:
            return f"refused: {rel} needs {interpreter[0]}, which is not on PATH"
        decision = sandbox if sandbox is not None else decide(settings.script_sandbox)
        command = [executable, *interpreter[1:], str(real), *arguments]
        try:
            finished = _execute(decision, command, bundle, workspace, scratch, env, settings)
        except StartFailed as exc:
            return f"refused: cannot start {interpreter[0]}: {exc}"
    failed_exec = _sandboxed_exec_failure(decision, finished)
    if failed_exec is not None:
        return f"refused: cannot start {interpreter[0]}: {failed_exec}"
    return _render(finished, settings, workspace)


def _arguments(args: object) -> list[str] | str:
    if args is None:
        return []
    if not isinstance(args, list | tuple) or not all(isinstance(a, str) for a in args):
        return 'refused: args is a list of strings, e.g. ["app.log"]'
    return list(args)


def _under_scripts(rel: str) -> bool:
    parts = rel.split("/")
    return (
        len(parts) >= 2
        and parts[0] == SCRIPTS_DIR
        and all(part not in ("", ".", "..") for part in parts)
    )


@contextlib.contextmanager
def _scratch_dir() -> Any:
    """A fresh directory for the script's TMPDIR and its output files, deleted after the call.

    It sits beside the workspace in the skill-lens parent (:mod:`..process.temp_parent`),
    never inside it, so what a script leaves there is in no listing, check or judge artifact.
    """
    # Marked with this process, so a run killed mid-script has it swept by the next.
    made = make_dir("skill-lens-scratch-", owner_mark())
    try:
        yield made.resolve()
    finally:
        remove_marked(made)


def _execute(
    decision: SandboxDecision,
    command: Sequence[str],
    bundle: Bundle,
    workspace: Workspace,
    scratch: Path,
    env: Mapping[str, str],
    settings: Settings,
) -> Finished:
    assert bundle.root is not None  # a shipped script implies a bundle directory
    try:
        argv = wrap(
            decision, list(command), workspace=workspace.root, scratch=scratch, bundle=bundle.root
        )
    except CannotWrap as exc:
        raise StartFailed(str(exc)) from None
    return run_process(
        argv,
        cwd=workspace.root,
        env=env,
        timeout=settings.script_timeout_seconds,
        max_output_bytes=settings.max_script_output_bytes,
        # bwrap's --die-with-parent arms the parent-death signal itself (see ..process.start)
        arm_death_signal=not (decision.backend == "bwrap" and dies_with_parent(decision.isolation)),
    )


def _sandboxed_exec_failure(decision: SandboxDecision, finished: Finished) -> str | None:
    """bwrap's own report that it could not exec the interpreter, or ``None``.

    Outside a sandbox that failure is an exception from the start; inside bwrap it
    is bwrap exiting 1 with ``bwrap: execvp <path>: <reason>``, which is the same
    fact and gets the same refusal.
    """
    if decision.backend != "bwrap" or finished.exit_code != 1 or finished.stdout.data:
        return None
    first = finished.stderr.data.decode("utf-8", errors="replace").strip()
    if "\n" in first or not first.startswith("bwrap: execvp "):
        return None
    return first.rpartition(": ")[2] or first


def _render(finished: Finished, settings: Settings, workspace: Workspace) -> str:
    if finished.over_cap is not None:
        cap = settings.max_script_output_bytes
        head = f"stopped: the output passed max_script_output_bytes ({cap:,} bytes)"
    elif finished.timed_out:
        head = f"stopped after {settings.script_timeout_seconds:g} s (script_timeout_seconds)"
    else:
        head = f"exit code: {finished.exit_code}"
    lines = [head, "stdout:", finished.stdout.text(), "stderr:", finished.stderr.text()]
    warning = over_cap(workspace)
    if warning is not None:
        lines.append(f"warning: {warning}")
    return "\n".join(lines)


def over_cap(workspace: Workspace) -> str | None:
    """How the workspace is over ``max_total_bytes`` or ``max_files``, or ``None``.

    A script writes to disk directly, so the caps cannot refuse it beforehand; they
    are measured after the call instead.
    """
    try:
        files, total = workspace.usage()
    except Exception:  # a workspace that cannot be measured is not known to be over
        return None
    limits = workspace.limits
    if total > limits.max_total_bytes:
        return (
            f"the working directory now holds {total:,} bytes; "
            f"max_total_bytes is {limits.max_total_bytes:,}"
        )
    if files > limits.max_files:
        return f"the working directory now holds {files:,} files; max_files is {limits.max_files:,}"
    return None


def guard_writes(tool: BuiltinTool, workspace: Workspace) -> BuiltinTool:
    """``write_file`` refusing every write while a script has left the workspace over a cap."""

    def call(arguments: Mapping[str, Any]) -> str:
        problem = over_cap(workspace)
        if problem is not None:
            return f"refused: {problem}, so write_file is refused"
        return tool.call(arguments)

    return BuiltinTool(tool.name, tool.description, tool.schema, call)


def with_run_script(
    tools: list[BuiltinTool],
    bundle: Bundle,
    workspace: Workspace,
    settings: Settings,
    sandbox: SandboxDecision | None = None,
) -> list[BuiltinTool]:
    """``tools`` plus ``run_script`` when scripts are on and the skill ships one under scripts/."""
    if not settings.allow_scripts or not bundle.scripts():
        return tools
    guarded = [guard_writes(t, workspace) if t.name == "write_file" else t for t in tools]
    return [*guarded, run_script_tool(bundle, workspace, settings, sandbox)]
