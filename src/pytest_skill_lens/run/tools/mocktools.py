"""Mock tools: a declared tool that records nothing, executes nothing, and answers canned text.

The three ``returns:`` shapes each get their rule here, once, for every runner
(and the MCP bridge): a string answers every call, a list of strings is a
sequence consumed in call order whose last entry repeats, and a list of
``when:``/``value:`` entries is a lookup answered by the first entry whose
``when`` is a subset of the call's arguments. A mock never raises: a call the
case did not anticipate gets a fixed reply the transcript then shows.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ... import matching as matcher


class Rule(Protocol):
    """One ``when:``/``value:`` entry (``suite.model.ReturnRule``, or the MCP bridge's own)."""

    @property
    def when(self) -> Mapping[str, Any] | None: ...

    @property
    def value(self) -> str: ...


class Declared(Protocol):
    """A declared tool: ``suite.model.ToolSpec``, or the MCP bridge's reading of its spec,
    which starts without pydantic (:mod:`.bridge_spec`)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def returns(self) -> str | Sequence[str] | Sequence[Rule]: ...

    def json_schema(self) -> Mapping[str, Any]: ...


def unscripted_reply(tool: str, arguments: Any) -> str:
    """The reply to a lookup call no entry answers."""
    return f"no response is scripted for {tool} with arguments {matcher.render_json(arguments)}"


class MockTool:
    """One declared tool, built fresh for each attempt, session and work item.

    The sequence position lives here rather than in the runner, so rebuilding
    the tools is what starts a retried attempt or a new session from the top.
    """

    def __init__(self, spec: Declared) -> None:
        self.name = spec.name
        self.description = spec.description
        # A framework may rewrite the schema it is handed (LangChain inlines $ref);
        # a copy keeps the case's own declaration untouched.
        self.schema: dict[str, Any] = copy.deepcopy(dict(spec.json_schema()))
        self._returns = spec.returns
        self._served = 0
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        """How many calls this tool has answered."""
        with self._lock:
            return self._served

    def call(self, arguments: Mapping[str, Any]) -> str:
        """The canned answer to one call; never raises."""
        with self._lock:
            # Parallel calls from one model turn must each take a distinct entry.
            position = self._served
            self._served += 1
        returns = self._returns
        if isinstance(returns, str):
            return returns
        if not returns:
            return ""
        if all(isinstance(entry, str) for entry in returns):
            entries = [entry for entry in returns if isinstance(entry, str)]
            return entries[min(position, len(entries) - 1)]
        rules = [entry for entry in returns if not isinstance(entry, str)]
        return self._look_up(rules, arguments)

    def _look_up(self, rules: list[Rule], arguments: Any) -> str:
        for rule in rules:
            if rule.when is None or matcher.contains(rule.when, arguments):
                return rule.value
        return unscripted_reply(self.name, arguments)

    def __repr__(self) -> str:
        return f"MockTool({self.name!r})"


def build_mock_tools(tools: Sequence[Declared]) -> dict[str, MockTool]:
    """Fresh mock tools by name, each starting at the first entry of its sequence."""
    return {spec.name: MockTool(spec) for spec in tools}
