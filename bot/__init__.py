"""The Telegram bot that runs tournament Mafia: rules core, sandbox and bot."""

# The release, as pyproject.toml and CHANGELOG.md give it; tests hold the three together.
__version__ = "0.3.0"
