"""Home templates: a product's first-run work done once per process, copied into each home.

Home isolation starts every call in an empty home, and some products spend their first
start there on work of their own: Codex makes six SQLite databases, runs their
migrations and installs its own skills, 0.1-0.5 s a call; Copilot's Node compiles its
2 MB bundle into a compile cache in ``TMPDIR``, 0.2 s of CPU a call. A product whose preset has a
:class:`.home_recipe.HomeRecipe` does that once per process: one start, made by the
harness (never from the user's home), against a local endpoint that answers every
request 400, in a run directory of its own under the run's product sandbox, with only
the allowlisted search path and locale, home isolation's variables, the preset's shared
directories (Copilot's package, as every call is given it) and the recipe's.
What the start wrote about itself is then cleared (the recipe's ``removed`` paths; the
rows of its databases but their migration record, overwritten where they were), and
what is left is the template: only directories and regular files, or none is used.

Every isolated call of the product's own executable then gets a copy as its fresh home
(:meth:`HomeTemplates.seed`; made ahead on a thread, :mod:`.home_spares`): a copy, never
a link, each given to one call, so nothing one call writes reaches the template or
another call. A template belongs to one executable file (resolved
through its links, with its inode, size and modification time, and the version the
preflight probed): a product installed anew gets a new one. A start that did not do its
work leaves nothing behind, is not retried, and the calls start in an empty home as
before (the products line says so). The templates are removed at the process's exit,
or swept by the next run if it was killed (:mod:`..process.leftovers`). Under
pytest-xdist the controller's preflight makes them and lends them to the workers it
started on this machine (:meth:`HomeTemplates.lend`, :meth:`HomeTemplates.adopt`): a
worker copies from them, never changes or removes them, and makes its own for another
executable.
"""

from __future__ import annotations

import atexit
import contextlib
import http.server
import os
import shutil
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...settings import ProductTable
from ..process.temp_parent import parent_of as parent_of
from ..sandbox.product_sandbox import ProductSandbox
from ..workspace.containment import why
from .description import Preset
from .env import ENV_ALLOWLIST, home_env, make_home
from .home_clear import clear_home
from .home_recipe import HomeRecipe
from .home_spares import Spares
from .process import RunDir, RunDirFailed, StartFailed, run_dir, start, wait_removed

MAKE_TIMEOUT = 30.0  # seconds; Codex's refused start takes about 0.4 s
_OUTPUT_BYTES = 64_000


@dataclass(frozen=True)
class Made:
    """What making one executable's template came to: the directory, or why not."""

    directory: Path | None
    problem: str | None = None


