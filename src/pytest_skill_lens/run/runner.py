"""The runner seam: how a case is performed, whoever performs it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..settings import Settings
from ..suite.model import EvalCase
from ..suite.skill import Skill

if TYPE_CHECKING:  # annotations only: configure and collection never check a result
    from .result import RunResult
    from .sandbox.product_sandbox import ProductSandbox
    from .sandbox.script_sandbox import SandboxDecision


@runtime_checkable
class Runner(Protocol):
    """Performs one task of a case with a skill loaded (or offered).

    ``run`` never raises for a provider or product failure: it returns a
    :class:`RunResult` whose ``error`` says what went wrong, and the case is
    then *errored*. A runner holds no mutable per-run state, so one instance
    may serve several items.
    """

    name: str

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult: ...


@dataclass(frozen=True)
class RunnerContext:
    """What a runner factory may read to build its runner.

    ``sandbox`` is the OS sandbox bundled scripts run under (the
    ``skill_lens_sandbox`` fixture's value); a runner that offers the built-in
    tools hands it to :func:`~.tools.toolkit.builtin_tools`. ``product_sandbox`` is
    the run's product sandbox decision (``None`` when no product is named), which a
    product runner wraps every start in.
    """

    name: str
    settings: Settings
    sandbox: SandboxDecision | None = None
    product_sandbox: ProductSandbox | None = None


RunnerFactory = Callable[[RunnerContext], Runner]
