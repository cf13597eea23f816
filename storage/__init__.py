"""Storage on SQLite (aiosqlite)."""
