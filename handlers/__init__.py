"""Telegram handlers: one router per feature."""
