"""Tests of the rules core (`bot.rules`), one or more per RULES.md rule ID."""
