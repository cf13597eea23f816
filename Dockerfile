# Mafia Table: the bot in a slim Python 3.11 image, run as an unprivileged user.
# The database lives on the volume /data (MAFIA_DATABASE below); the config comes from
# the environment (MAFIA_BOT_TOKEN, MAFIA_JUDGES, ...: config.example.toml lists them) or
# from a file mounted at /app/config.toml. compose.yaml runs it; README, "Docker".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MAFIA_DATABASE=/data/mafia.sqlite3

WORKDIR /app

# The pinned dependencies first, each file checked against its hash; this layer is
# rebuilt only when the lock file changes.
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps -r requirements.lock && pip check

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY handlers ./handlers
COPY storage ./storage
RUN pip install --no-deps . && rm -rf build ./*.egg-info

# The bot's own user, with no shell and no password; the database folder is its alone
# (the database holds the seeds and cards of running games).
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin mafia \
    && mkdir -p /data && chown mafia:mafia /data && chmod 0700 /data
VOLUME ["/data"]
USER mafia

# Webhook mode listens here (MAFIA_WEBHOOK_PORT); polling mode opens no port.
EXPOSE 8080

# The checks of `make run` in plain words (config, token, database: what no restart
# mends, status 78), then the bot, which waits for Telegram itself if it cannot be reached
# yet. The health check asks Telegram too (getMe).
HEALTHCHECK --interval=5m --timeout=30s --start-period=30s \
    CMD ["python", "-m", "bot", "check", "--token-required"]
CMD ["sh", "-c", "python -m bot check --token-required --offline && exec python -m bot run"]
