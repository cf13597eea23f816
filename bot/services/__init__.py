"""The application layer, no aiogram: the game service in parts (`game/`), the clock and
timers, the marks of handled updates. The tournament service (bot/tournaments.py) is to
move here."""
