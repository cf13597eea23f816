"""The benchmark: the real bot, as its own process, under the load of many games.

`make bench` (or `python -m bot.bench`) runs it; see `bot.bench.__main__` for what it
measures and how.
"""
