"""The skill bundle attacked for real: every withheld name, links out and onto answer keys,
FIFOs, loops, binaries, sparse giants and a repository-sized skill; the exact texts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.tools.bundle_tools import bundle_tools, skill_bundle
from pytest_skill_lens.run.tools.toolkit import builtin_tools
from pytest_skill_lens.run.workspace.bundle import (
    MAX_BUNDLE_BYTES,
    MAX_BUNDLE_FILES,
    TOO_MANY_BYTES,
    TOO_MANY_FILES,
    Bundle,
)
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.skill import Skill

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and links are POSIX here")

NEVER = (
    "SKILL.md, eval files (evals/, *.eval.yaml, evals.json), version control, "
    "dependency directories and secret files (.env, .npmrc, ...) are never readable"
)
HINT = (
    "a bundle is at most 1,000 files and 100 MB (100,000,000 bytes); that is almost always "
    "a SKILL.md at a repository root, which would otherwise ship the whole repository"
)


def not_shipped(path: str) -> str:
    return f"refused: '{path}' is not a file the skill ships; {NEVER}"


def not_in_bundle(path: str) -> str:
    return f"error: '{path}' is not in the skill's bundle; list_skill_files shows what is"


def put(root: Path, rel: str, text: str | bytes = "x\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def sparse(path: Path, size: int) -> None:
    """A file of ``size`` apparent bytes that costs (almost) nothing on disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if shutil.which("truncate"):
        subprocess.run(["truncate", "-s", str(size), str(path)], check=True)
    else:  # pragma: no cover - every Linux CI image has coreutils
        fd = os.open(path, os.O_CREAT | os.O_WRONLY)
        os.ftruncate(fd, size)
        os.close(fd)


def finishes(call: Callable[[], Any], fifo: Path, seconds: float = 5.0) -> Any:
    """``call()``'s result, failing (not hanging) if it blocks on ``fifo``."""
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # release the blocked reader
        pytest.fail("the bundle opened a FIFO and blocked")
    return box[0]


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    """A skill with the usual layout and its eval file."""
    root = tmp_path / "order-support"
    put(root, "SKILL.md", "---\nname: order-support\n---\nRead references/style.md.\n")
    put(root, "evals/cases.yaml", "cases:\n- name: a\n  task: t\n")
    put(root, "references/style.md", "Use short sentences.\n")
    put(root, "scripts/count.py", "print(1)\n")
    put(root, "assets/logo.txt", "LOGO\n")
    return root


# -- what ships ---------------------------------------------------------------------------


def test_every_shipped_file_is_listed_sorted_and_readable(skill_dir: Path) -> None:
    put(skill_dir, "reference.md", "top\n")
    put(skill_dir, "templates/SKILL.md", "a template of a skill\n")  # only the top one is held
    put(skill_dir, ".github/notes.md", "hidden dirs ship\n")
    bundle = Bundle.of(skill_dir)
    expected = [
        ".github/notes.md",
        "assets/logo.txt",
        "reference.md",
        "references/style.md",
        "scripts/count.py",
        "templates/SKILL.md",
    ]
    assert bundle.files() == expected
    assert bundle.listing() == "\n".join(expected)
    assert bundle.scripts() == ["scripts/count.py"]
    assert bundle.refusal is None
    assert bundle.exists and bool(bundle)
    assert bundle.read("references/style.md") == "Use short sentences.\n"
    assert bundle.read("templates/SKILL.md") == "a template of a skill\n"
    assert bundle.resolve("scripts/count.py") == (skill_dir / "scripts/count.py").resolve()
    # Spelled with redundant separators, it is still the one shipped file.
    assert bundle.read("references/./style.md") == "Use short sentences.\n"


