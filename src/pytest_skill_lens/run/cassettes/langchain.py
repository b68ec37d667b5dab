"""Recording and replaying a LangChain chat model, one ``_generate`` at a time.

:func:`cassette_chat_model` builds the runner's (or judge's) chat model as a subclass
of its own class whose ``_generate`` sends the messages and the call's arguments (the
tool definitions as the provider receives them, ``tool_choice``) through the item's
:class:`~.tape.SeatCall`. The messages and the response are written with LangChain's
``messages_to_dict`` (which keeps ``tool_calls``, ``invalid_tool_calls`` and
``usage_metadata`` exactly), so everything above the chat model, the agent graph,
the harness middleware, a structured-output parser, runs on a replayed response as it
did on the live one. Message ids are left out of what is compared: LangGraph gives
each message a fresh random one.

Streaming is switched off on the model, so every call goes through ``_generate``.
LangChain is imported inside the functions, so loading this module costs nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .files import plain, without_nulls
from .seat_call import CassetteMiss, SeatCall

REPLAY_KEY = "skill-lens-replay-no-key"


def cassette_chat_model(model_class: Any, call: SeatCall, **options: Any) -> Any:
    """``model_class(**options)``, answering from, or recording to, ``call``."""
    model = _recording_class(model_class)(disable_streaming=True, **options)
    model._cassette_call = call
    return model


@functools.cache
def _recording_class(base: Any) -> type:
    from pydantic import PrivateAttr

    class CassetteChatModel(base):  # type: ignore[misc]
        _cassette_call: Any = PrivateAttr(default=None)

        def _generate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> Any:
            def live() -> Any:
                return result_record(
                    base._generate(self, messages, stop=stop, run_manager=run_manager, **kwargs)
                )

            request = request_record(messages, stop, kwargs)
            return result_from(self._cassette_call.exchange(request, live, explain))

        async def _agenerate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> Any:
            async def live() -> Any:
                result = await base._agenerate(
                    self, messages, stop=stop, run_manager=run_manager, **kwargs
                )
                return result_record(result)

            request = request_record(messages, stop, kwargs)
            return result_from(await self._cassette_call.aexchange(request, live, explain))

    CassetteChatModel.__name__ = CassetteChatModel.__qualname__ = f"Cassette{base.__name__}"
    return CassetteChatModel


def request_record(messages: Sequence[Any], stop: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    from langchain_core.messages import messages_to_dict

    return {
        "messages": [_as_sent(m) for m in plain(messages_to_dict(list(messages)))],
        "stop": plain(stop),
        "arguments": plain(arguments),
    }


def result_record(result: Any) -> dict[str, Any]:

    return {
        "generations": [
            {"message": _message(g.message), "generation_info": plain(g.generation_info)}
            for g in result.generations
        ],
        "llm_output": plain(result.llm_output),
    }


def _message(message: Any) -> Any:
    """One message as kept: without its nulls where it reads back exactly the same."""
    from langchain_core.messages import messages_from_dict, messages_to_dict

    (kept,) = plain(messages_to_dict([message]))
    shorter = without_nulls(kept)
    try:
        again = plain(messages_to_dict(messages_from_dict([shorter])))[0]
    except Exception:
        return kept
    return shorter if again == kept else kept


def result_from(stored: Any) -> Any:
    """The recorded ``ChatResult`` again; a cassette it cannot be built from is a miss."""
    from langchain_core.messages import messages_from_dict
    from langchain_core.outputs import ChatGeneration, ChatResult

    try:
        generations = [
            ChatGeneration(
                message=messages_from_dict([g["message"]])[0],
                generation_info=g.get("generation_info"),
            )
            for g in stored["generations"]
        ]
        return ChatResult(generations=generations, llm_output=stored.get("llm_output"))
    except Exception as exc:  # hand-edited or truncated: a clear miss, never a crash
        raise CassetteMiss(f"a recorded response cannot be read by LangChain: {exc}") from None


def _as_sent(message: Any) -> Any:
    if not isinstance(message, dict) or not isinstance(message.get("data"), dict):
        return message
    data = {k: v for k, v in message["data"].items() if k != "id"}
    return {**message, "data": data}


_KIND_WORDS = {"system": "the system prompt", "human": "the task (the user message)"}


def explain(
    before: list[Any], now: list[Any], options_before: dict[str, Any], options_now: dict[str, Any]
) -> str | None:
    """Which part of a LangChain request differs from the recorded one, in words."""
    old_arguments = options_before.get("arguments") or {}
    new_arguments = options_now.get("arguments") or {}
    if isinstance(old_arguments, dict) and isinstance(new_arguments, dict):
        old_tools, new_tools = _tools(old_arguments), _tools(new_arguments)
        if old_tools != new_tools:
            changed = sorted(
                n for n in {*old_tools, *new_tools} if old_tools.get(n) != new_tools.get(n)
            )
            return f"the tool definitions sent differ ({', '.join(changed)})"
    if options_before != options_now:
        return "the arguments of the model call differ (tool_choice, stop, ...)"
    for old, new in zip(before, now, strict=False):
        if old != new:
            return f"{_message_name(new)} differs"
    if len(before) != len(now):
        return f"{len(now)} new message(s) were sent where {len(before)} were recorded"
    return None


def _tools(arguments: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for tool in arguments.get("tools") or []:
        if isinstance(tool, dict):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, dict) else tool.get("name")
            found[str(name)] = tool
    return found


def _message_name(message: Any) -> str:
    if not isinstance(message, dict):
        return "a message"
    kind = message.get("type")
    data = message.get("data")
    if not isinstance(data, dict):
        data = {}
    if kind == "tool":
        return f"the answer of tool {data.get('name')}"
    if kind == "ai":
        return "the agent's earlier reply"
    return _KIND_WORDS.get(str(kind), f"a {kind} message")
