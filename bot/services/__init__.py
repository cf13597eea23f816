"""The application layer: the game and tournament services and their ports. No aiogram."""
