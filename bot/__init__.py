"""The Telegram bot that runs tournament Mafia: rules core, sandbox and bot."""
