"""A product's home template (run/products/home_template.py), with a stand-in product.

The stand-in does what Codex does on its first start in an empty home: it makes a SQLite
database (a migration record and a table of threads, where it writes its prompt), a
session log and a file of its own, asks the endpoint it was pointed at, and counts its
starts in a file beside it. The real Codex against its template is tested in
tests/plugin/test_codex_template_e2e.py.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_skill_lens.run.process.leftovers import owner_mark
from pytest_skill_lens.run.products import home_template
from pytest_skill_lens.run.products.codex import PRESET as CODEX
from pytest_skill_lens.run.products.description import Preset, SharedDir
from pytest_skill_lens.run.products.entries import product_entries
from pytest_skill_lens.run.products.home_recipe import HomeRecipe
from pytest_skill_lens.run.products.home_template import HomeTemplates
from pytest_skill_lens.run.products.process import wait_removed
from pytest_skill_lens.run.sandbox.product_sandbox import ProductSandbox
from pytest_skill_lens.settings import Settings

STAND_IN = """\
#!{python}
import os, pathlib, sqlite3, sys, urllib.request
with open({starts!r}, "a") as counted:
    counted.write("start\\n")
home = pathlib.Path(os.environ["HOME"]) / ".stand"
home.mkdir(exist_ok=True)
(home / "own-files.txt").write_text("made by version {version}\\n")
(home / "sessions").mkdir(exist_ok=True)
(home / "sessions" / "rollout.jsonl").write_text(sys.argv[-1])
db = sqlite3.connect(home / "state.sqlite")
db.execute("create table if not exists _sqlx_migrations (version integer)")
db.execute("create table if not exists threads (prompt text)")
db.execute("insert into _sqlx_migrations values (1)")
db.execute("insert into threads values (?)", (sys.argv[-1],))
db.commit()
db.close()
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b"{{}}"), timeout=10)
    answered = "200"
except urllib.error.HTTPError as exc:
    answered = str(exc.code)