def test_the_root_is_resolved_once_so_a_linked_skill_directory_works(
    skill_dir: Path, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(skill_dir)
    bundle = Bundle.of(alias)
    assert bundle.root == skill_dir.resolve()
    assert bundle.read("references/style.md") == "Use short sentences.\n"


def test_scripts_are_the_files_under_scripts_only(skill_dir: Path) -> None:
    put(skill_dir, "scripts/lib/helper.sh", "echo\n")
    put(skill_dir, "scripts/data.json", "{}\n")
    put(skill_dir, "Scripts/other.py", "x\n")  # another directory on a case-sensitive disk
    put(skill_dir, "tools/scripts.py", "x\n")
    assert Bundle.of(skill_dir).scripts() == [
        "scripts/count.py",
        "scripts/data.json",
        "scripts/lib/helper.sh",
    ]


def test_a_skill_that_ships_only_skill_md_and_evals_has_no_bundle(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    put(root, "SKILL.md", "---\nname: bare\n---\n")
    put(root, "evals/cases.yaml", "cases: []\n")
    put(root, "bare.eval.yaml", "cases: []\n")
    put(root, ".git/HEAD", "ref\n")
    bundle = Bundle.of(root)
    assert bundle.files() == []
    assert not bundle.exists and not bundle
    assert bundle.listing() == "(the skill ships no files)"
    assert bundle_tools(bundle) == []


def test_a_missing_directory_and_the_empty_bundle_ship_nothing(tmp_path: Path) -> None:
    for bundle in (Bundle.of(tmp_path / "nowhere"), Bundle.empty()):
        assert bundle.files() == [] and not bundle
        assert bundle.read("x.md") == not_in_bundle("x.md")
        assert bundle.read("evals/a.yaml") == not_shipped("evals/a.yaml")


# -- what never ships ---------------------------------------------------------------------

WITHHELD = [
    "SKILL.md",
    "skill.md",
    "Skill.MD",
    "evals/cases.yaml",
    "evals/more/deep.yaml",
    "Evals/cases.yaml",
    "EVALS/tools.yaml",
    "references/evals/answers.md",
    "order.eval.yaml",
    "ORDER.EVAL.YAML",
    "sub/dir/x.Eval.Yaml",
    "evals.json",
    "sub/Evals.JSON",
    ".git/config",
    "vendor/.GIT/HEAD",
    ".hg/hgrc",
    ".Hg/store",
    ".svn/entries",
    ".SVN/x",
    "node_modules/left-pad/index.js",
    "web/Node_Modules/x.js",
    ".venv/bin/activate",
    "tools/.VENV/pyvenv.cfg",
    "__pycache__/count.cpython-311.pyc",
    "scripts/__PYCACHE__/x.pyc",
    ".env",
    ".ENV",
    "scripts/.env",
    ".env.local",
    ".Env.Production",
    "deploy/.env.staging",
    ".npmrc",
    "web/.NPMRC",
    ".netrc",
    ".NetRC",
    ".pypirc",
    "sub/.PYPIRC",
    "skill-lens.toml",
    "Skill-Lens.TOML",
    "nested/skill-lens.toml",
    # What convert --replace moves an evals.json aside to: still the answer key.
    "evals.json.converted",
    "sub/Evals.JSON.converted",
]


@pytest.mark.parametrize("rel", WITHHELD)
def test_a_withheld_file_is_never_listed_or_read(skill_dir: Path, rel: str) -> None:
    put(skill_dir, rel, "the answer key\n")
    bundle = Bundle.of(skill_dir)
    assert rel not in bundle.files()
    assert not any(f.lower() == rel.lower() for f in bundle.files())
    assert "the answer key" not in bundle.listing()
    assert bundle.read(rel) == not_shipped(rel)
    assert isinstance(bundle.resolve(rel), str)


def test_the_seeds_own_example_refusal_word_for_word(skill_dir: Path) -> None:
    assert Bundle.of(skill_dir).read("evals/cases.yaml") == (
        "refused: 'evals/cases.yaml' is not a file the skill ships; SKILL.md, eval files "
        "(evals/, *.eval.yaml, evals.json), version control, dependency directories and "
        "secret files (.env, .npmrc, ...) are never readable"
    )


def test_asking_for_a_withheld_name_that_does_not_exist_tells_nothing(skill_dir: Path) -> None:
    # Refused by name, before the filesystem is asked: no probing for eval files.
    assert Bundle.of(skill_dir).read("evals/nope.yaml") == not_shipped("evals/nope.yaml")
    assert Bundle.of(skill_dir).read(".env.nope") == not_shipped(".env.nope")


def test_names_that_only_resemble_withheld_ones_ship(skill_dir: Path) -> None:
    shipped = [
        "evaluation.md",
        "my-evals/notes.md",
        "evals.md",
        "x.eval.yml",
        ".envrc",
        "environment.env",
        ".gitignore",
        "docs/skill.md",
        "skill-lens.toml.example",
    ]
    for rel in shipped:
        put(skill_dir, rel)
    assert set(shipped) <= set(Bundle.of(skill_dir).files())


def test_a_git_file_as_in_a_worktree_is_withheld(skill_dir: Path) -> None:
    put(skill_dir, ".git", "gitdir: /somewhere/else\n")
    assert Bundle.of(skill_dir).read(".git") == not_shipped(".git")


# -- links --------------------------------------------------------------------------------


@posix_only
@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("references/key.md", "../evals/cases.yaml"),
        ("references/prompt.md", "../SKILL.md"),
        ("answers.txt", "nested/x.eval.yaml"),
        ("token.txt", "deploy/.env.prod"),
        ("cfg.toml", "Skill-Lens.toml"),
        ("head.txt", ".git/HEAD"),
    ],
)
def test_a_link_onto_a_withheld_file_is_refused(skill_dir: Path, link: str, target: str) -> None:
    if not (skill_dir / link).parent.joinpath(target).exists():
        put((skill_dir / link).parent, target, "secret\n")
    (skill_dir / link).parent.mkdir(parents=True, exist_ok=True)
    (skill_dir / link).symlink_to(target)
    bundle = Bundle.of(skill_dir)
    assert link not in bundle.files()
    assert bundle.read(link) == not_shipped(link)
    assert bundle.resolve(link) == not_shipped(link)


