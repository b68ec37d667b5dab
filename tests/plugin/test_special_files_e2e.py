"""A FIFO, a device, a socket or a directory where the plugin reads a file: exit 2, named.

Opening a FIFO for reading waits for a writer forever, so each run here (in-process)
goes with a hang guard: a thread that gives every FIFO of the test whose reader waits
a writer at once, so a regression shows as a failed test naming the FIFO it opened,
never a stuck suite. Every refusal must name the file and what it is, before any runner
is called; never a traceback, never "no skills were found" or "no eval cases".
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import write_file
from test_authoring_rules import GOOD_CASE, runner_calls, write_conftest, write_skill

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")

CASES = "cases:\n" + GOOD_CASE
SKILL_DIR = "skills/order-support"


@contextlib.contextmanager
def fifo_guard(root: Path) -> Iterator[list[Path]]:
    """While it lasts, every FIFO under ``root`` that someone waits to read gets a writer
    that closes at once (the reader then sees an empty file, never a hang); yields the
    FIFOs that were opened so."""
    fifos = [
        Path(directory) / name
        for directory, _, names in os.walk(root)
        for name in names
        if stat.S_ISFIFO(os.lstat(Path(directory) / name).st_mode)
    ]
    opened: list[Path] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            for fifo in fifos:
                try:  # succeeds only while a reader has the FIFO open
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    continue
                opened.append(fifo)

    watcher = threading.Thread(target=watch, name="fifo-guard", daemon=True)
    watcher.start()
    try:
        yield opened
    finally:
        done.set()
        watcher.join()


SPIED = LensRun(runner="spy", options=("-p", "no:cacheprovider"))


def run(pytester: pytest.Pytester, *args: str, lens: LensRun = SPIED) -> pytest.RunResult:
    """An in-process run under :func:`fifo_guard`; it fails if any FIFO was opened."""
    with fifo_guard(pytester.path) as opened:
        result = lens(pytester, *args)
    assert opened == [], f"the run opened {opened} for reading"
    return result


def assert_refused(
    result: pytest.RunResult, pytester: pytest.Pytester, path: str, what: str
) -> str:
    """Exit 2 naming ``path`` and ``what`` it is, no traceback, no runner call."""
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 2, out
    named = [line for line in out.splitlines() if f"{path}: " in line]
    assert any(f"{what}, not a regular file" in line for line in named), out
    assert "Traceback" not in out and "NotADirectoryError" not in out, out
    assert "no skills were found" not in out and "no eval cases" not in out, out
    assert runner_calls(pytester) == [], "a runner was called"
    return out


@pytest.fixture
def fifo_skill(pytester: pytest.Pytester) -> Path:
    """A skill whose eval files are fine: each test makes one of its files special."""
    return write_skill(pytester, {"evals/cases.yaml": CASES})


def replace_with_fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


# --- SKILL.md ------------------------------------------------------------------------------


def test_a_fifo_skill_md_is_refused_not_missed(pytester: pytest.Pytester, fifo_skill: Path) -> None:
    replace_with_fifo(fifo_skill / "SKILL.md")

    result = run(pytester)

    out = assert_refused(result, pytester, f"{SKILL_DIR}/SKILL.md", "is a FIFO")
    assert "skill-lens authoring error" in out
    assert "fix: replace it with a regular file" in out


def test_a_fifo_skill_md_nested_in_a_skill_is_refused_not_missed(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    # Inside a skill, the plugin walks directories itself (a skill's directory is data):
    # that walk must judge a nested SKILL.md as pytest's own walk does.
    nested = fifo_skill / "parts" / "inner"
    nested.mkdir(parents=True)
    os.mkfifo(nested / "SKILL.md")

    result = run(pytester)

    assert_refused(result, pytester, f"{SKILL_DIR}/parts/inner/SKILL.md", "is a FIFO")


@pytest.mark.parametrize("given", [SKILL_DIR, f"{SKILL_DIR}/SKILL.md"], ids=["dir", "file"])
def test_a_fifo_skill_md_in_the_skill_path_given_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path, given: str
) -> None:
    replace_with_fifo(fifo_skill / "SKILL.md")

    result = run(pytester, lens=replace(SPIED, skills=given, runner=()))

    assert_refused(result, pytester, f"{SKILL_DIR}/SKILL.md", "is a FIFO")


def test_a_directory_named_skill_md_is_refused(pytester: pytest.Pytester) -> None:
    write_conftest(pytester)
    (pytester.path / SKILL_DIR / "SKILL.md").mkdir(parents=True)
    write_file(pytester.path / SKILL_DIR / "evals/cases.yaml", CASES)

    result = run(pytester)

    assert_refused(result, pytester, f"{SKILL_DIR}/SKILL.md", "is a directory")


def test_a_dangling_link_as_skill_md_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    (fifo_skill / "SKILL.md").unlink()
    (fifo_skill / "SKILL.md").symlink_to("gone.md")

    result = run(pytester)

    assert_refused(result, pytester, f"{SKILL_DIR}/SKILL.md", "is a broken symbolic link")


def test_a_fifo_skill_md_below_a_root_of_several_skills_is_refused(
    pytester: pytest.Pytester,
) -> None:
    write_skill(pytester, {"evals/cases.yaml": CASES}, name="a-fine")
    broken = write_skill(pytester, {"evals/cases.yaml": CASES})
    replace_with_fifo(broken / "SKILL.md")

    result = run(pytester)

    assert_refused(result, pytester, f"{SKILL_DIR}/SKILL.md", "is a FIFO")


def test_links_to_regular_files_still_load(pytester: pytest.Pytester, fifo_skill: Path) -> None:
    real = pytester.path / "elsewhere"
    real.mkdir()
    for relative in ("SKILL.md", "evals/cases.yaml"):
        target = real / Path(relative).name
        (fifo_skill / relative).rename(target)
        (fifo_skill / relative).symlink_to(target)

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)


# --- eval files ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "relative",
    ["evals/cases.yaml", "evals/more.yml", "evals/evals.json", "extra.eval.yaml"],
    ids=["yaml", "yml", "evals-json", "eval-yaml-beside-skill-md"],
)
def test_a_fifo_eval_file_is_refused_not_skipped(
    pytester: pytest.Pytester, fifo_skill: Path, relative: str
) -> None:
    if relative.endswith(".eval.yaml"):  # discovered only when there is no evals/ directory
        (fifo_skill / "evals/cases.yaml").unlink()
        (fifo_skill / "evals").rmdir()
    replace_with_fifo(fifo_skill / relative)

    result = run(pytester)

    assert_refused(result, pytester, f"{SKILL_DIR}/{relative}", "is a FIFO")


def test_a_socket_in_evals_is_refused(pytester: pytest.Pytester, fifo_skill: Path) -> None:
    with unix_socket(fifo_skill / "evals") as relative:
        result = run(pytester)

        assert_refused(result, pytester, f"{SKILL_DIR}/evals/{relative}", "is a socket")


@pytest.fixture
def evals_fifo(pytester: pytest.Pytester, fifo_skill: Path) -> str:
    os.mkfifo(pytester.path / "held-out.yaml")
    return "held-out.yaml"


def test_a_fifo_given_as_skill_lens_evals_is_refused(
    pytester: pytest.Pytester, evals_fifo: str
) -> None:
    result = run(pytester, "--skill-lens-evals", evals_fifo)

    out = assert_refused(result, pytester, evals_fifo, "is a FIFO")
    assert "--skill-lens-evals" in out


def test_dev_null_given_as_skill_lens_evals_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    result = run(pytester, "--skill-lens-evals", os.devnull)

    out = assert_refused(result, pytester, os.devnull, "is a character device")
    assert "--skill-lens-evals" in out


def test_a_fifo_inside_the_skill_lens_evals_directory_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    held_out = pytester.path / "held-out"
    write_file(held_out / "a.yaml", CASES)
    os.mkfifo(held_out / "b.yaml")

    result = run(pytester, "--skill-lens-evals", "held-out")

    assert_refused(result, pytester, "held-out/b.yaml", "is a FIFO")


# --- files an eval file points at -----------------------------------------------------------


def test_a_fifo_tool_library_is_refused(pytester: pytest.Pytester, fifo_skill: Path) -> None:
    write_file(
        fifo_skill / "evals/cases.yaml",
        "tool_libraries: [../../../shared-tools/api.yaml]\n" + CASES,
    )
    (pytester.path / "shared-tools").mkdir()
    os.mkfifo(pytester.path / "shared-tools/api.yaml")

    result = run(pytester)

    assert_refused(result, pytester, "shared-tools/api.yaml", "is a FIFO")


def test_a_fifo_in_a_tool_library_directory_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    write_file(fifo_skill / "evals/cases.yaml", "tool_libraries: [../../../shared-tools]\n" + CASES)
    write_file(pytester.path / "shared-tools/a.yaml", "tools:\n  - name: lookup\n")
    os.mkfifo(pytester.path / "shared-tools/b.yaml")

    result = run(pytester)

    assert_refused(result, pytester, "shared-tools/b.yaml", "is a FIFO")


def test_a_fifo_listed_in_evals_json_files_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    write_file(
        fifo_skill / "evals/evals.json",
        '{"evals": [{"id": 1, "prompt": "p", "expected_output": "o",'
        ' "files": ["evals/files/in.csv"]}]}',
    )
    (fifo_skill / "evals/files").mkdir()
    os.mkfifo(fifo_skill / "evals/files/in.csv")

    result = run(pytester)

    out = result.stdout.str()
    assert result.ret == 2, out
    assert "'evals/files/in.csv' is a FIFO, not a regular file" in out, out
    assert runner_calls(pytester) == []


# --- skill-lens.toml -----------------------------------------------------------------------


def test_a_fifo_skill_lens_toml_is_refused_not_skipped(
    pytester: pytest.Pytester, fifo_skill: Path
) -> None:
    os.mkfifo(pytester.path / "skill-lens.toml")

    result = run(pytester)

    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 2, out
    assert "skill-lens.toml: the config file is a FIFO, not a regular file" in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize(
    ("target", "what"),
    [("fifo.toml", "a FIFO"), (os.devnull, "a character device"), ("confdir", "a directory")],
    ids=["fifo", "dev-null", "directory"],
)
def test_a_special_skill_lens_config_path_is_refused(
    pytester: pytest.Pytester, fifo_skill: Path, target: str, what: str
) -> None:
    if target == "fifo.toml":
        os.mkfifo(pytester.path / target)
    elif target == "confdir":
        (pytester.path / target).mkdir()

    result = run(pytester, "--skill-lens-config", target)

    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 2, out
    assert f"{target}: the config file is {what}, not a regular file" in out, out
    assert "Traceback" not in out


# --- helpers -------------------------------------------------------------------------------


@contextlib.contextmanager
def unix_socket(directory: Path, name: str = "s.yaml") -> Iterator[str]:
    """A Unix socket ``name`` in ``directory`` for the duration; yields ``name``.

    A socket path is limited to about 100 bytes and pytester's directories are long,
    so it is bound by a short relative path from inside ``directory``.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        with contextlib.chdir(directory):
            sock.bind(name)
        try:
            yield name
        finally:
            (directory / name).unlink(missing_ok=True)


# --- the hang guard itself -----------------------------------------------------------------


def test_the_guard_gives_a_waiting_reader_an_empty_file_and_names_the_fifo(
    tmp_path: Path,
) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    with fifo_guard(tmp_path) as opened, (tmp_path / "pipe.yaml").open("rb") as handle:
        assert handle.read() == b""  # without the guard, the open above waits for ever
    assert opened == [tmp_path / "pipe.yaml"]


def test_the_guard_names_no_fifo_that_nothing_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    with fifo_guard(tmp_path) as opened:
        threading.Event().wait(0.05)  # a few of the guard's rounds
    assert opened == []
