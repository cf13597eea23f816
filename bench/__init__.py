"""The benchmark: the real bot, as its own process, under the load of many games.

`make bench` (or `python -m bench`) runs it; see `bench.__main__` for what it
measures and how.
"""