@posix_only
def test_a_link_out_of_the_skill_is_refused(skill_dir: Path, tmp_path: Path) -> None:
    put(tmp_path, "sibling/notes.md", "a neighbour's file\n")
    (skill_dir / "passwd").symlink_to("/etc/passwd")
    (skill_dir / "references/notes.md").symlink_to(tmp_path / "sibling/notes.md")
    (skill_dir / "here").symlink_to(".")  # the directory itself is not a file either
    bundle = Bundle.of(skill_dir)
    for rel in ("passwd", "references/notes.md"):
        assert rel not in bundle.files()
        assert bundle.read(rel) == not_shipped(rel)
    assert "root:" not in bundle.read("passwd")
    assert "here" not in bundle.files()


@posix_only
def test_a_link_onto_a_shipped_file_ships_under_its_own_name(skill_dir: Path) -> None:
    (skill_dir / "style.md").symlink_to("references/style.md")
    bundle = Bundle.of(skill_dir)
    assert "style.md" in bundle.files()
    assert bundle.read("style.md") == "Use short sentences.\n"
    assert bundle.resolve("style.md") == (skill_dir / "references/style.md").resolve()


@posix_only
def test_a_linked_directory_is_never_entered(skill_dir: Path, tmp_path: Path) -> None:
    put(tmp_path, "elsewhere/secret.md", "outside\n")
    (skill_dir / "refs").symlink_to("references")
    (skill_dir / "out").symlink_to(tmp_path / "elsewhere")
    bundle = Bundle.of(skill_dir)
    assert not any(f.startswith(("refs/", "out/")) for f in bundle.files())
    assert bundle.read("refs/style.md") == not_in_bundle("refs/style.md")
    assert bundle.read("out/secret.md") == not_shipped("out/secret.md")


@posix_only
def test_a_hard_link_onto_an_eval_file_is_withheld(skill_dir: Path) -> None:
    os.link(skill_dir / "evals/cases.yaml", skill_dir / "references/cases-copy.yaml")
    put(skill_dir, ".env", "TOKEN=1\n")
    os.link(skill_dir / ".env", skill_dir / "assets/token.txt")
    bundle = Bundle.of(skill_dir)
    assert "references/cases-copy.yaml" not in bundle.files()
    assert "assets/token.txt" not in bundle.files()
    assert bundle.read("references/cases-copy.yaml") == not_in_bundle("references/cases-copy.yaml")
    # A hard link between two shipped files is fine.
    os.link(skill_dir / "assets/logo.txt", skill_dir / "assets/logo-copy.txt")
    assert "assets/logo-copy.txt" in Bundle.of(skill_dir).files()


