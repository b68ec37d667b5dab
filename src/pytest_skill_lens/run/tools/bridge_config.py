"""The harness side of the MCP bridge: its files for one product invocation, and what it served.

For every invocation (every session of a case) :func:`prepare_bridge` makes a
fresh directory outside the working directory, which the product can list and a
``file-produced`` assertion could read, and writes three files into it: the spec
(the case's tools), the calls file the bridge appends to, and the product's MCP
config naming the bridge as its one stdio server. :attr:`BridgeFiles.argument` is
the flag that hands the config over, to be placed last on the product's command
line; :func:`read_calls` reads back what the bridge served and
:func:`remove_bridge` deletes the directory, ``--keep-workspace`` or not.

The product can write that directory, so the harness keeps the calls file it made
open (:attr:`BridgeFiles.calls_fd`) and reads it back through that descriptor only:
a FIFO, a link or another file put at the path later is never opened.
:func:`check_bridge` is the preflight: it starts the bridge with ``--check``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...suite.model import ToolSpec
from ..process.leftovers import owner_mark, remove_tree
from ..process.start import StartFailed, run_process
from ..process.temp_parent import make_dir, parent_of
from .bridge_calls import BridgeLog, read_calls_fd
from .bridge_form import BridgeForm
from .bridge_spec import SERVER_NAME, SpecError, encode_spec

MODULE = "pytest_skill_lens.mcp_bridge"
CHECK_TIMEOUT_SECONDS = 60.0
_CHECK_OUTPUT_BYTES = 4096
# The directory this package was imported from (site-packages, or src/ in a checkout).
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]

__all__ = [
    "SERVER_NAME",
    "BridgeFiles",
    "BridgeLog",
    "BridgeSetupError",
    "bridge_command",
    "bridge_env",
    "bridge_for",
    "check_bridge",
    "mcp_config",
    "prepare_bridge",
    "read_calls",
    "read_calls_data",
    "remove_bridge",
]


class BridgeSetupError(Exception):
    """The bridge's files could not be made: the run is errored, never run without its tools."""


@dataclass(frozen=True)
class BridgeFiles:
    """The bridge of one product invocation, all in one directory of its own."""

    directory: Path
    spec: Path
    calls: Path
    config: Path
    argument: str | None
    """The flag that gives the product the config; it goes last on the product's argv
    (``None``: the product takes :attr:`server` through its launch hook instead)."""
    calls_fd: int = -1
    """The calls file as the harness made it, open for reading until :func:`remove_bridge`."""
    server: Mapping[str, Any] = field(default_factory=dict)
    """The config's one server entry (``command``, ``args``, ``env``, the form's keys)."""


def bridge_command(spec: Path, calls: Path | None, *, python: str = sys.executable) -> list[str]:
    """The bridge's argv: this interpreter, ``-m`` the module, the spec and calls files.

    ``-P`` keeps the product's working directory off ``sys.path``: a skill that ships
    a ``pydantic.py`` must not be imported by the bridge the product starts there.
    """
    argv = [python, "-P", "-m", MODULE, "--spec", str(spec)]
    return [*argv, "--calls", str(calls)] if calls is not None else argv


def bridge_env() -> dict[str, str]:
    """What the bridge needs in its environment beyond ``PATH``: where this package is.

    Copilot starts a local MCP server with ``PATH`` and the config's own ``env``
    only, and Claude Code's is the product's allowlisted one, so the import path is
    named rather than inherited.
    """
    return {"PYTHONPATH": str(_PACKAGE_PARENT)}


def mcp_config(
    form: BridgeForm, spec: Path, calls: Path, *, python: str = sys.executable
) -> dict[str, Any]:
    """The product's MCP config: the bridge as the one stdio server named ``skill-lens``,
    in the product's form (its server type, a tool list: :class:`BridgeForm`)."""
    command, *args = bridge_command(spec, calls, python=python)
    server: dict[str, Any] = {"command": command, "args": args, "env": bridge_env()}
    server = {**server, **form.server}
    for text in [command, *args, *server["env"].values()]:
        if "${" in text or "\x00" in text:
            # Claude Code expands ${VAR} in a config's strings; a path holding one
            # would start something other than the bridge.
            raise BridgeSetupError(f"the bridge cannot be configured with the path {text!r}")
    return {"mcpServers": {SERVER_NAME: server}}


