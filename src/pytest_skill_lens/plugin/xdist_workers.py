"""The pytest-xdist workers of a run that are processes on this machine.

The controller passes a SIGTERM on to them (:mod:`.terminate`) and lends them the
Copilot package it unpacked (:mod:`..run.products.copilot_package`) and the home
templates its preflight made (:mod:`..run.products.home_template`); a worker on another
machine (an ``ssh`` or ``socket`` gateway) has neither its pid nor its files here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

# The controller's filled Copilot packages, in a local worker's workerinput.
LENT_PACKAGES = "skill_lens_copilot_packages"
LENT_TEMPLATES = "skill_lens_home_templates"  # the controller's home templates
LEDGER_INPUT = "skill_lens_ledger"  # the spend ledger's directory, in workerinput
WORKER_OUTPUT = "skill_lens"  # what a worker learnt (.worker), in its workeroutput


def lend_shared(node: Any) -> None:
    """On the controller, before ``node`` starts: its Copilot package fills and home
    templates, if the worker is local."""
    if not is_local(node):
        return
    from ..run.products.copilot_package import CACHES
    from ..run.products.home_template import TEMPLATES

    lent = CACHES.lend()
    if lent:
        node.workerinput[LENT_PACKAGES] = lent
    templates = TEMPLATES.lend()
    if templates:
        node.workerinput[LENT_TEMPLATES] = templates


def adopt_shared(workerinput: object) -> None:
    """In a worker, before its preflight: use the fills and templates its controller lent."""
    if not isinstance(workerinput, dict):
        return
    lent = workerinput.get(LENT_PACKAGES)
    if isinstance(lent, dict) and lent:
        from ..run.products.copilot_package import CACHES

        CACHES.adopt({str(key): str(value) for key, value in lent.items()})
    templates = workerinput.get(LENT_TEMPLATES)
    if isinstance(templates, list | tuple) and templates:
        from ..run.products.home_template import TEMPLATES

        TEMPLATES.adopt(
            pair for pair in templates if isinstance(pair, list | tuple) and len(pair) == 2
        )


def is_local(node: Any) -> bool:
    """Whether the xdist ``node`` is a process this one started (a ``popen`` gateway)."""
    spec = getattr(getattr(node, "gateway", None), "spec", None)
    return bool(getattr(spec, "popen", False)) and not getattr(spec, "via", None)


class LocalWorkers:
    """The process ids of the xdist workers on this machine, as they come up and go down."""

    def __init__(self) -> None:
        self._pids: dict[str, int] = {}

    def came_up(self, node: Any) -> None:
        if not is_local(node):
            return  # a worker on another machine: its pid is not one of ours
        gateway = node.gateway
        try:  # xdist reads the remote info once at setup (pytest-cov relies on it): cached
            pid = getattr(gateway._rinfo(), "pid", None)
        except Exception:  # passing SIGTERM on is a courtesy; a broken gateway is xdist's
            return
        if isinstance(pid, int) and pid > 0 and pid != os.getpid():
            self._pids[str(gateway.id)] = pid

    def went_down(self, node: Any) -> None:
        self._pids.pop(str(getattr(getattr(node, "gateway", None), "id", "")), None)

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._pids.values()))
