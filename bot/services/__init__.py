"""The application layer, no aiogram: the clock and timers, the marks of handled updates.
The game and tournament services (bot/service.py, bot/tournaments.py) are to move here."""
