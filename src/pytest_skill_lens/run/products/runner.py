"""One call of a product (Claude Code, Copilot, ``cli``): the steps every one of them takes.

Deliver the skill into the working directory, start the product under its home (and the
run's product sandbox) with the case's mock tools, then read its trace (``cli``'s is its
stdout). What differs is read from the product's description (:class:`.description.Preset`):
the file it leaves in the call's directory for the reader, where the skill goes, how a
loaded case is phrased, and its trace reader. Under ``--skill-lens-record`` the start goes
through the item's cassette (:mod:`.cassette`): a replay starts no process and hands the
recorded trace to the same reader.
"""

from __future__ import annotations

from pathlib import Path

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..cassettes import KeyPart
from ..cassettes.files import Seat
from ..cassettes.product import Capture, stderr_tail
from ..result import RunResult
from ..sandbox.product_sandbox import ProductSandbox
from ..workspace.containment import Refused, read_regular
from .bridge import BridgeSetupError, settle, start_with_tools
from .cassette import (
    NotStarted,
    Started,
    key_parts,
    secrets_of,
    start_taped,
    table_key,
    watch_from,
    watched,
)
from .delivery import DeliveryFailed, deliver
from .description import (
    PROMPT_PLACEHOLDER,
    Preset,
    argv,
    exposed_prompt_problem,
    prompt_for,
    prompt_problem,
    with_flags,
)
from .env import isolation_of, make_home, product_env
from .home_template import seed_home
from .preflight import probed_version
from .process import RunDir, RunDirFailed, StartFailed, run_dir
from .trace import Ending, Expect


