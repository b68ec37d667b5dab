"""Copilot's package cache (run/products/copilot_package.py), with a stand-in ``copilot``.

The stand-in does what the real one does with ``COPILOT_PKG_CACHE_HOME`` (unpacks into
``pkg/`` under it) and counts its starts in a file beside it, so a test can tell one
unpack from two. The real product against the cache is tested in
tests/plugin/test_copilot_package_cache.py.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_skill_lens.report.product_lines import product_line
from pytest_skill_lens.run.process.leftovers import owner_mark
from pytest_skill_lens.run.process.temp_parent import parent_of
from pytest_skill_lens.run.products import copilot_package, home_template, preflight
from pytest_skill_lens.run.products.copilot import PRESET
from pytest_skill_lens.run.products.copilot_package import VARIABLE, PackageCaches
from pytest_skill_lens.run.products.entries import product_entries
from pytest_skill_lens.run.products.env import isolation_sets, product_env, shared_env
from pytest_skill_lens.run.products.home_template import HomeTemplates
from pytest_skill_lens.run.products.process import run_dir, start, wait_removed
from pytest_skill_lens.run.products.table_rules import table_problem
from pytest_skill_lens.run.sandbox.product_sandbox import (
    ProductSandbox,
    bwrap_argv,
    decide,
    share_read_only,
    shared_read_only,
    unshare,
    wrap,
)
from pytest_skill_lens.run.sandbox.script_sandbox import system_temp_dir
from pytest_skill_lens.settings import ProductTable, Settings

TEMP = system_temp_dir()
UNPACKS = """\
#!/bin/sh
echo start >> "{starts}"
mkdir -p "$COPILOT_PKG_CACHE_HOME/pkg/linux-x64/9.9.9" || exit 5
echo js > "$COPILOT_PKG_CACHE_HOME/pkg/linux-x64/9.9.9/index.js"
echo "GitHub Copilot CLI 9.9.9 cache=$COPILOT_PKG_CACHE_HOME"
"""


def stand_in(directory: Path, body: str = UNPACKS) -> Path:
    """A ``copilot`` under ``directory/bin`` that records each start in ``directory/starts``."""
    script = directory / "bin" / "copilot"
    script.parent.mkdir(exist_ok=True)
    script.write_text(body.format(starts=directory / "starts"))
    script.chmod(0o755)
    return script


def starts(directory: Path) -> int:
    path = directory / "starts"
    return len(path.read_text().splitlines()) if path.exists() else 0


def ours() -> list[Path]:
    """This process's package caches under the temp directory."""
    wait_removed()  # a call's directory is deleted on the remover's thread
    return sorted(parent_of(TEMP).glob(f"skill-lens-copilot-package-*{owner_mark()}"))


ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


@pytest.fixture
def caches(monkeypatch: pytest.MonkeyPatch) -> Iterator[PackageCaches]:
    """A fresh set of caches, made the process's own for the test and removed after it."""
    fresh = PackageCaches()
    monkeypatch.setattr(copilot_package, "CACHES", fresh)
    yield fresh
    fresh.close()


# -- filling -------------------------------------------------------------------------------


def test_concurrent_first_calls_unpack_once_and_share_the_directory(
    tmp_path: Path, caches: PackageCaches
) -> None:
    copilot = stand_in(tmp_path)
    found: list[Path | None] = []
    barrier = threading.Barrier(6)

    def call() -> None:
        barrier.wait()
        found.append(caches.directory(str(copilot), ENV, None))

    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert starts(tmp_path) == 1
    (directory,) = set(found)
    assert directory is not None
    assert (directory / "pkg/linux-x64/9.9.9/index.js").read_text() == "js\n"
    assert directory.parent.name.startswith("skill-lens-copilot-package-")
    assert directory.parent.name.endswith(owner_mark())  # swept if this process is killed
    assert directory in shared_read_only()
    # A link to the same executable is the same product: no second unpack.
    link = tmp_path / "copilot-link"
    link.symlink_to(copilot)
    assert caches.directory(str(link), ENV, None) == directory
    assert starts(tmp_path) == 1


def test_close_removes_the_cache_and_stops_binding_it(
    tmp_path: Path, caches: PackageCaches
) -> None:
    directory = caches.directory(str(stand_in(tmp_path)), ENV, None)
    assert directory is not None and directory.is_dir()
    caches.close()
    wait_removed()  # a call's directory is deleted on the remover's thread
    assert not directory.parent.exists()
    assert directory not in shared_read_only()
    assert caches.filled() == {}


