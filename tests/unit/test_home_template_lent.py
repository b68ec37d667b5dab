"""A home template lent by an xdist controller to its workers (run/products/home_template.py).

The controller's preflight makes the template; a worker given it copies every call's home
from that one directory instead of starting the product again, never changes or removes
it, and makes its own when what it was lent is not for its executable. The stand-in
product is test_home_template.py's; the real Codex under ``-n 2`` is in
tests/plugin/test_codex_template_e2e.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from test_home_template import ENV, PRESET, a_home, rows, stand_in, starts, tree

from pytest_skill_lens.run.products.home_template import HomeTemplates


@pytest.fixture
def controller() -> Iterator[HomeTemplates]:
    made = HomeTemplates()
    yield made
    made.close()


@pytest.fixture
def worker() -> Iterator[HomeTemplates]:
    made = HomeTemplates()
    yield made
    made.close()


def the_template(templates: HomeTemplates) -> Path:
    (made,) = templates.made().values()
    assert made.directory is not None
    return made.directory


def test_a_worker_copies_its_homes_from_the_lent_template_and_never_changes_or_removes_it(
    tmp_path: Path, controller: HomeTemplates, worker: HomeTemplates
) -> None:
    product = stand_in(tmp_path)
    assert controller.template(PRESET, str(product), ENV, None).directory is not None
    template = the_template(controller)
    before = tree(template)
    worker.adopt(controller.lend())
    first, second = a_home(tmp_path, "first"), a_home(tmp_path, "second")
    assert worker.seed(PRESET, str(product), ENV, first, None)
    (first / ".stand/secret-of-the-first-call").write_text("its state")
    with closing(sqlite3.connect(first / ".stand/state.sqlite")) as db:
        db.execute("insert into threads values ('the first call')")
        db.commit()
    assert worker.seed(PRESET, str(product), ENV, second, None)
    assert starts(tmp_path) == 1  # the controller's one start; the worker started none
    assert (second / ".stand/own-files.txt").read_text() == "made by version 1\n"
    assert not (second / ".stand/secret-of-the-first-call").exists()
    assert rows(second / ".stand/state.sqlite", "threads") == []
    worker.close()
    assert tree(template) == before  # unchanged, and still there: the controller's
    assert controller.seed(PRESET, str(product), ENV, a_home(tmp_path, "third"), None)


def test_a_template_lent_for_another_executable_is_not_used(
    tmp_path: Path, controller: HomeTemplates, worker: HomeTemplates
) -> None:
    product = stand_in(tmp_path, version="1")
    controller.template(PRESET, str(product), ENV, None)
    lent = controller.lend()
    stand_in(tmp_path, version="2")  # installed anew after the controller's template
    worker.adopt(lent)
    home = a_home(tmp_path, "home")
    assert worker.seed(PRESET, str(product), ENV, home, None)
    assert starts(tmp_path) == 2  # the worker made its own
    assert (home / ".stand/own-files.txt").read_text() == "made by version 2\n"


@pytest.mark.parametrize("what", ["gone", "relative", "a link", "a file", "not a key"])
def test_a_lent_template_that_is_no_directory_of_this_machine_is_not_used(
    tmp_path: Path, controller: HomeTemplates, worker: HomeTemplates, what: str
) -> None:
    product = stand_in(tmp_path)
    controller.template(PRESET, str(product), ENV, None)
    ((lent_key, directory),) = controller.lend()
    key: object = lent_key
    elsewhere = tmp_path / "elsewhere"
    if what == "gone":
        directory = str(tmp_path / "no-such-template")
    elif what == "relative":
        directory = "template"
    elif what == "a link":
        elsewhere.symlink_to(directory)
        directory = str(elsewhere)
    elif what == "a file":
        elsewhere.write_text("not a home")
        directory = str(elsewhere)
    else:
        key = "codex"
    worker.adopt([(key, directory)])
    assert worker.made() == {}
    assert worker.seed(PRESET, str(product), ENV, a_home(tmp_path, "home"), None)
    assert starts(tmp_path) == 2  # made its own instead
