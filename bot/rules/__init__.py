"""The rules core: the regulation as a pure, replayable game.

No I/O, no clock and no randomness of its own: time and the game seed come in as
arguments, so any game can be replayed exactly from its protocol.
"""
