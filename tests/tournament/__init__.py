"""Tests of the tournament core (`bot.tournament`), named after the RULES.md rule IDs."""
