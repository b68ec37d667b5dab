"""Recording and replaying a pydantic-ai model, one ``Model.request`` at a time.

:func:`cassette_model` wraps the model the runner or judge built in a
``WrapperModel`` whose ``request`` sends its messages, settings and request
parameters (the tool definitions actually offered) through the item's
:class:`~.tape.SeatCall`. Messages and responses are written with pydantic-ai's own
``ModelMessagesTypeAdapter``, so a replayed response is the object the provider's
answer became, and the agent loop, the mock tools and the usage limits run on it
exactly as they did. What changes from run to run (timestamps, run ids) and what the
agent adds to a response after it arrived (its priced usage) is left out of what is
compared; the endpoint is left out of the file.

pydantic-ai is imported inside the functions, so loading this module costs nothing.
"""

from __future__ import annotations

import functools
from typing import Any

from .files import plain, without_nulls
from .seat_call import CassetteMiss, SeatCall

# A key the provider objects need when replaying only, where nothing is ever sent.
REPLAY_KEY = "skill-lens-replay-no-key"
_VOLATILE = frozenset({"timestamp", "run_id", "conversation_id", "provider_url"})
# Filled in by the agent once a response has arrived: never part of what was sent.
_AFTERWARDS = frozenset({"usage", "model_id"})


def cassette_model(model: Any, call: SeatCall) -> Any:
    """``model``, with every request answered from, or recorded to, ``call``."""
    return _model_class()(model, call)


@functools.cache
def _model_class() -> type:
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager
    from dataclasses import dataclass

    from pydantic_ai.models.wrapper import WrapperModel

    @dataclass(init=False)
    class CassetteModel(WrapperModel):
        """Answers ``request`` from the cassette, or asks the wrapped model and keeps it."""

        def __init__(self, wrapped: Any, call: SeatCall) -> None:
            super().__init__(wrapped)
            self.cassette_call = call

        async def request(
            self, messages: Any, model_settings: Any, model_request_parameters: Any
        ) -> Any:
            sent = request_record(messages, model_settings, model_request_parameters)

            async def live() -> Any:
                response = await self.wrapped.request(
                    messages, model_settings, model_request_parameters
                )
                return response_record(response)

            return response_from(await self.cassette_call.aexchange(sent, live, explain))

        @asynccontextmanager
        async def request_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            # The runners never stream; a streamed request would bypass the cassette.
            raise CassetteMiss("a streamed model request cannot be recorded or replayed")
            yield  # pragma: no cover - makes this a generator

    return CassetteModel


@functools.cache
def _messages_adapter() -> Any:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter


@functools.cache
def _parameters_adapter() -> Any:
    from pydantic import TypeAdapter
    from pydantic_ai.models import ModelRequestParameters

    return TypeAdapter(ModelRequestParameters)


def request_record(messages: Any, settings: Any, parameters: Any) -> dict[str, Any]:
    """One request as compared and kept: its messages, its settings, the tools offered."""
    dumped = _messages_adapter().dump_python(list(messages), mode="json")
    return {
        "messages": [_as_sent(m) for m in dumped],
        "settings": plain(dict(settings or {})),
        "parameters": _parameters_adapter().dump_python(parameters, mode="json"),
    }


def response_record(response: Any) -> Any:
    """The response as kept: without what changes every run, and without its nulls
    where it reads back exactly the same without them."""
    adapter = _messages_adapter()
    (dumped,) = adapter.dump_python([response], mode="json")
    kept = _without(dumped, _VOLATILE)
    shorter = without_nulls(kept)
    try:
        (again,) = adapter.dump_python(adapter.validate_python([shorter]), mode="json")
    except Exception:
        return kept
    return shorter if _without(again, _VOLATILE) == kept else kept


def response_from(stored: Any) -> Any:
    """The recorded response as pydantic-ai's ``ModelResponse`` again."""
    from pydantic_ai.messages import ModelResponse

    try:
        (message,) = _messages_adapter().validate_python([stored])
    except Exception as exc:  # a hand-edited or truncated cassette: a clear miss, not a crash
        raise CassetteMiss(f"a recorded response cannot be read by pydantic-ai: {exc}") from None
    if not isinstance(message, ModelResponse):
        raise CassetteMiss("a recorded response is not a model response")
    return message


def _as_sent(message: dict[str, Any]) -> dict[str, Any]:
    dropped = _VOLATILE | (_AFTERWARDS if message.get("kind") == "response" else frozenset())
    kept: dict[str, Any] = _without(message, dropped)
    parts = kept.get("parts")
    if isinstance(parts, list):
        kept["parts"] = [_without(p, _VOLATILE) if isinstance(p, dict) else p for p in parts]
    return kept


def _without(data: Any, keys: frozenset[str]) -> Any:
    if not isinstance(data, dict):
        return data
    return {k: v for k, v in data.items() if k not in keys}


_PART_WORDS = {
    "system-prompt": "the system prompt",
    "user-prompt": "the task (the user prompt)",
    "retry-prompt": "the framework's retry prompt",
}


def explain(
    before: list[Any], now: list[Any], options_before: dict[str, Any], options_now: dict[str, Any]
) -> str | None:
    """Which part of a pydantic-ai request differs from the recorded one, in words."""
    tools_before = _tools(options_before)
    tools_now = _tools(options_now)
    if tools_before != tools_now:
        changed = sorted(
            name
            for name in {*tools_before, *tools_now}
            if tools_before.get(name) != tools_now.get(name)
        )
        return f"the tool definitions sent differ ({', '.join(changed)})"
    if options_before.get("parameters") != options_now.get("parameters"):
        return "the request parameters sent differ (output mode or tools)"
    if options_before.get("settings") != options_now.get("settings"):
        return "the model settings sent differ"
    for old, new in zip(before, now, strict=False):
        if old != new:
            return _message_difference(old, new)
    if len(before) != len(now):
        return f"{len(now)} new message(s) were sent where {len(before)} were recorded"
    return None


def _tools(options: dict[str, Any]) -> dict[str, Any]:
    parameters = options.get("parameters")
    if not isinstance(parameters, dict):
        return {}
    found: dict[str, Any] = {}
    for group in ("function_tools", "output_tools"):
        for tool in parameters.get(group) or []:
            if isinstance(tool, dict):
                found[str(tool.get("name"))] = tool
    return found


def _message_difference(old: Any, new: Any) -> str:
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return "the messages sent differ"
    if old.get("instructions") != new.get("instructions"):
        return "the instructions sent differ"
    old_parts, new_parts = old.get("parts") or [], new.get("parts") or []
    for a, b in zip(old_parts, new_parts, strict=False):
        if a != b:
            return f"{_part_name(b)} differs"
    if len(old_parts) != len(new_parts):
        return "the parts of a message sent differ"
    return "the messages sent differ"


def _part_name(part: Any) -> str:
    if not isinstance(part, dict):
        return "a message part"
    kind = part.get("part_kind")
    tool = part.get("tool_name")
    if kind == "tool-return":
        return f"the answer of tool {tool}"
    if kind == "tool-call":
        return f"the agent's earlier call of {tool}"
    if kind == "retry-prompt" and tool:
        return f"the framework's retry prompt for {tool}"
    return _PART_WORDS.get(str(kind), f"a {kind} part")