def test_a_failed_fill_is_named_on_the_products_line(tmp_path: Path, caches: PackageCaches) -> None:
    copilot = stand_in(tmp_path, '#!/bin/sh\necho "GitHub Copilot CLI 9.9.9"\n')  # unpacks nothing
    settings = Settings.model_validate({"default_runner": ["copilot"]})
    decision = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{copilot.parent}{os.pathsep}{os.environ['PATH']}")
        (before,) = product_entries(settings, decision)
        assert before.cache_note is None  # never tried: nothing to say
        assert caches.directory(str(copilot), ENV, None) is None
        (entry,) = product_entries(settings, decision)
    assert entry.executable == str(copilot)
    assert entry.cache_note == (
        f"its package cache could not be filled ('{copilot} --version' unpacked nothing into "
        "COPILOT_PKG_CACHE_HOME), so every call unpacks the package into its own home "
        "(about 1.5 s more a call)"
    )
    assert product_line(entry).endswith(f"{decision.trust} Note: {entry.cache_note}.")
    (tmp_path / "good").mkdir()
    good = stand_in(tmp_path / "good")
    assert caches.directory(str(good), ENV, None) is not None
    assert copilot_package.fill_note(str(good)) is None  # filled: nothing to say


def test_a_worker_adopts_what_its_controller_lent_and_never_removes_it(
    tmp_path: Path, caches: PackageCaches
) -> None:
    controller = PackageCaches()  # the controller's process, in the test's
    copilot = stand_in(tmp_path)
    try:
        directory = controller.directory(str(copilot), ENV, None)
        assert directory is not None
        lent = controller.lend()
        assert lent == {os.path.realpath(copilot): str(directory)}
        empty = tmp_path / "emptied"
        empty.mkdir()
        caches.adopt(
            {
                **lent,
                "/opt/other/copilot": str(empty),  # no package there: left out
                "/opt/third/copilot": "relative/cache",  # not a path of this machine's
            }
        )
        assert caches.lend() == lent
        assert caches.directory(str(copilot), ENV, None) == directory
        assert starts(tmp_path) == 1  # the worker unpacked nothing
        assert directory in shared_read_only()  # read-only under the worker's bwrap too
        caches.close()  # the worker ends first
        assert directory.is_dir()  # the controller's, still there
    finally:
        controller.close()
    wait_removed()
    assert not directory.parent.exists()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            '#!/bin/sh\necho start >> "{starts}"\necho "disk full" >&2\nexit 3\n',
            "exited with code 3",
        ),
        (
            '#!/bin/sh\necho start >> "{starts}"\necho "GitHub Copilot CLI 9.9.9"\n',
            "unpacked nothing",
        ),
    ],
    ids=["fails", "unpacks-nothing"],
)
def test_a_failed_fill_leaves_nothing_falls_back_and_is_not_retried(
    tmp_path: Path, caches: PackageCaches, body: str, says: str
) -> None:
    copilot = stand_in(tmp_path, body)
    before = ours()
    fill = caches.fill(str(copilot), ENV, None)
    assert fill.directory is None
    assert fill.problem is not None and says in fill.problem
    if "disk full" in body:
        assert fill.problem.endswith("stderr ends: disk full")
    assert ours() == before  # a partial copy is removed at once
    assert caches.directory(str(copilot), ENV, None) is None
    assert starts(tmp_path) == 1  # never retried: each call unpacks for itself instead


def test_a_fill_that_hangs_is_cut_at_its_timeout(tmp_path: Path) -> None:
    caches = PackageCaches(timeout=0.5)
    copilot = stand_in(tmp_path, '#!/bin/sh\necho start >> "{starts}"\nexec sleep 60\n')
    before = ours()
    fill = caches.fill(str(copilot), ENV, None)
    assert fill.directory is None
    assert fill.problem == f"'{copilot} --version' did not finish within 0.5 s"
    assert ours() == before


def test_an_executable_that_cannot_start_is_a_problem_never_a_raise(
    tmp_path: Path, caches: PackageCaches
) -> None:
    fill = caches.fill(str(tmp_path / "no-such-copilot"), ENV, None)
    assert fill.directory is None
    assert fill.problem is not None and "could not be started" in fill.problem


# -- the environment -----------------------------------------------------------------------


def test_every_isolated_call_names_the_cache_and_off_keeps_the_users_environment(
    tmp_path: Path, caches: PackageCaches
) -> None:
    stand_in(tmp_path)
    source = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", VARIABLE: "/users/own"}
    first = product_env(PRESET, ProductTable(), "home", tmp_path / "h1", source, sandbox=None)
    second = product_env(PRESET, ProductTable(), "home", tmp_path / "h2", source, sandbox=None)
    assert first[VARIABLE] == second[VARIABLE] != "/users/own"
    assert Path(first[VARIABLE]).is_dir()
    assert starts(tmp_path) == 1
    # The product as you have it: your own variable, or none, and no fill.
    off = product_env(PRESET, ProductTable(), "off", tmp_path, source, sandbox=None)
    assert off[VARIABLE] == "/users/own"
    assert VARIABLE not in product_env(PRESET, ProductTable(), "off", tmp_path, ENV, sandbox=None)
    assert starts(tmp_path) == 1


