"""The application layer, no aiogram: the game service in parts (`game/`), the tournament
service in parts (`judge/`), the clock and timers, the marks of handled updates."""
