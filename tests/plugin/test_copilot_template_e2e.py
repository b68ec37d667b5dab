"""The REAL Copilot CLI's home template (run/products/home_template.py), offline.

The preflight starts Copilot once against a local endpoint that refuses it; what is left
of that home is Node's compile cache of Copilot's bundle (in ``TMPDIR``, which home
isolation makes anew for every call) and nothing the start wrote about itself: no
session store, config, log or device id. Every case's Copilot starts in a copy, finds
the compile cache there, and changes nothing in the template.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from anthropic_server import AnthropicServer
from product_harness import ProductRun, anthropic_as_server  # noqa: F401 (server)
from test_copilot_package_cache import OUTSIDE, printed, shell_case, values

from pytest_skill_lens.run.products import home_template

# slow: starts the real Copilot CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "copilot_env")]

run = ProductRun("copilot")
TEMPLATE_PROMPT = "a home template start"
# What a case's product finds in its fresh home, from inside, one "key=value" a line.
LOOK = (
    'echo "compiled=$(find "$TMPDIR/node-compile-cache" -type f | wc -l)"; '
    'echo "store=$(ls "$HOME/.copilot/session-store.db" 2>/dev/null | wc -l)"; '
    'echo "marker=$(cat "$TMPDIR/left-by-a-case" 2>/dev/null)"; '
    'echo "the first case was here" > "$TMPDIR/left-by-a-case"'
)


def copilot_templates() -> list[Path]:
    made = home_template.TEMPLATES.made()
    return [m.directory for key, m in made.items() if key[0] == "copilot" and m.directory]


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_cases_start_with_the_compile_cache_and_leave_the_template_as_it_was(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    cases = [shell_case(server, task, LOOK) for task in ("first look", "second look")]
    result, outcomes = run(pytester, cases, toml=OUTSIDE)
    assert result.ret == 0, result.stdout.str()
    assert {o["status"] for o in outcomes.values()} == {"passed"}
    (template,) = copilot_templates()
    files = snapshot(template)
    assert files and all(name.startswith("tmp/node-compile-cache/") for name in files)
    assert not (template / ".copilot").exists() and not (template / ".cache/Microsoft").exists()
    for path in template.rglob("*"):
        assert not path.is_symlink()
        if path.is_file():
            assert TEMPLATE_PROMPT.encode() not in path.read_bytes(), path
    first, second = (values(printed(server, task)) for task in ("first look", "second look"))
    assert first["compiled"] == str(len(files))  # the cache was there before Copilot started
    assert first["store"] == "1"  # Copilot made its session store anew, in the call's home
    assert first["marker"] == second["marker"] == ""  # no case's file reached the next
    assert snapshot(template) == files  # nor the template
    # The template's start never reached the case's endpoint.
    assert not [r for r in server.requests if TEMPLATE_PROMPT in r.task]
