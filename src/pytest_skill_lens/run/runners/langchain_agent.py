"""The LangChain side of the ``langchain`` runner: imports LangChain, so only a run imports it.

One attempt is one :func:`run_agent` call: a fresh ``create_agent`` graph, a
fresh chat model and one :class:`_Harness` middleware that owns the wire. The
harness

* replaces the tools LangChain would convert from ``BaseTool`` objects with
  the declared definitions in the provider's own format, which the
  integrations pass through unchanged (``convert_to_openai_tool`` keeps a
  ``{"type": "function", ...}`` dict; ``convert_to_anthropic_tool`` keeps a
  ``{"name", "description", "input_schema"}`` one);
* answers each call of a case tool itself, with the arguments the model sent:
  the registered ``StructuredTool`` is never invoked, because invoking one
  validates nothing useful and reserves argument names (``config``,
  ``run_manager``) a declared tool may well use;
* after every model response, ends the run once the measured token total is
  over the case's ``max_tokens``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain.agents.middleware.types import ModelRequest, ModelResponse, ToolCallRequest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import StructuredTool
from langgraph.types import Command

from ...settings import Settings
from ..cassettes import SeatCall
from ..models.pricing import ResponseUsage, total_spend
from ..models.providers import provider_of
from ..result import RunResult, ToolCall
from ..tools.workspace_tools import BuiltinTool
from .langchain import NO_USAGE_NOTE
from .pydantic_ai import parse_arguments


@dataclass
class AgentRun:
    """What one attempt produced, the failure that ended it, and whether the budget stopped it."""

    result: RunResult
    failure: BaseException | None = None
    stopped: bool = False


class _Harness(AgentMiddleware):
    """One attempt's wire: the declared tools out, the mock answers in, the token stop."""

    def __init__(
        self,
        wire_tools: list[dict[str, Any]],
        answers: dict[str, Callable[[Mapping[str, Any]], str]],
        max_tokens: int | None,
    ) -> None:
        super().__init__()
        self.wire_tools = wire_tools
        self.answers = answers
        self.max_tokens = max_tokens
        self.stopped = False

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        return handler(request.override(tools=list(self.wire_tools)))

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        call = request.tool_call
        answer = self.answers.get(call["name"])
        if answer is None:  # a name nobody declared: LangChain's own reply says so
            return handler(request)
        arguments = call.get("args")
        return ToolMessage(
            content=answer(arguments if isinstance(arguments, dict) else {}),
            tool_call_id=call["id"],
            name=call["name"],
        )

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        if self.max_tokens is None:
            return None
        spent = sum(_measured(m) for m in state["messages"] if isinstance(m, AIMessage))
        if spent > self.max_tokens:
            self.stopped = True
            return {"jump_to": "end"}
        return None


def run_agent(
    settings: Settings,
    *,
    prompt: str,
    task: str,
    tools: Sequence[BuiltinTool],
    max_tokens: int | None,
    call: SeatCall | None = None,
) -> AgentRun:
    """Run ``task`` once in a fresh agent; a provider failure is returned, never raised.

    ``call`` is the item's cassette call, which every model request goes through.
    """
    import time

    harness = _Harness(
        wire_tools=[_wire_tool(settings.model, tool) for tool in tools],
        answers={tool.name: tool.call for tool in tools},
        max_tokens=max_tokens,
    )
    messages: list[BaseMessage] = [HumanMessage(content=task)]
    failure: BaseException | None = None
    start = time.perf_counter()
    try:
        agent = create_agent(
            chat_model(settings, call),
            tools=[_registered(tool) for tool in tools],
            system_prompt=prompt,
            middleware=[harness],
        )
        # Every state the graph reaches is kept, so a failure keeps what came before it.
        opening: Any = {"messages": list(messages)}
        for state in agent.stream(opening, stream_mode="values"):
            messages = list(state["messages"])
    except Exception as exc:  # a provider failure is a result, never raised
        failure = exc
    latency_ms = (time.perf_counter() - start) * 1000
    result = read_result(settings.model, prompt, messages, latency_ms, settings.base_url)
    return AgentRun(result, failure, harness.stopped)