class HomeTemplates:
    """This process's home templates, one per product executable, each made once.

    Thread-safe: cases run on threads, and the first calls wait for the one start.
    """

    def __init__(self, *, timeout: float = MAKE_TIMEOUT) -> None:
        self._timeout = timeout
        self._reset()

    def _reset(self) -> None:
        # A forked child starts afresh: the parent's lock and directories are not its own.
        self._owner = os.getpid()
        self._lock = threading.Lock()
        self._made: dict[tuple[object, ...], Made] = {}
        self._open: list[contextlib.ExitStack] = []
        self._spares: dict[Path, Spares] = {}

    def template(
        self,
        preset: Preset,
        executable: str,
        env: Mapping[str, str],
        sandbox: ProductSandbox | None,
    ) -> Made:
        """The template of ``executable`` (found on ``PATH``), made now (its start under
        ``sandbox``, the run's product sandbox decision) if this process has none for that
        file yet; never raises."""
        if os.getpid() != self._owner:
            self._reset()
        recipe = preset.home_template
        if recipe is None:
            return Made(None, f"{preset.name} has no home template")
        key = _identity(preset, executable)
        with self._lock:
            found = self._made.get(key)
            if found is None:
                try:
                    found = self._make(preset, recipe, executable, env, sandbox)
                except Exception as exc:  # a template is an optimisation: never a failed call
                    found = Made(None, f"{type(exc).__name__}: {exc}")
                self._made[key] = found
            return found

    def seed(
        self,
        preset: Preset,
        executable: str,
        env: Mapping[str, str],
        home: Path,
        sandbox: ProductSandbox | None,
    ) -> bool:
        """Copy the template of ``executable`` into the call's ``home``; whether there was one.

        A copy of every file (never a link): the call may change its home as it likes.
        """
        made = self.template(preset, executable, env, sandbox)
        if made.directory is None:
            return False
        with self._lock:
            spares = self._spares.get(made.directory)
        if spares is None:  # pragma: no cover - every made template has its spares
            return False
        spares.take(home)
        return True

    def wait(self) -> None:
        """Return once no copy of a template is being made ahead (:mod:`.home_spares`)."""
        with self._lock:
            spares = list(self._spares.values())
        for each in spares:
            each.wait()

    def lend(self) -> list[tuple[list[object], str]]:
        """This process's templates (identity, directory), for its xdist workers."""
        with self._lock:
            return [(list(k), str(m.directory)) for k, m in self._made.items() if m.directory]

    def adopt(self, lent: Iterable[Sequence[object]]) -> None:
        """Copy homes from the templates another process of this run made (:meth:`lend`).

        Each stays that process's: this one only copies from it, never changes or removes
        it. One is used only for the very executable it was made from (its identity is
        looked up as this process's own); a directory that is not one here is left out,
        and this process makes its own on first use.
        """
        if os.getpid() != self._owner:
            self._reset()
        for pair in lent:
            if len(pair) != 2:  # pairs, as lend() made them
                continue
            key, directory = pair
            path = Path(str(directory))
            if not isinstance(key, list | tuple) or not key or not path.is_absolute():
                continue
            if path.is_symlink() or not path.is_dir():
                continue
            stack = contextlib.ExitStack()
            try:  # its spare copies in a directory of this process's own, removed with it;
                # nothing starts there, so no sandbox decision applies to it
                run = stack.enter_context(run_dir(f"{key[0]}-lent-template", sandbox=None))
            except RunDirFailed:
                continue
            with self._lock:
                if tuple(key) in self._made:
                    stack.close()
                    continue
                self._made[tuple(key)] = Made(path)
                self._open.append(stack)
                self._spares[path] = spares = Spares(path, run.root / "spares")
            spares.prepare()

    def made(self) -> dict[tuple[object, ...], Made]:
        """Every template of this process so far, by executable identity."""
        with self._lock:
            return dict(self._made)

    def problem(self, preset: Preset, executable: str) -> str | None:
        """Why the latest template of ``executable`` for ``preset`` was not made, if tried."""
        real = os.path.realpath(executable)
        with self._lock:
            tried = [m for k, m in self._made.items() if k[:2] == (preset.name, real)]
        return tried[-1].problem if tried else None

    def close(self) -> None:
        """Remove every template this process made (a forked child removes none)."""
        if os.getpid() != self._owner:
            return
        with self._lock:
            self._made.clear()
            opened, self._open = self._open, []
            spares, self._spares = list(self._spares.values()), {}
        for each in spares:
            each.close()  # before its directory goes
        for stack in opened:
            stack.close()
        if opened:
            wait_removed()

    def _make(
        self,
        preset: Preset,
        recipe: HomeRecipe,
        executable: str,
        env: Mapping[str, str],
        sandbox: ProductSandbox | None,
    ) -> Made:
        stack = contextlib.ExitStack()
        try:
            run = stack.enter_context(run_dir(f"{preset.name}-template", sandbox=sandbox))
        except RunDirFailed as exc:
            return Made(None, f"cannot make the home template: {exc}")
        problem = _do_first_run(preset, recipe, executable, env, run, self._timeout)
        if problem is None:
            problem = clear_home(recipe, run.home)
        if problem is not None:
            stack.close()
            return Made(None, problem)
        self._open.append(stack)
        self._spares[run.home] = spares = Spares(run.home, run.root / "spares")
        spares.prepare()  # the first call's home, made while the preflight goes on
        return Made(run.home)


