"""The protocol: a game's append-only list of timestamped events (the truth).

`replay` rebuilds the state from it; the sheet and a resumed game come from there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.rules.codec import from_json, to_json
from bot.rules.events import EVENT_TYPES, Event, GameStarted, GameWon, VoteCast, VoteClosed
from bot.rules.state import GameState, evolve, initial_state


@dataclass(frozen=True)
class Entry:
    at: float
    event: Event


def stamp(events: Iterable[Event], at: float) -> list[Entry]:
    return [Entry(at, e) for e in events]


def replay(entries: Iterable[Entry]) -> GameState:
    """The state after every entry, exactly as it was when they were recorded."""
    it = iter(entries)
    first = next(it).event
    if not isinstance(first, GameStarted):
        raise ValueError(f"a protocol starts with GameStarted, not {type(first).__name__}")
    state = initial_state(first)
    for entry in it:
        evolve(state, entry.event)
    return state


def event_to_json(event: Event) -> dict[str, Any]:
    return {"type": type(event).__name__, **to_json(event)}


def event_from_json(data: dict[str, Any]) -> Event:
    cls = EVENT_TYPES[data["type"]]
    event: Event = from_json(cls, data)
    return event


def entry_to_json(entry: Entry) -> dict[str, Any]:
    return {"at": entry.at, **event_to_json(entry.event)}


def entry_from_json(data: dict[str, Any]) -> Entry:
    return Entry(float(data["at"]), event_from_json(data))


def public_entries(entries: Iterable[Entry], game_over: bool) -> list[dict[str, Any]]:
    """The protocol as the Host or the Judge may download it.

    Until the game is over, the seed, the deal and night actions are left out
    (PRODUCT: the deal is in it only once the game is over); so are the votes of a vote
    still open and the result of a game still at its deciding last word: the group reads
    the votes when the vote closes and the result at the game's end (issue 25).
    """
    entries = list(entries)
    closed = max((i for i, e in enumerate(entries) if isinstance(e.event, VoteClosed)), default=-1)
    result = []
    for index, entry in enumerate(entries):
        data = entry_to_json(entry)
        if not game_over and (
            (isinstance(entry.event, VoteCast) and index > closed)
            or isinstance(entry.event, GameWon)
        ):
            continue
        if entry.event.SECRET and not game_over:
            if isinstance(entry.event, GameStarted):
                data.pop("seed")
            else:
                continue
        result.append(data)
    return result


def state_to_json(state: GameState) -> dict[str, Any]:
    data: dict[str, Any] = to_json(state)
    return data


def state_from_json(data: dict[str, Any]) -> GameState:
    state: GameState = from_json(GameState, data)
    return state