def chat_model(settings: Settings, call: SeatCall | None = None) -> Any:
    """The chat model for ``settings.model``: ``ChatOpenAI`` or ``ChatAnthropic``.

    With a cassette ``call``, the model records or replays each request
    (replaying only, with a placeholder key: nothing is ever sent).
    """
    prefix, _, name = settings.model.partition(":")
    options: dict[str, Any] = {"max_retries": 0}  # retries are ours, counted and priced
    if settings.temperature != "unset":
        options["temperature"] = settings.temperature
    if settings.base_url:
        options["base_url"] = settings.base_url
    model_class: Any
    if prefix == "openai":
        from langchain_openai import ChatOpenAI

        # Chat Completions, the API every OpenAI-compatible server speaks; usage is
        # asked for even if something streams, so a streamed answer is still counted.
        model_class = ChatOpenAI
        options.update(model=name, use_responses_api=False, stream_usage=True)
    elif prefix == "anthropic":
        from langchain_anthropic import ChatAnthropic

        model_class = ChatAnthropic
        options.update(model_name=name)
    else:
        raise ValueError(
            f"the langchain runner serves openai: and anthropic: models, not {prefix}:"
        )
    if call is None:
        return model_class(**options)
    from ..cassettes.langchain import REPLAY_KEY, cassette_chat_model

    if call.offline:
        options["api_key"] = REPLAY_KEY
    return cassette_chat_model(model_class, call, **options)


def _wire_tool(model: str, tool: BuiltinTool) -> dict[str, Any]:
    """The definition the provider receives, in its own format, the schema as declared."""
    if provider_of(model) == "anthropic":
        return {"name": tool.name, "description": tool.description, "input_schema": tool.schema}
    function = {"name": tool.name, "description": tool.description, "parameters": tool.schema}
    return {"type": "function", "function": function}


def _registered(tool: BuiltinTool) -> StructuredTool:
    """The tool as LangChain's tool node knows it; the harness answers its calls."""

    def call(**arguments: Any) -> str:
        return tool.call(arguments)

    return StructuredTool(
        name=tool.name, description=tool.description, args_schema=tool.schema, func=call
    )


def _measured(message: AIMessage) -> int:
    usage = message.usage_metadata
    if not usage:
        return 0
    return int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))


def read_result(
    model: str, prompt: str, messages: list[BaseMessage], latency_ms: float, base_url: str = ""
) -> RunResult:
    """Tokens, cost, calls, output and transcript from one attempt's messages."""
    responses = [m for m in messages if isinstance(m, AIMessage)]
    usages = [response_usage(r) for r in responses]
    spend = total_spend(model, usages, NO_USAGE_NOTE, base_url)
    return RunResult(
        output=str(responses[-1].text) if responses else "",
        tool_calls=[call for r in responses for call in _calls(r)],
        input_tokens=spend.input_tokens,
        output_tokens=spend.output_tokens,
        cost_usd=spend.cost_usd,
        latency_ms=latency_ms,
        model=spend.model,
        transcript=_transcript(prompt, messages),
        cost_note=spend.cost_note,
        price_source=spend.price_source,
        usage_note=NO_USAGE_NOTE if spend.unmeasured else None,
    )


def response_usage(message: Any) -> ResponseUsage:
    """A LangChain ``AIMessage``'s usage (``usage_metadata``; cache counts in its details)."""
    usage: Mapping[str, Any] = getattr(message, "usage_metadata", None) or {}
    details: Mapping[str, Any] = usage.get("input_token_details") or {}
    return ResponseUsage(
        model=_served(message),
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cache_read_tokens=int(details.get("cache_read") or 0),
        cache_write_tokens=int(details.get("cache_creation") or 0),
    )


def _served(response: AIMessage) -> str:
    """The model the provider says answered (``langchain-openai`` and ``-anthropic`` keys)."""
    metadata = response.response_metadata or {}
    name = metadata.get("model_name") or metadata.get("model")
    return str(name) if name else ""


def _calls(response: AIMessage) -> list[ToolCall]:
    """Every call the response asked for; arguments that are not a JSON object under ``_raw``.

    LangChain keeps calls it could not parse apart, in ``invalid_tool_calls``;
    they are still the model's choice, so they are recorded after the others.
    """
    calls = [ToolCall(c["name"], _arguments(c.get("args"))) for c in response.tool_calls]
    calls += [
        ToolCall(c.get("name") or "", parse_arguments(c.get("args")))
        for c in response.invalid_tool_calls
    ]
    return calls


def _arguments(args: object) -> dict[str, Any]:
    return dict(args) if isinstance(args, dict) else parse_arguments(args)


def _transcript(prompt: str, messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """The conversation as plain data, in the same shape the pydantic-ai runner reports."""
    entries: list[dict[str, Any]] = [{"role": "system", "content": prompt}]
    for message in messages:
        if isinstance(message, AIMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": str(message.text)}
            calls = [{"name": c.name, "arguments": c.arguments} for c in _calls(message)]
            if calls:
                entry["tool_calls"] = calls
            entries.append(entry)
        elif isinstance(message, ToolMessage):
            entries.append({"role": "tool", "name": message.name, "content": str(message.text)})
        elif isinstance(message, HumanMessage):
            entries.append({"role": "user", "content": str(message.text)})
        elif isinstance(message, SystemMessage):
            entries.append({"role": "system", "content": str(message.text)})
    return entries
