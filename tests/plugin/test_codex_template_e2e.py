"""The REAL Codex CLI's home template (run/products/home_template.py), offline.

The preflight makes it once (one ``codex exec`` refused by a local endpoint), and every
case's Codex starts in a copy. The template keeps Codex's first-run work and nothing the
refused start wrote about itself; the cases that ran from it change nothing in it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from product_harness import (  # noqa: F401 (fixtures)
    CODEX_TOML,
    ProductRun,
    codex_env,
    responses_as_server,
)
from product_harness import requests_about as about
from product_scenarios import GREET_BODY
from product_scenarios import GREETS_WARMLY as GREETS
from responses_server import ResponsesServer, text

from pytest_skill_lens.run.products import home_template
from pytest_skill_lens.run.products.codex import HOME_RECIPE

# slow: starts the real Codex CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "codex_env")]

run = ProductRun("codex", body=GREET_BODY, toml=CODEX_TOML)
TEMPLATE_PROMPT = b"a home template start"


def codex_templates() -> list[Path]:
    made = home_template.TEMPLATES.made()
    return [m.directory for key, m in made.items() if key[0] == "codex" and m.directory]


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_cases_start_from_codexs_first_run_work_and_leave_the_template_as_it_was(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")] * 3
    second = {**GREETS, "name": "greets again"}
    result, outcomes = run(pytester, [GREETS])
    assert result.ret == 0, result.stdout.str()
    (template,) = codex_templates()
    codex = template / ".codex"
    assert list(codex.glob("*.sqlite"))  # its databases, migrated
    assert (codex / "skills").is_dir()  # its own skills, installed
    for name in HOME_RECIPE.removed:
        assert not (template / name).exists(), name
    for database in codex.glob("*.sqlite"):
        with closing(sqlite3.connect(database)) as db:
            tables = [n for (n,) in db.execute("select name from sqlite_master where type='table'")]
            for table in tables:
                if table != "_sqlx_migrations" and not table.startswith("sqlite_"):
                    count = db.execute(f'select count(*) from "{table}"').fetchone()[0]
                    assert count == 0, (database.name, table)
    for path in template.rglob("*"):
        assert not path.is_symlink()
        if path.is_file():
            assert TEMPLATE_PROMPT not in path.read_bytes(), path
    before = snapshot(template)

    result, outcomes = run(pytester, [GREETS, second])
    assert result.ret == 0, result.stdout.str()
    assert {outcomes[n]["status"] for n in ("greets warmly", "greets again")} == {"passed"}
    assert codex_templates() == [template]  # the same executable: made once
    assert snapshot(template) == before  # no case's files reached it
    # The template's start never reached the case's endpoint.
    assert len(about(server, "greet the team")) == 3
    assert not [r for r in server.requests if TEMPLATE_PROMPT.decode() in str(r)]


# Each process of the inner run says which templates it copies homes from, at its end.
# (Not PYTEST_XDIST_WORKER: this test may itself run in an xdist worker.)
LENT = """
import json

from pytest_skill_lens.run.products.home_template import TEMPLATES


def pytest_sessionfinish(session):
    who = getattr(session.config, "workerinput", {}).get("workerid", "controller")
    lent = [directory for _, directory in TEMPLATES.lend()]
    (session.config.rootpath / f"uses-{who}.json").write_text(json.dumps(lent))
"""


def test_under_xdist_the_workers_copy_their_homes_from_the_controllers_template(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    pytester.makeconftest(LENT)
    server.by_content["greet the team"] = [text("Hello team, warmly.")] * 2
    second = {**GREETS, "name": "greets again"}
    result, outcomes = run(pytester, [GREETS, second], "-n", "2", subprocess=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    assert {outcomes[n]["status"] for n in ("greets warmly", "greets again")} == {"passed"}
    uses = {
        path.stem.removeprefix("uses-"): json.loads(path.read_text(encoding="utf-8"))
        for path in pytester.path.glob("uses-*.json")
    }
    assert set(uses) == {"controller", "gw0", "gw1"}
    (template,) = uses["controller"]  # the controller's preflight made the one template
    assert uses["gw0"] == uses["gw1"] == [template]  # neither worker made its own
    assert not Path(template).parent.exists()  # removed when the controller ended
    assert len(about(server, "greet the team")) == 2
    assert not [r for r in server.requests if TEMPLATE_PROMPT.decode() in str(r)]
