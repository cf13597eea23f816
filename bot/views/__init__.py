"""Views: what people read. Pure functions of the game's state and the texts."""