def test_an_evals_path_given_on_the_command_line_is_withheld_too(skill_dir: Path) -> None:
    put(skill_dir, "tests/cases.yaml", "cases: []\n")
    put(skill_dir, "answers.yaml", "cases: []\n")
    bundle = Bundle.of(skill_dir, also_withheld=[skill_dir / "tests", skill_dir / "answers.yaml"])
    assert "tests/cases.yaml" not in bundle.files()
    assert "answers.yaml" not in bundle.files()
    assert bundle.read("tests/cases.yaml") == not_shipped("tests/cases.yaml")
    assert "references/style.md" in bundle.files()


# -- regular files only -------------------------------------------------------------------


@posix_only
def test_a_fifo_is_refused_by_stat_and_never_opened(skill_dir: Path) -> None:
    fifo = skill_dir / "references/pipe.md"
    os.mkfifo(fifo)
    (skill_dir / "pipe-link.md").symlink_to("references/pipe.md")
    bundle = Bundle.of(skill_dir)
    assert finishes(bundle.files, fifo) == [
        "assets/logo.txt",
        "references/style.md",
        "scripts/count.py",
    ]
    assert finishes(lambda: bundle.read("references/pipe.md"), fifo) == (
        "refused: references/pipe.md is a FIFO (named pipe)"
    )
    assert finishes(lambda: bundle.read("pipe-link.md"), fifo) == (
        "refused: pipe-link.md is a FIFO (named pipe)"
    )


@posix_only
def test_a_file_swapped_for_a_fifo_after_the_scan_is_refused(skill_dir: Path) -> None:
    bundle = Bundle.of(skill_dir)
    assert "references/style.md" in bundle.files()
    fifo = skill_dir / "references/style.md"
    fifo.unlink()
    os.mkfifo(fifo)
    assert finishes(lambda: bundle.read("references/style.md"), fifo) == (
        "refused: references/style.md is a FIFO (named pipe)"
    )


@posix_only
@pytest.mark.parametrize("pair", [False, True], ids=["self-loop", "two-link-loop"])
def test_a_link_loop_is_refused(skill_dir: Path, pair: bool) -> None:
    if pair:
        (skill_dir / "loop").symlink_to("other")
        (skill_dir / "other").symlink_to("loop")
    else:
        (skill_dir / "loop").symlink_to("loop")
    bundle = Bundle.of(skill_dir)
    assert "loop" not in bundle.files()
    assert bundle.read("loop") == "refused: loop is a symbolic-link loop"


def test_a_directory_and_a_missing_file(skill_dir: Path) -> None:
    bundle = Bundle.of(skill_dir)
    assert bundle.read("references") == "refused: references is a directory"
    assert bundle.read("references/nope.md") == not_in_bundle("references/nope.md")
    assert bundle.read("References/style.md") == not_in_bundle("References/style.md")


# -- paths and arguments ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/etc/passwd", "refused: '/etc/passwd': the path is absolute; write it relative to "
         "the skill's directory"),
        ("../other-skill/SKILL.md", "refused: '../other-skill/SKILL.md': the path contains "
         "'..', which would leave the skill's directory"),
        ("", "refused: '': the path is empty"),
        ("a\x00b", "refused: 'a\\x00b': the path holds a NUL byte"),
        ("references\\style.md", "refused: 'references\\\\style.md': the path holds a "
         "backslash; write '/' between directories"),
        (3, "refused: a path is text, not int"),
        (None, "refused: a path is text, not NoneType"),
    ],
)  # fmt: skip
def test_a_bad_path_is_refused_before_the_filesystem(skill_dir: Path, path: Any, said: str) -> None:
    assert Bundle.of(skill_dir).read(path) == said


# -- reading: binary, too large -----------------------------------------------------------


