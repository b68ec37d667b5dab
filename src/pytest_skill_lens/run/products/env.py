"""Home isolation: the environment a product starts with, and the home it writes to.

Under ``product_sandbox = "auto"`` every run call gets a temporary home (``HOME``,
the ``XDG_*_HOME`` directories and ``TMPDIR`` point into it) and an environment
built from nothing: the allowlist below, the product's sign-in and endpoint
variables, and the names the table's ``pass_env`` lists. Built up rather than
filtered down, so a provider key of another product, a cloud credential or a CI
token is absent by construction. Under ``"off"`` the product gets the whole
environment and the real home: that is the product as you have it.

A preset's shared directories (Copilot's unpacked package, :mod:`.copilot_package`) are
the one exception to a home made anew: made once, named to every isolated call by their
variable, which ``pass_env`` may not name either.

That alone is not a sandbox: the product can still read and write anything the user
can. Where the run's probe found a working bwrap, ``auto`` and ``required`` also start
the product inside it (:mod:`..sandbox.product_sandbox`, through ``wrap_argv``); home
isolation is its precondition, so ``off`` is never wrapped.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ...settings import ProductTable
from .description import Preset

if TYPE_CHECKING:
    from ..sandbox.product_sandbox import ProductSandbox

# What every product may inherit: the search path, the locale and the terminal's kind.
ENV_ALLOWLIST = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TERM",
    "NO_COLOR",
)
WINDOWS_ALLOWLIST = ("SystemRoot", "COMSPEC", "PATHEXT")
# Pointed into the temporary home; the Windows names only apply there.
_HOME_DIRS = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}
_TEMP_NAMES = ("TMPDIR", "TMP", "TEMP")
_WINDOWS_HOME = {"USERPROFILE": "", "APPDATA": "AppData/Roaming", "LOCALAPPDATA": "AppData/Local"}
# Where a product keeps its own state instead of under HOME: absent under isolation
# (never allowlisted), so the temporary home is used, and never passed by name.
_PRODUCT_HOMES = ("COPILOT_HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_TMPDIR", "CLAUDE_TMPDIR")

Isolation = Literal["home", "off"]


def isolation_sets(preset: Preset) -> tuple[str, ...]:
    """Every variable home isolation (or the preset) controls: ``pass_env`` may not name one."""
    return (
        "HOME",
        *_HOME_DIRS,
        *_TEMP_NAMES,
        *_WINDOWS_HOME,
        *_PRODUCT_HOMES,
        *preset.fixed_env,
        *preset.root_env,
        *preset.launch_variables,
        *(shared.variable for shared in preset.shared_dirs),
    )


def isolation_of(product_sandbox: str) -> Isolation:
    """``off`` keeps the user's environment and home; ``auto`` and ``required`` isolate
    the home (and add the sandbox backend where one works; ``required`` without one
    stops the run before any case)."""
    return "off" if product_sandbox == "off" else "home"


def make_home(home: Path) -> None:
    """The directories the isolated environment points at, made inside ``home``."""
    for relative in (*_HOME_DIRS.values(), "tmp"):
        (home / relative).mkdir(parents=True, exist_ok=True)


def product_env(
    preset: Preset,
    table: ProductTable,
    isolation: Isolation,
    home: Path,
    source: Mapping[str, str] | None = None,
    *,
    sandbox: ProductSandbox | None,
    shared: bool = True,
) -> dict[str, str]:
    """The environment one run starts with (``home`` is used only under isolation).

    ``shared``: with the preset's shared directories (:func:`shared_env`), which may
    make one on first use, under ``sandbox`` (the run's product sandbox decision); the
    preflight asks for them only once it will start the product.
    """
    source = os.environ if source is None else source
    fixed = {**preset.fixed_env, **(preset.root_env if _is_root() else {})}
    if isolation == "off":
        return {**source, **fixed}
    names: Sequence[str] = (
        *ENV_ALLOWLIST,
        *(WINDOWS_ALLOWLIST if sys.platform == "win32" else ()),
        *preset.auth_variables,
        *_first_set(preset.ranked_auth_variables, source),
        *preset.endpoint_variables,
        *(table.pass_env or []),
    )
    env = {name: source[name] for name in names if name in source}
    env.update(home_env(home))
    env.update(fixed)
    if shared:
        env.update(shared_env(preset, table, env, sandbox))
    return env


def home_env(home: Path) -> dict[str, str]:
    """The variables that point a product at ``home`` (see :func:`make_home`)."""
    env = {"HOME": str(home)}
    for name, relative in _HOME_DIRS.items():
        env[name] = str(home / relative)
    for name in _TEMP_NAMES:
        env[name] = str(home / "tmp")
    if sys.platform == "win32":  # pragma: no cover - not exercised by the test suite
        for name, relative in _WINDOWS_HOME.items():
            env[name] = str(home / relative) if relative else str(home)
    return env


def shared_env(
    preset: Preset, table: ProductTable, env: Mapping[str, str], sandbox: ProductSandbox | None
) -> dict[str, str]:
    """The variables naming the preset's shared directories for one isolated start (made
    on first use under ``sandbox``, the run's product sandbox decision).

    Only for the preset's own executable, found on ``env``'s ``PATH``: a wrapper
    ``command`` is not known to run the product at the version the directory was made
    with, so it makes its own, per call, as it always did.
    """
    if not preset.shared_dirs or not preset.names_itself(table):
        return {}
    executable = table.command[0] if table.command else preset.executable
    found = shutil.which(executable, path=env.get("PATH"))
    if found is None:
        return {}  # the start fails as it would have; preflight names the fix
    named: dict[str, str] = {}
    for shared in preset.shared_dirs:
        directory = shared.provide(found, env, sandbox)
        if directory is not None:
            named[shared.variable] = str(directory)
    return named


def signs_in(preset: Preset, table: ProductTable, source: Mapping[str, str] | None = None) -> bool:
    """Whether an isolated run can sign in: one of the preset's auth variables set and
    non-empty, or a credential-like name in ``pass_env``."""
    from .table_rules import passes_credential

    source = os.environ if source is None else source
    if any(source.get(name, "").strip() for name in preset.sign_in_variables):
        return True
    return passes_credential(table)


def _first_set(ranked: Sequence[str], source: Mapping[str, str]) -> tuple[str, ...]:
    """The first of ``ranked`` set to a non-empty value (the one the product would use)."""
    return next(((name,) for name in ranked if source.get(name, "").strip()), ())


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
