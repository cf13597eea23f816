"""Ids and times the storage tests share with their fixtures (a module, as conftest is not one)."""

CHAT = -1001
OTHER_CHAT = -1002
HOST = 1
PLAYERS = (2, 3, 4)
T0 = 1_700_000_000.0