def test_a_binary_file_gets_the_workspace_read_files_message(
    skill_dir: Path, tmp_path: Path
) -> None:
    blob = b"\x89PNG\r\n\x1a\n\x00\xff"
    put(skill_dir, "assets/logo.png", blob)
    workspace = Workspace.create("bin", parent=tmp_path)
    try:
        (workspace.root / "assets").mkdir()
        (workspace.root / "assets/logo.png").write_bytes(blob)
        said = Workspace.read_file(workspace, "assets/logo.png")
    finally:
        workspace.cleanup()
    assert said == "refused: assets/logo.png is not valid UTF-8 text"
    bundle = Bundle.of(skill_dir)
    assert "assets/logo.png" in bundle.files()  # it ships; it is not readable as text
    assert bundle.read("assets/logo.png") == said


def test_an_over_size_file_is_refused_before_a_byte_is_read(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sparse(skill_dir / "assets/huge.log", 90_000_000)  # costs nothing on disk
    sparse(skill_dir / "assets/over.txt", 1_000_001)
    sparse(skill_dir / "assets/at-cap.txt", 1_000_000)
    bundle = Bundle.of(skill_dir)
    assert bundle.read("assets/over.txt") == (
        "refused: assets/over.txt is 1,000,001 bytes; max_file_bytes is 1,000,000"
    )
    assert bundle.read("assets/at-cap.txt") == "\x00" * 1_000_000

    def no_open(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("opened a file over the cap")

    monkeypatch.setattr(os, "open", no_open)
    assert Bundle.of(skill_dir).read("assets/huge.log") == (
        "refused: assets/huge.log is 90,000,000 bytes; max_file_bytes is 1,000,000"
    )


def test_the_read_cap_is_the_built_in_one_whatever_is_configured(skill_dir: Path) -> None:
    # read_skill_file takes no setting: 1 MB always (max_file_bytes binds the workspace).
    sparse(skill_dir / "assets/two-mb.txt", 2_000_000)
    said = Bundle.of(skill_dir).read("assets/two-mb.txt")
    assert said == "refused: assets/two-mb.txt is 2,000,000 bytes; max_file_bytes is 1,000,000"


# -- a repository-sized skill -------------------------------------------------------------


def test_one_thousand_files_ship_and_one_more_refuses_the_bundle(tmp_path: Path) -> None:
    root = tmp_path / "big"
    put(root, "SKILL.md", "---\nname: big\n---\n")
    for i in range(MAX_BUNDLE_FILES):
        put(root, f"data/{i:04}.txt", "")
    put(root, "evals/cases.yaml", "cases: []\n")  # withheld files do not count
    put(root, "node_modules/x/index.js", "")
    bundle = Bundle.of(root)
    assert len(bundle.files()) == 1_000 and bundle.refusal is None

    put(root, "one-more.txt", "")
    bundle = Bundle.of(root)
    refusal = f"refused: the skill ships more than 1,000 files; {HINT}"
    assert bundle.refusal == refusal == TOO_MANY_FILES
    assert bundle.listing() == TOO_MANY_FILES
    assert bundle.read("data/0001.txt") == TOO_MANY_FILES
    assert bundle.resolve("data/0001.txt") == TOO_MANY_FILES
    assert bundle.files() == [] and bundle.scripts() == []
    # Offered all the same, so the model reads the refusal.
    assert bundle.exists
    assert [t.name for t in bundle_tools(bundle)] == ["list_skill_files", "read_skill_file"]
    # A withheld name still gets its own refusal, never the file.
    assert bundle.read("evals/cases.yaml") == not_shipped("evals/cases.yaml")


def test_a_skill_over_100_mb_is_refused_counting_apparent_sizes(tmp_path: Path) -> None:
    root = tmp_path / "heavy"
    put(root, "SKILL.md", "---\nname: heavy\n---\n")
    sparse(root / "assets/a.bin", 60_000_000)
    sparse(root / "assets/b.bin", MAX_BUNDLE_BYTES - 60_000_000)
    sparse(root / ".git/objects/pack.bin", 500_000_000)  # withheld: never counted
    assert Bundle.of(root).refusal is None  # exactly 100,000,000 bytes is allowed

    put(root, "assets/c.txt", "1")  # one byte over
    bundle = Bundle.of(root)
    refusal = f"refused: the skill ships more than 100 MB; {HINT}"
    assert bundle.refusal == refusal == TOO_MANY_BYTES
    assert bundle.listing() == refusal
    assert bundle.read("assets/c.txt") == refusal

    (root / "assets/c.txt").unlink()
    (root / "assets/b.bin").unlink()
    sparse(root / "assets/giant.log", 10_000_000_000)  # one sparse giant is enough
    assert Bundle.of(root).refusal == refusal


# -- the tools ----------------------------------------------------------------------------


def test_two_tools_with_closed_schemas_that_never_name_the_skill(skill_dir: Path) -> None:
    tools = bundle_tools(Bundle.of(skill_dir))
    assert [t.name for t in tools] == ["list_skill_files", "read_skill_file"]
    assert [t.description for t in tools] == [
        "List the bundled files, one path per line, relative to the skill's directory",
        "Read one bundled text file, e.g. `references/style.md`. `path` is relative to the "
        "skill's directory, as list_skill_files shows it",
    ]
    for tool in tools:
        assert "order" not in tool.description
        assert tool.schema["additionalProperties"] is False
    assert [t.schema["required"] for t in tools] == [[], ["path"]]
    listing, read = tools
    assert listing.call({}) == "assets/logo.txt\nreferences/style.md\nscripts/count.py"
    assert read.call({"path": "references/style.md"}) == "Use short sentences.\n"
    assert read.call({}) == "refused: read_skill_file needs path (missing: path)"
    assert read.call({"path": ["a"]}) == "refused: a path is text, not list"
    assert read.call({"path": "evals/cases.yaml"}) == not_shipped("evals/cases.yaml")


def skill_at(directory: Path, **more: Any) -> Skill:
    fields: dict[str, Any] = {
        "name": "order-support",
        "description": "Handles refunds.",
        "instructions": "Read references/style.md.",
        "path": directory / "SKILL.md",
    }
    return Skill(**{**fields, **more})


def test_builtin_tools_add_the_bundle_only_with_a_workspace_and_a_bundle(
    skill_dir: Path, tmp_path: Path
) -> None:
    settings = Settings()
    workspace = Workspace.create("tools", parent=tmp_path)
    try:
        with_bundle = builtin_tools(skill_at(skill_dir), workspace, settings)
        assert [t.name for t in with_bundle] == [
            "list_files",
            "read_file",
            "write_file",
            "list_skill_files",
            "read_skill_file",
        ]
        assert builtin_tools(skill_at(skill_dir), None, settings) == []
        bare = tmp_path / "bare"
        put(bare, "SKILL.md", "---\nname: bare\n---\n")
        put(bare, "evals/cases.yaml", "cases: []\n")
        names = [t.name for t in builtin_tools(skill_at(bare), workspace, settings)]
        assert names == ["list_files", "read_file", "write_file"]
    finally:
        workspace.cleanup()


def test_a_none_baseline_has_no_bundle_and_a_previous_one_its_own(skill_dir: Path) -> None:
    none = skill_at(skill_dir, description="", instructions="", variant="baseline")
    assert not skill_bundle(none)
    previous = skill_at(skill_dir, variant="baseline")
    assert skill_bundle(previous).files() == Bundle.of(skill_dir).files()


def test_the_skill_bundle_keeps_out_what_the_skill_withholds(skill_dir: Path) -> None:
    put(skill_dir, "answers.yaml", "cases: []\n")
    put(skill_dir, "scripts/answers.py", "print(1)\n")
    assert "answers.yaml" in skill_bundle(skill_at(skill_dir)).files()
    withheld = (skill_dir / "answers.yaml", skill_dir / "scripts/answers.py")
    bundle = skill_bundle(skill_at(skill_dir, withheld=withheld))
    assert bundle.read("answers.yaml") == not_shipped("answers.yaml")
    assert "scripts/answers.py" not in bundle.scripts()
    assert "references/style.md" in bundle.files()
