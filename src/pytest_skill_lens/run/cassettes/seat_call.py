"""One runner or judge call of an item, replayed from its cassette or recorded live.

Every model request of the call goes through :meth:`SeatCall.exchange`: replaying, the
request is compared with the recorded one by its digest and the recorded response comes
back; recording, ``live()`` is asked and its response kept. How a difference is put in
words is the framework adapter's (``explain``), since only it knows its messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .files import Exchange, Seat, StoredCall, StoredFigures, digest, without_nulls

if TYPE_CHECKING:
    from .tape import Tape

# Explains how a request differs from the recorded one: (recorded sent, sent now,
# recorded options, options now) -> words such as "the answer of tool lookup", or None.
Explain = Callable[[list[Any], list[Any], dict[str, Any], dict[str, Any]], str | None]


class CassetteMiss(Exception):
    """The cassette cannot answer this request; raised inside a runner's or judge's call."""


@dataclass(frozen=True)
class Figures:
    """What a call measured: replayed as recorded, since a replay measures nothing."""

    latency_ms: float | None = None
    cost_usd: float = 0.0
    cost_note: str | None = None
    retry_cost_usd: float = 0.0


class SeatCall:
    """One runner call (one session) or one judge call, replayed or recorded."""

    def __init__(self, tape: Tape, seat: Seat, by: str, position: int, recorded: StoredCall | None):
        self._tape = tape
        self.seat = seat
        self.by = by
        self.position = position  # 0-based among the item's calls of this seat
        self._recorded = recorded
        self._exchanges: list[Exchange] = []
        self._figures: StoredFigures | None = None
        self._index = 0
        self._previous: tuple[int, dict[str, Any] | None] = (0, None)
        self._missed = False
        # What of the call's spend came from the cassette, so was never spent anew.
        self.replayed_usd = 0.0

    @property
    def replaying(self) -> bool:
        return self._recorded is not None

    @property
    def offline(self) -> bool:
        """Replay only: the model must never be reached, so it needs no real key."""
        return self._tape.mode == "none"

    @property
    def replayed(self) -> StoredCall | None:
        """The recorded call, when this call was answered from it to the end."""
        return self._recorded if self._figures is not None else None

    def differs(self, detail: str) -> None:
        """Raises :class:`CassetteMiss`: the recorded response cannot stand as it is (it
        cannot be read, or a product's mock tools now answer its calls otherwise). Only a
        re-recording mends it, the response having been taken already."""
        self._miss(f"the {self._label()} {detail}", later=True)

    def refuse(self, detail: str) -> None:
        """Raises :class:`CassetteMiss`: the recorded response is more than a recording
        keeps (a hand-edited cassette, say), so nothing of it is replayed."""
        self._miss(f"the {self._label()} {detail}", later=True, kind="refused")

    def cannot_keep(self, why: str) -> None:
        """This live call's record cannot be written faithfully; the file is not written."""
        self._tape.cannot_keep(why)

    def begin_attempt(self) -> None:
        """A fresh conversation starts: recording keeps only the final attempt's exchanges."""
        self._exchanges = []
        self._index = 0
        self._previous = (0, None)

    def exchange(
        self, request: dict[str, Any], live: Callable[[], Any], explain: Explain | None = None
    ) -> Any:
        """The response to ``request`` (``{"messages": [...], ...}``): recorded, or ``live()``."""
        entry = self._prepare(request, explain)
        if entry is None:
            return self._recorded_response()
        return self._keep(entry, live())

    async def aexchange(
        self,
        request: dict[str, Any],
        live: Callable[[], Awaitable[Any]],
        explain: Explain | None = None,
    ) -> Any:
        entry = self._prepare(request, explain)
        if entry is None:
            return self._recorded_response()
        return self._keep(entry, await live())

    def finish(self, figures: Figures) -> Figures:
        """Close the call with what it measured; a replayed call gets its recorded figures.

        A call that missed keeps what it measured, all of it from recorded responses
        (a miss is never followed by a live request), so none of it is new spend.
        """
        self._tape.check_open()
        if self._recorded is not None:
            recorded = self._recorded.exchanges
            if self._index < len(recorded) and not self._missed:
                self._missed = True
                self._tape.miss(
                    f"the {self._label()} ended after request {self._index} of the "
                    f"{len(recorded)} recorded",
                    later=True,
                )
            if self._missed:
                self.replayed_usd = figures.cost_usd + figures.retry_cost_usd
                return figures
            stored = self._recorded.figures
            self._figures = stored
            self.replayed_usd = stored.cost_usd + stored.retry_cost_usd
            return Figures(
                stored.latency_ms, stored.cost_usd, stored.cost_note, stored.retry_cost_usd
            )
        self._figures = StoredFigures(
            latency_ms=figures.latency_ms,
            cost_usd=figures.cost_usd,
            cost_note=figures.cost_note,
            retry_cost_usd=figures.retry_cost_usd,
        )
        return figures

    def stored(self, today: str) -> StoredCall | None:
        """This call as the file keeps it; None when it never finished."""
        if self._figures is None:
            return None
        if self._recorded is not None:
            return self._recorded
        return StoredCall(
            seat=self.seat,
            by=self.by,
            recorded_at=today,
            figures=self._figures,
            exchanges=list(self._exchanges),
        )

    # -- one request -------------------------------------------------------------------

    def _prepare(self, request: dict[str, Any], explain: Explain | None) -> Exchange | None:
        """The exchange to record, or None when the recorded response answers it."""
        self._tape.check_open()
        messages = list(request.get("messages") or [])
        options = {k: v for k, v in request.items() if k != "messages"}
        count, before = self._previous
        sent = messages[count:] if len(messages) >= count else messages
        self._previous = (len(messages), options)
        sha = digest(request)
        if self._recorded is not None:
            recorded = self._recorded.exchanges
            number = self._index + 1
            if self._index >= len(recorded):
                self._miss(
                    f"request {number} of the {self._label()} is not in the cassette "
                    f"({len(recorded)} recorded)",
                    later=True,
                )
            entry = recorded[self._index]
            if entry.request_sha256 == sha:
                self._index += 1
                return None
            shown = without_nulls(sent), without_nulls(options)
            what = _difference(recorded[: self._index + 1], *shown, explain)
            detail = (
                f"request {number} of the {self._label()} differs from the recorded one: {what}"
            )
            if self._index == 0 and self._tape.mode == "once":
                self._go_live(detail)  # nothing of this call was replayed yet
            else:
                self._miss(detail, later=self._index > 0)
        return Exchange(
            request_sha256=sha,
            sent=without_nulls(sent),
            options=without_nulls(options) if options != before else None,
            response=None,
        )

    def _keep(self, entry: Exchange, response: Any) -> Any:
        if not self._tape.closed:  # an abandoned call that returns late records nothing
            self._exchanges.append(entry.model_copy(update={"response": response}))
        return response

    def _recorded_response(self) -> Any:
        assert self._recorded is not None
        return self._recorded.exchanges[self._index - 1].response

    def _go_live(self, why: str) -> None:
        self._recorded = None
        self._tape.went_live(why)

    def _miss(self, detail: str, *, later: bool, kind: str = "miss") -> None:
        self._missed = True
        self._tape.miss(detail, later=later, kind=kind)
        raise CassetteMiss(self._tape.miss_text or detail)

    def _label(self) -> str:
        noun = "runner call" if self.seat == "runner" else "judge call"
        return f"{self.by} {noun}" + (f" #{self.position + 1}" if self.position else "")


def _difference(
    recorded: list[Exchange], sent: list[Any], options: dict[str, Any], explain: Explain | None
) -> str:
    """What differs between the request now and the last of ``recorded``, in words."""
    last = recorded[-1]
    # The options in force: the last exchange that wrote them.
    before = next((e.options for e in reversed(recorded) if e.options is not None), {})
    if explain is not None:
        try:
            said = explain(list(last.sent), sent, dict(before), options)
        except Exception:  # a hostile cassette must not crash the explanation
            said = None
        if said:
            return said
    if options != before:
        keys = sorted({*options, *before} - {k for k in options if options.get(k) == before.get(k)})
        return f"its {', '.join(keys)} differ"
    return "the messages sent differ"
