"""Copilot's package cache with the REAL Copilot CLI: unpacked once, shared, read-only.

Copilot runs in its bring-your-own-model mode against the scripted Anthropic server, as
in test_copilot_e2e.py, and the scripted model has it run shell commands that look at
``COPILOT_PKG_CACHE_HOME`` from inside the product: which directory it names, whether
the package there was unpacked again, whether anything was unpacked into the call's own
home, and whether the product can change it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, text, tool_use
from product_harness import ProductRun, anthropic_as_server, needs_bwrap  # noqa: F401 (server)
from skillfactory import write_file

# slow: starts the real Copilot CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "copilot_env")]

# Copilot asks before a shell command touches paths outside its working directory, and
# no one answers in -p mode; a product that goes there unasked is what these tests need.
OUTSIDE = '[runners.copilot]\nargs = ["--allow-all-paths"]\n'
# What a case's product reports about the cache, from inside, one "key=value" a line.
LOOK = (
    'echo "cache=$COPILOT_PKG_CACHE_HOME"; '
    'stat -c "marker=%i %y" "$COPILOT_PKG_CACHE_HOME"/pkg/*/*/.extraction-complete; '
    'echo "unpacked-in-home=$(find "$HOME" -name .extraction-complete | wc -l)"'
)
# Skill greet under copilot: the outcomes by case name (subprocess=True: a run in a
# process of its own, whose cache is fresh and removed when that process ends).
run = ProductRun("copilot")


def shell_case(server: AnthropicServer, task: str, command: str) -> dict[str, Any]:
    """A case whose model has Copilot run ``command``, then answers ``Looked.``."""
    server.by_content[task] = [
        tool_use([("bash", {"command": command, "description": "Look at the cache"})]),
        text("Looked."),
    ]
    return {"name": task, "task": task, "assertions": [{"kind": "contains", "value": "Looked"}]}


def printed(server: AnthropicServer, task: str) -> str:
    """What ``task``'s shell command printed, as the model was shown it."""
    (answered,) = [r for r in server.requests if task in r.task and r.tool_results()]
    ((_, output),) = answered.tool_results()
    return output


def values(output: str) -> dict[str, str]:
    return dict(line.partition("=")[::2] for line in output.splitlines() if "=" in line)


def test_two_cases_run_from_one_package_unpacked_once_and_gone_after_the_run(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    # Its own process: a fresh cache, and the process's exit is the run's end.
    cases = [shell_case(server, task, LOOK) for task in ("first look", "second look")]
    result, outcomes = run(
        pytester, cases, "--skill-lens-concurrency", "2", toml=OUTSIDE, subprocess=True
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "first look": "passed",
        "second look": "passed",
    }
    first, second = (values(printed(server, task)) for task in ("first look", "second look"))
    cache = Path(first["cache"])
    assert cache.parent.name.startswith("skill-lens-copilot-package-")
    assert second["cache"] == first["cache"]  # one cache for the run
    # The same copy, never unpacked again (same marker file, same time), and nothing
    # unpacked into either call's own home.
    assert first["marker"] and second["marker"] == first["marker"]
    assert first["unpacked-in-home"] == second["unpacked-in-home"] == "0"
    assert not cache.parent.exists()  # removed when the run's process ended


# Each process of the inner run says which package directories it uses, at its end.
# (Not PYTEST_XDIST_WORKER: this test may itself run in an xdist worker, whose variable
# the inner controller inherits.)
LENT = """
import json

from pytest_skill_lens.run.products.copilot_package import CACHES


def pytest_sessionfinish(session):
    who = getattr(session.config, "workerinput", {}).get("workerid", "controller")
    (session.config.rootpath / f"uses-{who}.json").write_text(json.dumps(CACHES.lend()))
"""


def test_under_xdist_the_workers_run_from_the_package_the_controller_unpacked(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    pytester.makeconftest(LENT)
    cases = [shell_case(server, task, LOOK) for task in ("first look", "second look")]
    result, outcomes = run(pytester, cases, "-n", "2", toml=OUTSIDE, subprocess=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    assert {o["status"] for o in outcomes.values()} == {"passed"}
    uses = {
        path.stem.removeprefix("uses-"): json.loads(path.read_text(encoding="utf-8"))
        for path in pytester.path.glob("uses-*.json")
    }
    assert set(uses) == {"controller", "gw0", "gw1"}
    (lent,) = uses["controller"].values()  # the preflight's one fill
    assert uses["gw0"] == uses["gw1"] == uses["controller"]  # neither worker filled its own
    first, second = (values(printed(server, task)) for task in ("first look", "second look"))
    assert first["cache"] == second["cache"] == lent
    assert first["marker"] == second["marker"]  # one copy, never unpacked again
    assert first["unpacked-in-home"] == second["unpacked-in-home"] == "0"
    assert not Path(lent).parent.exists()  # removed when the controller ended


@needs_bwrap()
def test_under_bwrap_a_case_cannot_change_the_package_the_next_case_runs(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    poison = (
        'touch "$HOME/mine" && echo home-writable; '
        'touch "$COPILOT_PKG_CACHE_HOME/pkg/poisoned"; '
        'rm -rf "$COPILOT_PKG_CACHE_HOME/pkg" 2>/dev/null; echo "rm-exit=$?"; '
        'echo "left=$(ls "$COPILOT_PKG_CACHE_HOME/pkg" | wc -l)"'
    )
    cases = [shell_case(server, "try to poison", poison), shell_case(server, "then look", LOOK)]
    result, outcomes = run(pytester, cases, toml=OUTSIDE)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["then look"]["status"] == "passed"  # Copilot still starts after it
    said = printed(server, "try to poison")
    assert "home-writable" in said  # the command ran, with its own home writable
    assert "Read-only file system" in said
    assert values(said)["rm-exit"] != "0" and values(said)["left"] != "0"
    cache = Path(values(printed(server, "then look"))["cache"])
    # In this process the cache outlives the inner run; the package is intact.
    assert cache.is_dir() and not (cache / "pkg" / "poisoned").exists()
    assert values(printed(server, "then look"))["unpacked-in-home"] == "0"


def test_a_wrapper_command_runs_without_the_shared_cache(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapper = pytester.path / "bin" / "my-copilot"
    write_file(wrapper, '#!/bin/sh\nexec copilot "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    flags = '"--allow-all-tools", "--output-format", "json", "--no-auto-update"'
    toml = f'[runners.copilot]\ncommand = ["my-copilot", "-p", "{{prompt}}", {flags}]\n'
    cases = [shell_case(server, "look through a wrapper", 'echo "cache=[$COPILOT_PKG_CACHE_HOME]"')]
    result, outcomes = run(pytester, cases, toml=toml)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["look through a wrapper"]["status"] == "passed"
    # Not known to be copilot at the cached version: it unpacks into its own home, as before.
    assert "cache=[]" in printed(server, "look through a wrapper")