def _identity(preset: Preset, executable: str) -> tuple[object, ...]:
    """Which file the executable is: a product installed anew is another one."""
    from .preflight import probed_version

    real = os.path.realpath(executable)
    try:
        found = os.stat(real)
        stamp: tuple[object, ...] = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
    except OSError:
        stamp = ()
    return (preset.name, real, *stamp, probed_version(preset.name))


def _do_first_run(
    preset: Preset,
    recipe: HomeRecipe,
    executable: str,
    env: Mapping[str, str],
    run: RunDir,
    timeout: float,
) -> str | None:
    """The recipe's one start in ``run``'s home; why it did not run, or ``None``."""
    home = run.home
    try:
        make_home(home)
        for relative in recipe.directories:
            (home / relative).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot prepare {home}: {why(exc)}"
    with _refusing_endpoint() as url:
        start_env = {name: env[name] for name in ENV_ALLOWLIST if name in env}
        start_env.update(home_env(home))
        # The directories every call is given (Copilot's package): what the start caches
        # about them (Node's compile cache, keyed by the package's path) then fits the calls.
        shared = (each.variable for each in preset.shared_dirs)
        start_env.update({name: env[name] for name in shared if name in env})
        start_env.update(preset.fixed_env)
        start_env.update(recipe.env(url, home))
        try:
            ran = start(
                [executable, *recipe.args(url)],
                run=run,
                cwd=run.work,
                env=start_env,
                timeout=timeout,
                max_output_bytes=_OUTPUT_BYTES,
            )
        except StartFailed as exc:
            return f"{executable!r} could not be started: {exc}"
    if ran.finished.timed_out:
        return f"its first start did not end within {timeout:g} s"
    return None


@contextlib.contextmanager
def _refusing_endpoint() -> Iterator[str]:
    """A server on 127.0.0.1 that answers every request 400, for the recipe's start."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    # A short poll: shutdown() waits for the loop to look, every 0.5 s by default.
    thread = threading.Thread(
        target=server.serve_forever, args=(0.01,), name="skill-lens-refuse", daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Refuse(http.server.BaseHTTPRequestHandler):
    _BODY = b'{"error": {"message": "skill-lens: a home template start", "type": "refused"}}'

    def _refuse(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(min(length, 1 << 20))
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self._BODY)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(self._BODY)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _refuse

    def log_message(self, format: str, *args: object) -> None:
        pass


TEMPLATES = HomeTemplates()
atexit.register(TEMPLATES.close)


def seed_home(
    preset: Preset,
    table: ProductTable,
    env: Mapping[str, str],
    home: Path,
    sandbox: ProductSandbox | None,
) -> bool:
    """Seed an isolated call's ``home`` from this process's template of the product's own
    executable (found on ``env``'s ``PATH``; a wrapper ``command`` is never templated),
    made under ``sandbox`` if it is not yet; whether it was seeded."""
    found = _own_executable(preset, table, env)
    return found is not None and TEMPLATES.seed(preset, found, env, home, sandbox)


def prepare(
    preset: Preset, table: ProductTable, env: Mapping[str, str], sandbox: ProductSandbox | None
) -> None:
    """Make the template now (the preflight's call, so that no case waits for the start)."""
    found = _own_executable(preset, table, env)
    if found is not None:
        TEMPLATES.template(preset, found, env, sandbox)


def _own_executable(preset: Preset, table: ProductTable, env: Mapping[str, str]) -> str | None:
    if preset.home_template is None or not preset.names_itself(table):
        return None
    executable = table.command[0] if table.command else preset.executable
    return shutil.which(executable, path=env.get("PATH"))


def template_note(preset: Preset, executable: str) -> str | None:
    """Why the product's calls start in an empty home after all, for the products line."""
    problem = TEMPLATES.problem(preset, executable)
    if problem is None:
        return None
    return f"its home template could not be made ({problem}), so every call starts afresh"
