"""Delivery: the Bot API's windows, the queue, long texts, the process runtime."""
