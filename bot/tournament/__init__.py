"""The tournament's pure core: settings (T6), groups (T1), scoring (T4), standings (T5).

Like `bot.rules`, it does no I/O, reads no clock and draws nothing of its own: times
come in as arguments, and the one draw (who sits where when groups are split) comes
from `bot.rules.draws` with a seed passed in.
"""
