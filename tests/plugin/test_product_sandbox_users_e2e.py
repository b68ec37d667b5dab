"""Every product under the product sandbox (real bwrap), as root and as an ordinary user.

Root keeps every capability unless bwrap drops them; an ordinary user reaches bwrap
through an unprivileged user namespace, with its own home, temporary directory and
rights. For each product the scripted model asks the product's own shell tool to write
two files outside the case's working directory (beside the suite, and in a host
directory that user may write) and one inside it. Outside is refused and never appears,
inside lands, the case passes on the file it produced, and the report says bwrap.

The inner run is a pytest process of its own (``setpriv`` to nobody when the test is
root, see ordinary_user.py) in a directory that user owns, with ``HOME`` and
``TMPDIR`` there; the product's scripted server runs in this test process on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from ordinary_user import ORDINARY_UID, User, as_user, made_for_the_user, run_as, uid_of  # noqa: F401
from product_harness import a_host_directory, needs_bwrap, seen  # noqa: F401 (host_target)
from product_scenarios import TIDIES
from product_servers import OFFLINE, environment
from skillfactory import QUIET_PLUGINS, make_skill, write_file

# slow: starts every real product under bwrap, twice (-m "not slow" skips it)
pytestmark = [
    pytest.mark.slow,
    needs_bwrap(),
]
PRODUCTS_BIN = Path(__file__).resolve().parents[2] / "products" / "node_modules" / ".bin"


def writable_by(user: User, directory: Path) -> bool:
    """Whether ``user`` can write in ``directory`` outside any sandbox (so a refusal
    inside it is the sandbox's doing, not the file system's)."""
    probe = directory / "probe.txt"
    argv = [*as_user(user), "/bin/sh", "-c", f"echo probe > {probe}"]
    done = subprocess.run(argv, capture_output=True, check=False)
    landed = done.returncode == 0 and probe.is_file()
    probe.unlink(missing_ok=True)
    return landed


def inner_env(made: Path, products_bin: Path) -> dict[str, str]:
    """The test's environment less pytest's own, the products first on PATH, and a home and
    temporary directory of the run's user."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    temp = made / "system-tmp"
    temp.mkdir()
    path = os.pathsep.join([str(products_bin), env.get("PATH", os.defpath)])
    return env | {"PATH": path, "HOME": str(made), "TMPDIR": str(temp)}


def reachable_by(user: User, executable: Path) -> bool:
    """Whether ``user`` may run ``executable`` (every directory above it enterable)."""
    argv = [*as_user(user), "/bin/sh", "-c", 'test -x "$1"', "-", str(executable)]
    return subprocess.run(argv, capture_output=True, check=False).returncode == 0


@pytest.fixture(scope="module")
def products_bin() -> Iterator[dict[User, Path]]:
    """The products' bin directory for each user: the checkout's, or for the ordinary user,
    when the checkout sits where only root may enter (a CI clone often does), a hard-linked
    copy of ``products/node_modules`` in a directory every user may enter (its files are
    readable by all; a copy where a hard link cannot be made)."""
    found: dict[User, Path] = {"root": PRODUCTS_BIN, "ordinary": PRODUCTS_BIN}
    if reachable_by("ordinary", PRODUCTS_BIN / "claude"):
        yield found
        return
    staged = Path(tempfile.mkdtemp(prefix="skill-lens-test-products-"))
    staged.chmod(0o755)
    copy = staged / "node_modules"
    linked = subprocess.run(["cp", "-al", str(PRODUCTS_BIN.parent), str(copy)], check=False)
    if linked.returncode != 0:
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", str(PRODUCTS_BIN.parent), str(copy)], check=True)
    try:
        yield found | {"ordinary": copy / ".bin"}
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def hidden_write(path: Path) -> str:
    """A shell write to ``path`` that names it only in base64, through a pipe: a product's
    own check of the paths a command writes (Copilot asks before a write outside its
    directory, and headless nobody answers; Gemini CLI blocks command substitution) cannot
    see it, so only the sandbox stands in its way."""
    encoded = base64.b64encode(str(path).encode()).decode()
    return f"echo {encoded} | base64 -d | xargs -I TARGET sh -c 'echo pwned > TARGET'"


@pytest.mark.parametrize("user", ["root", "ordinary"])
@pytest.mark.parametrize("name", sorted(OFFLINE))
def test_a_write_outside_the_working_directory_is_refused_inside_it_lands(
    name: str, user: User, user_dir: Path, host_target: Path, products_bin: dict[User, Path]
) -> None:
    product = OFFLINE[name]
    beside_suite, on_host = user_dir / "escaped.txt", host_target / "escaped.txt"
    # Any uid may write there, so a refusal is the read-only mount's, never a permission
    # the sandbox's uid lacks.
    host_target.chmod(0o777)
    assert writable_by(user, host_target)
    command = f"{hidden_write(beside_suite)}; {hidden_write(on_host)}; echo in > inside.txt"
    make_skill(user_dir / "skills", "tidy", [TIDIES])
    write_file(user_dir / "skill-lens.toml", f'product_sandbox = "required"\n{product.toml}')
    with product.server() as server:
        server.by_content[TIDIES["task"]] = product.shell(f"{command}; cat inside.txt")
        env = environment(product, server.url, inner_env(user_dir, products_bin[user]))
        argv = ["pytest", "--skill-lens", "skills", "--skill-lens-runner", name]
        argv += ["--skill-lens-json", "report.json", "-p", "no:cacheprovider", *QUIET_PLUGINS]
        done = run_as(user, user_dir, argv, env)
    console = done.stdout + done.stderr
    assert [path for path in (beside_suite, on_host) if path.exists()] == [], console
    assert done.returncode == 0, console
    report = json.loads((user_dir / "report.json").read_text(encoding="utf-8"))
    (outcome,) = report["outcomes"]
    assert outcome["status"] == "passed", outcome  # inside.txt landed in the working directory
    (entry,) = report["products"]
    assert entry["name"] == name
    assert (entry["sandbox"]["mode"], entry["sandbox"]["backend"]) == ("required", "bwrap")
    # The product's shell told the model both writes were refused, and the one inside ran.
    said = [
        json.dumps(request.body) for request in server.requests if TIDIES["task"] in request.task
    ]
    assert said[-1].count("Read-only file system") >= 2, said[-1]
    assert (user_dir / "report.json").stat().st_uid == uid_of(user)  # it ran as that user
