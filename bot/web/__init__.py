"""The live page and the Mini App: the bot's own HTTP server for the Judge's screen."""