class ProductRunner:
    """Runs one task through ``preset``'s product; never raises (failures are errored).

    ``seat`` is whose call it is in the item's cassette: the runner's, or the judge's
    when a product judge grades with it. ``sandbox`` is the run's product sandbox
    decision (``None`` for none), every start of it is wrapped by.
    """

    records_cassettes = True  # every start goes through the item's cassette

    def __init__(
        self,
        preset: Preset,
        settings: Settings,
        *,
        sandbox: ProductSandbox | None,
        seat: Seat = "runner",
    ) -> None:
        self.name = preset.name
        self.preset = preset
        self.seat: Seat = seat
        self._settings = settings
        self._decision = sandbox
        self._sandbox = settings.product_sandbox
        self._table = preset.table(settings)
        self._skills_dir = self._table.skills_dir or preset.skills_dir
        self._invoke = self._table.invoke or preset.invoke
        # A wrapper is not known to take the flag that asks for the left file.
        self._left = preset.left_file if preset.names_itself(self._table) else None
        self._isolation = isolation_of(settings.product_sandbox)
        # The product never outlives the case: the case deadline abandons the call.
        self._timeout = min(self._table.timeout_seconds, settings.case_timeout_seconds)

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        try:
            return self._run(skill, case, workspace)
        except Exception as exc:  # a runner never raises; the case is errored
            return RunResult(error=f"{self.name} runner failed: {type(exc).__name__}: {exc}")

    def call_flags(self, run: RunDir) -> list[str]:
        """Flags that name the call's own directory, after the table's."""
        if self._left is None or self._left.flag is None:
            return []
        return [self._left.flag.replace("{path}", str(run.root / self._left.name))]

    def left_behind(self, run: RunDir) -> bytes | None:
        """What the product wrote into the call's directory for the reader, read capped and
        never through a link; ``None`` when there is none (a timed-out run writes none)."""
        left = self._left
        found = sorted(run.root.glob(left.name)) if left is not None else []
        if left is None or not found or not found[-1].is_file():
            return None
        try:
            where = f"{self.name}'s {left.name}"
            return read_regular(found[-1], left.name, left.max_bytes, where=where)
        except Refused:
            return None

    def _run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        prompt = prompt_for(skill, case, self._invoke)
        problem = prompt_problem(prompt) or self._exposed(prompt)
        if problem is not None:
            return RunResult(error=problem)  # nothing started, nothing spent: no notes
        command = argv(self.preset, self._table, prompt)
        secrets = secrets_of(self.preset, self._table)
        taped = start_taped(
            self.seat,
            self.name,
            prompt,
            argv(self.preset, self._table, PROMPT_PLACEHOLDER),  # as a cassette keeps it
            lambda watch: self._start(skill, case, workspace, command, watch, secrets),
            workspace=workspace,
            deliver_again=lambda: self._deliver(skill, workspace or Path()),
            tools=case.tools,
            secrets=secrets,
        )
        if isinstance(taped, RunResult):
            return taped
        started = taped.started
        capture = started.capture
        ending = Ending(
            exit_code=capture.exit_code,
            cut=capture.cut,
            stderr=capture.stderr,
            timeout_seconds=self._timeout,
            max_output_bytes=self._table.max_output_bytes,
        )
        expect = Expect.of(skill, case, self.preset.told_model(self._table))
        trace = self.preset.read(capture.stdout, capture.left, ending, expect)
        return taped.finish(settle(self.preset, trace, started.log))

    def _exposed(self, prompt: str) -> str | None:
        """The table's own ``command`` would hand a ``-`` task to the product as a flag."""
        if self._table.command is None:
            return None  # the preset's prompt_args never do
        key = f"[runners.{self.name}]"
        found = exposed_prompt_problem(key, self._table.command, prompt)
        return None if found is None else f"{found[0]}; {found[1]}"

    def _deliver(self, skill: Skill, cwd: Path) -> None:
        """The skill, and the product's own configuration files made inert (issue 29)."""
        deliver(skill, cwd, self._skills_dir, inert=self.preset.inert_files)

    def _start(
        self,
        skill: Skill,
        case: EvalCase,
        workspace: Path | None,
        command: list[str],
        watch: bool,
        secrets: list[str],
    ) -> Started:
        """Start the product (``watch``: and keep what it did to the workspace)."""
        try:
            with run_dir(self.name, sandbox=self._decision) as run:
                cwd = workspace if workspace is not None else run.work
                self._deliver(skill, cwd)
                before = watch_from(workspace, watch)
                isolation, decision = self._isolation, self._decision
                env = product_env(self.preset, self._table, isolation, run.home, sandbox=decision)
                if isolation == "home":  # the product's first-run work, done once
                    seed_home(self.preset, self._table, env, run.home, decision)
                make_home(run.home)
                # With the case's tools, the bridge's config is the last flag (bridge.py).
                tooled = start_with_tools(
                    self.preset,
                    self._table,
                    case.tools,
                    with_flags(command, self.call_flags(run)),
                    run=run,
                    cwd=cwd,
                    env=env,
                    timeout=self._timeout,
                    max_output_bytes=self._table.max_output_bytes,
                )
                left = self.left_behind(run)
        except (DeliveryFailed, RunDirFailed) as exc:
            raise NotStarted(str(exc)) from None
        except BridgeSetupError as exc:  # never a run without the case's tools
            raise NotStarted(f"{self.name} could not be given the mock tools: {exc}") from None
        except StartFailed as exc:
            raise NotStarted(f"{self.name} could not be started ({command[0]!r}): {exc}") from None
        changes, unkept = watched(workspace, before, secrets)
        finished = tooled.ran.finished
        capture = Capture(
            stdout=finished.stdout.data,
            exit_code=finished.exit_code,
            cut=finished.stdout.omitted > 0,
            stderr=stderr_tail(finished.stderr.data),
            left=left,
            calls=tooled.calls_data if tooled.log is not None else None,
            changes=changes,
        )
        return Started(capture, tooled.log, tooled.ran.latency_ms, unkept)

    # -- the cassette's key ----------------------------------------------------------------

    def cassette_parts(self) -> list[KeyPart]:
        """What of this product a cassette is recorded under (docs/replay.md)."""
        table = table_key(self._table, self._timeout, self._sandbox)
        own = self.preset.names_itself(self._table)  # a wrapper is never asked its version
        version = probed_version(self.preset.name) if own else None
        return key_parts(self.seat, self.name, table, version, self._settings)