def test_a_wrapper_command_gets_no_cache_and_starts_no_fill(
    tmp_path: Path, caches: PackageCaches
) -> None:
    stand_in(tmp_path)
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    wrapper = ProductTable(command=["my-copilot-wrapper", "-p", "{prompt}"])
    assert shared_env(PRESET, wrapper, env, None) == {}
    assert VARIABLE not in product_env(PRESET, wrapper, "home", tmp_path, env, sandbox=None)
    # A command naming copilot itself by its path is the product: it gets the cache.
    own = ProductTable(command=[str(tmp_path / "bin" / "copilot"), "-p", "{prompt}"])
    assert set(shared_env(PRESET, own, env, None)) == {VARIABLE}
    assert starts(tmp_path) == 1


def test_no_copilot_on_path_names_no_cache(tmp_path: Path, caches: PackageCaches) -> None:
    assert shared_env(PRESET, ProductTable(), {"PATH": str(tmp_path)}, None) == {}
    assert caches.filled() == {}


def test_pass_env_may_not_name_the_cache_variable() -> None:
    assert VARIABLE in isolation_sets(PRESET)
    refused = table_problem(PRESET, ProductTable(pass_env=["copilot_pkg_cache_home"]))
    assert refused is not None and "home isolation sets itself" in refused[0]


def test_the_preflight_probe_runs_with_the_filled_cache(
    tmp_path: Path, caches: PackageCaches, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", "http://127.0.0.1:1")
    monkeypatch.setattr(preflight, "_versions", {})
    monkeypatch.setattr(preflight, "_answered", {})
    templates = HomeTemplates()
    monkeypatch.setattr(home_template, "TEMPLATES", templates)
    try:
        assert preflight.start_problem(PRESET, Settings(product_sandbox="auto"), None) is None
    finally:
        templates.close()
    (fill,) = caches.filled().values()
    version = preflight.probed_version("copilot")
    assert version == f"GitHub Copilot CLI 9.9.9 cache={fill.directory}"
    # The fill, the probe itself, then the home template's start (which this stand-in
    # leaves no compile cache: no template, and the calls start afresh).
    assert starts(tmp_path) == 3


def test_a_refused_preflight_fills_nothing(
    tmp_path: Path, caches: PackageCaches, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    for name in PRESET.sign_in_variables:
        monkeypatch.delenv(name, raising=False)
    problem = preflight.start_problem(PRESET, Settings(product_sandbox="auto"), None)
    assert problem is not None and "can sign in only from the environment" in problem[0]
    assert starts(tmp_path) == 0 and caches.filled() == {}


# -- the sandbox's read-only bind ----------------------------------------------------------


def test_a_shared_directory_is_bound_read_only_after_the_writable_binds(tmp_path: Path) -> None:
    shared = TEMP / "skill-lens-copilot-package-x" / "cache"
    decision = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")
    work = tmp_path / "work"
    # The process's own cache, if an earlier test in this process ran Copilot, stays.
    earlier = shared_read_only()
    share_read_only(shared)
    try:
        argv = wrap(decision, ["copilot", "-p", "hi"], cwd=work, writable=[tmp_path], temp=TEMP)
    finally:
        unshare(shared)
    assert argv == bwrap_argv(
        "/usr/bin/bwrap",
        ["copilot", "-p", "hi"],
        cwd=work,
        writable=[work, tmp_path],
        temp=TEMP,
        read_only=[*earlier, shared],
    )
    bind = argv.index(str(shared)) - 1
    assert bind > argv.index("--bind")
    assert argv[bind : bind + 3] == ["--ro-bind-try", str(shared), str(shared)]
    assert argv.index("--remount-ro") > bind
    assert shared not in shared_read_only()


BWRAP = decide("auto")
needs_bwrap = pytest.mark.skipif(
    BWRAP.backend != "bwrap",
    reason=f"no working bwrap on this machine ({BWRAP.detail}); .ci/run installs bubblewrap",
)


@needs_bwrap
@pytest.mark.slow
def test_under_bwrap_the_filled_cache_reads_but_never_writes(
    tmp_path: Path, caches: PackageCaches
) -> None:
    directory = caches.directory(str(stand_in(tmp_path)), ENV, BWRAP)  # filled under bwrap too
    assert directory is not None
    index = directory / "pkg/linux-x64/9.9.9/index.js"
    with run_dir("copilot", sandbox=BWRAP) as run:
        ran = start(
            [
                "sh",
                "-c",
                f'cat "{index}"; echo poison > "{index}"; touch "{directory}/pkg/new"; '
                f'rm -rf "{directory}/pkg"; echo done',
            ],
            run=run,
            cwd=run.work,
            env={"PATH": "/usr/bin:/bin", "HOME": str(run.home)},
            timeout=60,
            max_output_bytes=100_000,
        )
    out = (ran.finished.stdout.data + ran.finished.stderr.data).decode()
    assert out.startswith("js\n") and "done" in out
    assert "Read-only file system" in out
    assert index.read_text() == "js\n"
    assert not (directory / "pkg/new").exists()
    assert os.listdir(directory / "pkg") == ["linux-x64"]