(home / "answered").write_text(answered)
sys.exit(1)
"""
RECIPE = HomeRecipe(
    args=lambda url: (url, "a prompt of the template's start"),
    env=lambda url, home: {"STAND_IN_ENDPOINT": url},
    removed=(".stand/sessions",),
    emptied=(".stand/*.sqlite",),
    kept_tables=("_sqlx_migrations",),
    required=".stand/*.sqlite",
)
PRESET = Preset(
    name="stand-in",
    executable="stand-in",
    flags=(),
    skills_dir=".agents/skills",
    install="",
    auth_hint="",
    home_template=RECIPE,
)
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def stand_in(directory: Path, version: str = "1", body: str = STAND_IN) -> Path:
    script = directory / "bin" / "stand-in"
    script.parent.mkdir(exist_ok=True)
    starts = str(directory / "starts")
    script.write_text(body.format(python=sys.executable, starts=starts, version=version))
    script.chmod(0o755)
    return script


def starts(directory: Path) -> int:
    path = directory / "starts"
    return len(path.read_text().splitlines()) if path.exists() else 0


def rows(database: Path, table: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(database)) as db:
        return list(db.execute(f"select * from {table}"))


def tree(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


@pytest.fixture
def templates(monkeypatch: pytest.MonkeyPatch) -> Iterator[HomeTemplates]:
    fresh = HomeTemplates()
    monkeypatch.setattr(home_template, "TEMPLATES", fresh)
    yield fresh
    fresh.close()


def a_home(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir()
    return home


def test_a_home_is_seeded_with_the_first_run_work_and_nothing_the_start_said(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    product = stand_in(tmp_path)
    home = a_home(tmp_path, "home")
    assert templates.seed(PRESET, str(product), ENV, home, None)
    assert (home / ".stand/own-files.txt").read_text() == "made by version 1\n"
    assert (home / ".stand/answered").read_text() == "400"  # the endpoint refused it
    assert not (home / ".stand/sessions").exists()  # removed
    database = home / ".stand/state.sqlite"
    assert rows(database, "_sqlx_migrations") == [(1,)]  # the schema's record stays
    assert rows(database, "threads") == []  # what the start wrote is gone
    assert b"a prompt of the template" not in database.read_bytes()  # not in a free page
    made = templates.made()
    (entry,) = made.values()
    assert entry.directory is not None
    assert entry.directory.parent.name.startswith("skill-lens-stand-in-template-")
    assert entry.directory.parent.name.endswith(owner_mark())  # swept if this one is killed


def test_one_start_makes_the_template_for_every_call_and_no_call_sees_anothers_files(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    product = stand_in(tmp_path)
    first, second = a_home(tmp_path, "first"), a_home(tmp_path, "second")
    assert templates.seed(PRESET, str(product), ENV, first, None)
    before = tree(templates.made()[next(iter(templates.made()))].directory or tmp_path)
    # What one call's product does to its home...
    (first / ".stand/own-files.txt").write_text("changed by the first call\n")
    (first / ".stand/secret-of-the-first-call").write_text("its state")
    with closing(sqlite3.connect(first / ".stand/state.sqlite")) as db:
        db.execute("insert into threads values ('the first call')")
        db.commit()
    # ...never reaches the next one, nor the template.
    assert templates.seed(PRESET, str(product), ENV, second, None)
    assert starts(tmp_path) == 1
    assert (second / ".stand/own-files.txt").read_text() == "made by version 1\n"
    assert not (second / ".stand/secret-of-the-first-call").exists()
    assert rows(second / ".stand/state.sqlite", "threads") == []
    (entry,) = templates.made().values()
    assert entry.directory is not None and tree(entry.directory) == before


def test_a_changed_executable_gets_a_new_template(tmp_path: Path, templates: HomeTemplates) -> None:
    product = stand_in(tmp_path, version="1")
    assert templates.seed(PRESET, str(product), ENV, a_home(tmp_path, "one"), None)
    product.unlink()  # a new version installed where the old one was
    stand_in(tmp_path, version="2")
    home = a_home(tmp_path, "two")
    assert templates.seed(PRESET, str(product), ENV, home, None)
    assert starts(tmp_path) == 2
    assert (home / ".stand/own-files.txt").read_text() == "made by version 2\n"


def test_a_start_that_did_not_do_its_work_leaves_the_calls_to_start_afresh(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    product = stand_in(tmp_path, body="#!/bin/sh\necho start >> {starts}\nexit 1\n")
    home = a_home(tmp_path, "home")
    assert not templates.seed(PRESET, str(product), ENV, home, None)
    assert not templates.seed(PRESET, str(product), ENV, home, None)
    assert starts(tmp_path) == 1  # not retried per call
    assert list(home.iterdir()) == []
    (entry,) = templates.made().values()
    assert entry.directory is None
    assert entry.problem is not None and ".stand/*.sqlite" in entry.problem
    wait_removed()
    left = list(home_template.parent_of().glob(f"skill-lens-stand-in-template-*{owner_mark()}"))
    assert left == []  # nothing kept of it


def test_a_template_holding_a_link_is_not_used(tmp_path: Path, templates: HomeTemplates) -> None:
    linking = STAND_IN.replace(
        "sys.exit(1)", "os.symlink('/etc', str(home / 'elsewhere'))\nsys.exit(1)"
    )
    product = stand_in(tmp_path, body=linking)
    home = a_home(tmp_path, "home")
    assert not templates.seed(PRESET, str(product), ENV, home, None)
    (entry,) = templates.made().values()
    assert entry.problem is not None and "elsewhere" in entry.problem
    assert list(home.iterdir()) == []


def test_close_removes_every_template(tmp_path: Path, templates: HomeTemplates) -> None:
    assert templates.seed(PRESET, str(stand_in(tmp_path)), ENV, a_home(tmp_path, "home"), None)
    (entry,) = templates.made().values()
    assert entry.directory is not None and entry.directory.is_dir()
    templates.close()
    wait_removed()
    assert not entry.directory.exists()
    assert templates.made() == {}


def test_a_product_without_a_recipe_is_never_started(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    product = stand_in(tmp_path)
    bare = Preset(
        name="bare", executable="bare", flags=(), skills_dir=".x", install="", auth_hint=""
    )
    assert not templates.seed(bare, str(product), ENV, a_home(tmp_path, "home"), None)
    assert starts(tmp_path) == 0 and templates.made() == {}


def test_the_call_environment_reaches_the_start_only_through_the_allowlist(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    env_dump = STAND_IN.replace(
        "sys.exit(1)",
        "(home / 'env.txt').write_text(' '.join(sorted(os.environ)))\nsys.exit(1)",
    )
    product = stand_in(tmp_path, body=env_dump)
    home = a_home(tmp_path, "home")
    env = {**ENV, "OPENAI_API_KEY": "sk-real-key", "GITHUB_TOKEN": "ghp_x"}
    assert templates.seed(PRESET, str(product), env, home, None)
    names = set((home / ".stand/env.txt").read_text().split())
    assert "OPENAI_API_KEY" not in names and "GITHUB_TOKEN" not in names
    assert {"HOME", "PATH", "STAND_IN_ENDPOINT"} <= names
    assert os.environ.get("STAND_IN_ENDPOINT") is None


def test_the_presets_shared_directories_reach_the_start_as_every_call_is_given_them(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    # Copilot's compile cache is keyed by the path of the package it compiled: the
    # template's start must run the very package the calls will.
    env_dump = STAND_IN.replace(
        "sys.exit(1)",
        "(home / 'package.txt').write_text(os.environ.get('STAND_IN_PACKAGE', '-'))\nsys.exit(1)",
    )
    product = stand_in(tmp_path, body=env_dump)
    shared = SharedDir("STAND_IN_PACKAGE", lambda executable, env, sandbox: tmp_path / "package")
    preset = replace(PRESET, shared_dirs=(shared,))
    home = a_home(tmp_path, "home")
    env = {**ENV, "STAND_IN_PACKAGE": str(tmp_path / "package")}
    assert templates.seed(preset, str(product), env, home, None)
    assert (home / ".stand/package.txt").read_text() == str(tmp_path / "package")


def test_a_template_not_made_is_named_on_the_products_line(
    tmp_path: Path, templates: HomeTemplates, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = tmp_path / "bin" / "codex"
    codex.parent.mkdir()
    codex.write_text("#!/bin/sh\nexit 1\n")  # does no first-run work
    codex.chmod(0o755)
    monkeypatch.setenv("PATH", f"{codex.parent}{os.pathsep}{os.environ['PATH']}")
    settings = Settings.model_validate({"default_runner": ["codex"]})
    decision = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    (before,) = product_entries(settings, decision)
    assert before.cache_note is None  # never tried: nothing to say
    table = CODEX.table(settings)
    assert not home_template.seed_home(
        CODEX, table, {**ENV, "PATH": os.environ["PATH"]}, tmp_path, None
    )
    (entry,) = product_entries(settings, decision)
    assert entry.cache_note is not None
    assert entry.cache_note.startswith("its home template could not be made (")
    assert "every call starts afresh" in entry.cache_note


def test_a_database_with_a_virtual_table_is_not_cleared_and_no_template_is_used(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    # Deleting the rows of a full-text index's own tables would break it: refused instead.
    indexed = STAND_IN.replace(
        "db.commit()",
        "db.execute('create virtual table found using fts5(body)')\n"
        "db.execute('insert into found values (?)', (sys.argv[-1],))\ndb.commit()",
    )
    product = stand_in(tmp_path, body=indexed)
    home = a_home(tmp_path, "home")
    assert not templates.seed(PRESET, str(product), ENV, home, None)
    (entry,) = templates.made().values()
    assert entry.problem is not None and "found" in entry.problem
    assert list(home.iterdir()) == []


def test_each_call_is_given_its_own_copy_made_ahead_and_never_one_twice(
    tmp_path: Path, templates: HomeTemplates
) -> None:
    product = stand_in(tmp_path)
    homes = [home_template.parent_of() / f"test-home-{os.getpid()}-{n}" for n in range(3)]
    try:
        for home in homes:
            home.mkdir()
        templates.template(PRESET, str(product), ENV, None)
        (entry,) = templates.made().values()
        assert entry.directory is not None
        spares = entry.directory.parent / "spares"
        given: set[int] = set()
        for home in homes:
            templates.wait()
            (ready,) = spares.iterdir()  # one copy made ahead, from the template
            assert tree(ready) == tree(entry.directory)
            inode = ready.stat().st_ino
            assert templates.seed(PRESET, str(product), ENV, home, None)
            assert home.stat().st_ino == inode and not ready.exists()  # moved, not copied
            assert inode not in given
            given.add(inode)
            assert (home / ".stand/own-files.txt").read_text() == "made by version 1\n"
            (home / ".stand/own-files.txt").write_text("this call's own\n")
        assert starts(tmp_path) == 1
    finally:
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)
