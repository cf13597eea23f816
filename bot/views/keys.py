"""The keys under which the sender remembers a game's messages, to edit them later.

A key of its own type, not a bare string: a message's key cannot be mistaken for a
timer's kind (both once said "turn"), nor a text for a key.
"""

from __future__ import annotations

from typing import NewType

MessageKey = NewType("MessageKey", str)

TURN = MessageKey("turn")  # the group's post of the current speech, with its buttons
VOTE = MessageKey("vote")  # the group's ballot
BOARD = MessageKey("board")  # the pinned table message
SHEET = MessageKey("sheet")  # the game's result, with the Host's Sign button


def kill_key(seat: int) -> MessageKey:
    """A mafioso's private night keyboard (seat `seat`), edited as partners pick."""
    return MessageKey(f"kill:{seat}")
