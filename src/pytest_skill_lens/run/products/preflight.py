"""What a product runner checks before any case runs (a refusal is exit 2 with the fix).

Two stages, as for every runner (run/catalog.py): :func:`settings_problem` reads the
configuration only, and runs even when cases are only listed; :func:`start_problem`
finds the executable on ``PATH``, executes ``--version`` under the run's product
sandbox (a product that will not start there is refused here, not per case) and,
under home isolation, makes sure the product has a way to sign in. A successful
``--version`` answer is remembered across sessions for the same executable file and
sandbox decision (:mod:`.version_memo`): only that start is spared, never a check.
"""

from __future__ import annotations

import shutil

from ...settings import ProductTable, Settings
from ..sandbox.product_sandbox import ProductSandbox
from .description import Preset, Problem
from .env import isolation_of, make_home, product_env, shared_env, signs_in
from .process import RunDir, RunDirFailed, StartFailed, run_dir, start_version
from .table_rules import table_problem
from .version_memo import MAX_ANSWER, question, recall, remember

VERSION_TIMEOUT = 30.0  # seconds; a product whose --version hangs will not run a case either
_VERSION_BYTES = 4_000
# The version each product's probe printed, for the report ("claude-code 2.1.332").
_versions: dict[str, str] = {}
# What each executable's --version answered in this process: a product that is both the
# runner and the judge (or named again) starts once for it, not twice.
_answered: dict[tuple[str, str], str] = {}


def probed_version(name: str) -> str | None:
    """The first line ``--version`` printed for product ``name`` in this process, if probed."""
    return _versions.get(name)


def settings_problem(preset: Preset, settings: Settings) -> Problem | None:
    # product_sandbox = "required" is held by the run's one decision (plugin/preflight.py).
    if preset.names_command:  # the table names the command: cli's own rules
        from .cli import settings_problem as command_rules

        return command_rules(settings)
    return table_problem(preset, preset.table(settings))


def start_problem(
    preset: Preset, settings: Settings, sandbox: ProductSandbox | None
) -> Problem | None:
    """The executable on PATH, its ``--version`` executed (under ``sandbox``, the run's
    product sandbox decision, as every case's start), and a way to sign in.

    Replaying only (``--skill-lens-record none``) starts no product at all, so none of
    it is asked: the product need not be installed or signed in, and its version is
    not compared with the cassette's (docs/replay.md).
    """
    if settings.record == "none":
        return None
    if preset.names_command:  # a command has no --version to probe: found on PATH only
        from .cli import start_problem as command_found

        return command_found(settings)
    table = preset.table(settings)
    isolation = isolation_of(settings.product_sandbox)
    try:
        with run_dir(f"{preset.name}-probe", sandbox=sandbox) as probe:
            # The shared directories only once the probe will start the product.
            env = product_env(preset, table, isolation, probe.home, sandbox=sandbox, shared=False)
            return _probe(preset, table, isolation == "home", probe, env)
    except RunDirFailed as exc:
        return (f"the {preset.name} runner cannot be probed: {exc}", "free space in the temp dir")


def _probe(
    preset: Preset, table: ProductTable, isolated: bool, probe: RunDir, env: dict[str, str]
) -> Problem | None:
    executable = table.command[0] if table.command else preset.executable
    own = preset.names_itself(table)
    found = shutil.which(executable, path=env.get("PATH"))
    if found is None:
        return (
            f"the {preset.name} runner needs {executable!r}, which is not on PATH",
            _install_fix(preset, own),
        )
    path = env.get("PATH")
    missing = [name for name in preset.companions if shutil.which(name, path=path) is None]
    if own and missing:
        return (
            f"the {preset.name} runner needs {missing[0]!r} on PATH beside {executable!r}",
            f"install it ({preset.install}); see docs/products.md",
        )
    if not own:
        return None  # a wrapper is not known to take --version or the preset's sign-in
    if isolated and not signs_in(preset, table):
        return (
            f"the {preset.name} runner runs under home isolation, where it can sign in only "
            f"from the environment, and none of {', '.join(preset.sign_in_variables)} is set",
            f"export one of them ({preset.auth_hint}), name the variable that holds your "
            f"credential in [runners.{preset.name}] pass_env, or set "
            'product_sandbox = "off" to run with your own home and login',
        )
    if isolated:  # as every case will start: Copilot's package unpacked once, here
        env = {**env, **shared_env(preset, table, env, probe.sandbox)}
    problem = _version_problem(preset, found, probe, env)
    if problem is None and isolated:  # and the product's first-run work, once
        from .home_template import prepare

        prepare(preset, table, env, probe.sandbox)
    return problem


def _version_problem(
    preset: Preset, found: str, probe: RunDir, env: dict[str, str]
) -> Problem | None:
    if (answered := _answered.get((preset.name, found))) is not None:
        _versions[preset.name] = answered
        return None
    asked = question(preset.name, found, probe.sandbox)  # the file's identity before the start
    if asked is not None and (remembered := recall(asked)) is not None:
        _versions[preset.name] = _answered[(preset.name, found)] = remembered
        return None
    make_home(probe.home)
    try:
        ran = start_version(
            found, probe, env, timeout=VERSION_TIMEOUT, max_output_bytes=_VERSION_BYTES
        )
    except (StartFailed, RunDirFailed) as exc:
        return (f"the {preset.name} runner could not start {found!r}: {exc}", _install_fix(preset))
    finished = ran.finished
    first = finished.stdout.data.decode("utf-8", errors="replace").strip().splitlines()
    if finished.exit_code == 0 and first:
        answer = first[0][:MAX_ANSWER]
        _versions[preset.name] = _answered[(preset.name, found)] = answer
        if asked is not None:
            remember(asked, answer)
        return None
    how = (
        f"did not answer within {VERSION_TIMEOUT:g} s"
        if finished.timed_out
        else f"exited with code {finished.exit_code}"
    )
    stderr = finished.stderr.data.decode("utf-8", errors="replace").strip()[-300:]
    return (
        f"the {preset.name} runner's executable {found!r} does not start: '--version' {how}"
        + (f"; stderr ends: {stderr}" if stderr else ""),
        _install_fix(preset),
    )


def _install_fix(preset: Preset, own: bool = True) -> str:
    if not own:
        return f"install the command [runners.{preset.name}] command names, or fix its path"
    where = f"so that {preset.executable!r} is on PATH"
    return f"install it ({preset.install}) {where}; see docs/products.md"
