"""The commands of `python -m bot` besides `run`: check, backup, restore, verify, demo."""