def prepare_bridge(
    tools: Sequence[ToolSpec],
    form: BridgeForm,
    *,
    working_directory: Path,
    parent: Path | None = None,
    python: str = sys.executable,
) -> BridgeFiles:
    """A fresh bridge directory holding the spec, an empty calls file and the config.

    ``parent`` is where the directory goes (the system temporary directory by
    default; a product sandbox may need it under a path it binds writable). It is
    refused inside ``working_directory``. Raises :class:`BridgeSetupError`.
    """
    try:
        text = encode_spec(tools)
    except SpecError as exc:
        raise BridgeSetupError(f"the mock tools cannot be served: {exc}") from None
    directory = _new_directory(Path(parent) if parent is not None else None)
    calls_fd = -1
    try:
        if directory.is_relative_to(Path(working_directory).resolve()):
            raise BridgeSetupError(
                f"the bridge directory {directory} would be inside the working directory"
            )
        calls = directory / "calls.jsonl"
        config = mcp_config(form, directory / "spec.json", calls, python=python)
        calls_fd = _create_calls(calls)
        files = BridgeFiles(
            directory,
            directory / "spec.json",
            calls,
            directory / "mcp.json",
            form.argument(directory / "mcp.json"),
            calls_fd,
            config["mcpServers"][SERVER_NAME],
        )
        _write_new(files.spec, text)
        _write_new(files.config, json.dumps(config, indent=1))
    except BaseException:
        if calls_fd >= 0:
            os.close(calls_fd)
        remove_tree(directory)
        raise
    return files


def _create_calls(path: Path) -> int:
    """The empty calls file, made here and kept open for reading it back."""
    flags = os.O_RDONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        raise BridgeSetupError(f"cannot write {path}: {exc.strerror or exc}") from None


def _new_directory(base: Path | None) -> Path:
    """A new directory in ``base``, or in the user's skill-lens parent
    (:mod:`..process.temp_parent`)."""
    prefix = "skill-lens-bridge-"
    try:
        # Marked with this process, so a run killed mid-case has it swept by the next.
        if base is None:
            return make_dir(prefix, owner_mark())
        return Path(tempfile.mkdtemp(prefix=prefix, suffix=owner_mark(), dir=base)).resolve()
    except OSError as exc:
        where = base if base is not None else parent_of()
        raise BridgeSetupError(f"cannot make the bridge directory in {where}: {exc}") from None


def _write_new(path: Path, text: str) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise BridgeSetupError(f"cannot write {path}: {exc.strerror or exc}") from None


def read_calls(files: BridgeFiles) -> BridgeLog:
    """What the bridges of this invocation served, in the order they served it."""
    return read_calls_data(files)[0]


def read_calls_data(files: BridgeFiles) -> tuple[BridgeLog, bytes]:
    """:func:`read_calls`, and the bytes it read (at most the reader's cap, for a cassette)."""
    return read_calls_fd(files.calls_fd, files.calls)


def remove_bridge(files: BridgeFiles) -> None:
    """Close the calls file and delete the bridge directory; never raises."""
    if files.calls_fd >= 0:
        with contextlib.suppress(OSError):
            os.close(files.calls_fd)
    remove_tree(files.directory)


@contextlib.contextmanager
def bridge_for(
    tools: Sequence[ToolSpec],
    form: BridgeForm,
    *,
    working_directory: Path,
    parent: Path | None = None,
) -> Iterator[BridgeFiles]:
    """:func:`prepare_bridge`, with the directory deleted when the block ends."""
    files = prepare_bridge(tools, form, working_directory=working_directory, parent=parent)
    try:
        yield files
    finally:
        remove_bridge(files)


def check_bridge(
    tools: Sequence[ToolSpec],
    *,
    python: str = sys.executable,
    timeout: float = CHECK_TIMEOUT_SECONDS,
) -> str | None:
    """The preflight: start the bridge with ``--check`` on ``tools``; the problem, or ``None``.

    It runs as a product would start it: the same argv and an environment of
    ``PATH`` plus :func:`bridge_env` only, in a directory of its own.
    """
    try:
        directory = _new_directory(None)
    except BridgeSetupError as exc:
        return str(exc)
    try:
        return _check_in(directory, tools, python, timeout)
    finally:
        remove_tree(directory)


def _check_in(
    directory: Path, tools: Sequence[ToolSpec], python: str, timeout: float
) -> str | None:
    try:
        spec = directory / "spec.json"
        _write_new(spec, encode_spec(tools))
    except (SpecError, BridgeSetupError) as exc:
        return str(exc)
    env = {"PATH": os.environ.get("PATH", os.defpath), **bridge_env()}
    try:
        finished = run_process(
            [*bridge_command(spec, directory / "calls.jsonl", python=python), "--check"],
            cwd=directory,
            env=env,
            timeout=timeout,
            max_output_bytes=_CHECK_OUTPUT_BYTES,
        )
    except StartFailed as exc:
        return f"the MCP bridge did not start: {exc}"
    if finished.timed_out:
        return f"the MCP bridge check did not finish in {timeout:g} s"
    if finished.exit_code == 0:
        return None
    said = finished.stderr.data.decode("utf-8", "replace").strip().splitlines()
    reason = said[-1] if said else "(it printed nothing)"
    return f"the MCP bridge check exited {finished.exit_code}: {reason}"
