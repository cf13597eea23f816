"""The schema as numbered migrations, applied in order when the database is opened.

`PRAGMA user_version` in the file is the number of the last migration applied; a
fresh file is at 0. Each migration runs in its own transaction together with the
bump of `user_version`, so a crash leaves the file at one version or the next, never
in between. A released migration is never edited: a change is a new migration
appended to `MIGRATIONS` (see `Migration`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from storage.failures import MigrationError, SchemaTooNewError

if TYPE_CHECKING:
    from storage.db import Database


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: `version` is its position in `MIGRATIONS`, counting from 1.

    `sql` is a script of statements, each ending its line with `;`. It runs with
    foreign keys off, so a table can be rebuilt the way SQLite documents for changes
    ALTER TABLE cannot make (create `new_x`, copy, drop `x`, rename `new_x` to `x`);
    the foreign keys of the whole database are checked before the migration commits.
    """

    version: int
    description: str
    sql: str


_SCHEMA_1 = """
CREATE TABLE chats (
    chat_id INTEGER PRIMARY KEY,
    type    TEXT NOT NULL CHECK (type IN ('private', 'group', 'supergroup', 'channel')),
    title   TEXT,
    lang    TEXT
) STRICT;

CREATE TABLE chat_settings (
    chat_id INTEGER NOT NULL REFERENCES chats (chat_id),
    key     TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (chat_id, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE users (
    user_id    INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    username   TEXT,
    lang       TEXT,
    started    INTEGER NOT NULL DEFAULT 0 CHECK (started IN (0, 1)),
    blocked    INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
    nick       TEXT
) STRICT;

-- /host @member finds a user by username; Telegram usernames ignore case and belong to
-- one account at a time (upsert takes a username away from whoever had it before).
CREATE UNIQUE INDEX users_by_username ON users (username COLLATE NOCASE);

-- No reference to users: a Judge may ban someone the bot has never seen.
CREATE TABLE bans (
    user_id INTEGER PRIMARY KEY,
    reason  TEXT NOT NULL,
    at      REAL NOT NULL
) STRICT;

CREATE TABLE tournaments (
    tournament_id INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT NOT NULL,
    judge_user_id INTEGER NOT NULL REFERENCES users (user_id),
    settings_json TEXT NOT NULL CHECK (json_valid(settings_json)),
    status        TEXT NOT NULL DEFAULT 'registration'
                  CHECK (status IN ('registration', 'running', 'finished')),
    created_at    REAL NOT NULL
) STRICT;

CREATE INDEX tournaments_by_judge ON tournaments (judge_user_id);

-- Nicks are unique within a tournament: the sheets and standings name players by nick.
CREATE TABLE tournament_players (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    user_id       INTEGER NOT NULL REFERENCES users (user_id),
    nick          TEXT NOT NULL,
    registered_at REAL NOT NULL,
    status        TEXT NOT NULL DEFAULT 'registered'
                  CHECK (status IN ('registered', 'withdrawn', 'disqualified')),
    PRIMARY KEY (tournament_id, user_id),
    UNIQUE (tournament_id, nick)
) STRICT;

CREATE TABLE games (
    game_id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id          INTEGER NOT NULL REFERENCES chats (chat_id),
    host_user_id     INTEGER NOT NULL REFERENCES users (user_id),
    status           TEXT NOT NULL DEFAULT 'lobby'
                     CHECK (status IN ('lobby', 'running', 'over', 'aborted')),
    tournament_id    INTEGER REFERENCES tournaments (tournament_id),
    settings_json    TEXT NOT NULL CHECK (json_valid(settings_json)),
    state_json       TEXT CHECK (state_json IS NULL OR json_valid(state_json)),
    deadline         REAL,
    lobby_message_id INTEGER,
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL,
    -- A game that has ended has nothing left to time out.
    CHECK (deadline IS NULL OR status IN ('lobby', 'running'))
) STRICT;

-- One game a chat at a time: two lobbies would fight over the chat's messages.
CREATE UNIQUE INDEX games_active_in_chat ON games (chat_id)
    WHERE status IN ('lobby', 'running');

-- Start-up re-arms every pending deadline from this index.
CREATE INDEX games_by_deadline ON games (deadline) WHERE deadline IS NOT NULL;

CREATE INDEX games_by_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL;

CREATE TABLE lobby (
    game_id   INTEGER NOT NULL REFERENCES games (game_id),
    user_id   INTEGER NOT NULL REFERENCES users (user_id),
    nick      TEXT NOT NULL,
    joined_at REAL NOT NULL,
    PRIMARY KEY (game_id, user_id)
) STRICT;

-- The protocol. payload_json is the whole event object; type is copied out of it so
-- that events of one type can be found without parsing every payload.
CREATE TABLE events (
    game_id      INTEGER NOT NULL REFERENCES games (game_id),
    seq          INTEGER NOT NULL CHECK (seq >= 1),
    at           REAL NOT NULL,
    type         TEXT NOT NULL,
    payload_json TEXT NOT NULL CHECK (
        CASE WHEN json_valid(payload_json)
            THEN json_type(payload_json, '$.type') = 'text'
                AND json_extract(payload_json, '$.type') = type
            ELSE 0
        END
    ),
    PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;

-- The protocol is the truth: nothing rewrites or forgets it, and it has no gaps.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the protocol is append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the protocol is append-only');
END;

CREATE TRIGGER events_contiguous BEFORE INSERT ON events
WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM events WHERE game_id = NEW.game_id)
BEGIN
    SELECT RAISE(ABORT, 'a protocol event must take the next seq of its game');
END;

-- chat_id has no reference to chats: a role card goes to a player's private chat,
-- which the bot need not have recorded.
CREATE TABLE outbox (
    outbox_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id      INTEGER NOT NULL REFERENCES games (game_id),
    chat_id      INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    payload_json TEXT NOT NULL CHECK (json_valid(payload_json)),
    created_at   REAL NOT NULL,
    sent_at      REAL,
    message_id   INTEGER,
    CHECK ((sent_at IS NULL) = (message_id IS NULL))
) STRICT;

CREATE INDEX outbox_unsent ON outbox (outbox_id) WHERE sent_at IS NULL;

CREATE TABLE processed_updates (
    update_id    INTEGER PRIMARY KEY,
    processed_at REAL NOT NULL
) STRICT;

CREATE INDEX processed_updates_by_time ON processed_updates (processed_at);

CREATE TABLE processed_callback_queries (
    callback_query_id TEXT PRIMARY KEY,
    processed_at      REAL NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX processed_callback_queries_by_time ON processed_callback_queries (processed_at);
"""

_SCHEMA_2 = """
-- T3: the Host signs the result sheet once; after that only the Judge may change it.
ALTER TABLE games ADD COLUMN signed_by INTEGER REFERENCES users (user_id);
ALTER TABLE games ADD COLUMN signed_at REAL;
"""

_SCHEMA_3 = """
-- T1: a tour's groups, each bound to a game chat and run by a Host.
CREATE TABLE tour_groups (
    code          TEXT PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    tour          INTEGER NOT NULL CHECK (tour >= 1),
    players_json  TEXT NOT NULL CHECK (json_valid(players_json)),
    chat_id       INTEGER REFERENCES chats (chat_id),
    host_user_id  INTEGER REFERENCES users (user_id),
    game_id       INTEGER REFERENCES games (game_id),
    created_at    REAL NOT NULL
) STRICT;
CREATE INDEX tour_groups_by_tournament ON tour_groups (tournament_id, tour);

-- T5: the Judge's adjustments of points, with their reasons (tenths of a point).
CREATE TABLE adjustments (
    adjustment_id INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    user_id       INTEGER NOT NULL REFERENCES users (user_id),
    tenths        INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    at            REAL NOT NULL
) STRICT;

-- T3: a signed sheet changes only by the Judge, and every change is kept.
CREATE TABLE sheet_changes (
    change_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id       INTEGER NOT NULL REFERENCES games (game_id),
    judge_user_id INTEGER NOT NULL REFERENCES users (user_id),
    change_json   TEXT NOT NULL CHECK (json_valid(change_json)),
    reason        TEXT NOT NULL,
    at            REAL NOT NULL
) STRICT;
"""

_SCHEMA_4 = """
-- A deep link names a lobby or a registration by a token nobody can guess: the
-- numbers count up, and anyone could try the next one.
ALTER TABLE games ADD COLUMN join_token TEXT;
UPDATE games SET join_token = lower(hex(randomblob(16))) WHERE status = 'lobby';
CREATE UNIQUE INDEX games_by_join_token ON games (join_token) WHERE join_token IS NOT NULL;

ALTER TABLE tournaments ADD COLUMN reg_token TEXT;
UPDATE tournaments SET reg_token = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX tournaments_by_reg_token ON tournaments (reg_token);

-- The Judge closes and reopens registration.
ALTER TABLE tournaments ADD COLUMN registration_open INTEGER NOT NULL DEFAULT 1
    CHECK (registration_open IN (0, 1));

-- Nicks are one nick whatever their case ("Anna" is "anna", "Алёна" is "АЛЕНА"): the
-- key is storage.nicks.nick_key, which every connection registers as a SQL function.
ALTER TABLE tournament_players ADD COLUMN nick_key TEXT;
UPDATE tournament_players SET nick_key = nick_key(nick);

-- Nicks registered before that are told apart the way registration does it: the
-- first to register keeps the nick, the next get " 2", " 3"… unless that is taken too,
-- and then their user id.
UPDATE tournament_players AS p
SET nick = p.nick || ' ' || d.n, nick_key = nick_key(p.nick || ' ' || d.n)
FROM (
    SELECT tournament_id, user_id, row_number() OVER (
        PARTITION BY tournament_id, nick_key ORDER BY registered_at, user_id
    ) AS n
    FROM tournament_players
) AS d
WHERE d.tournament_id = p.tournament_id AND d.user_id = p.user_id AND d.n > 1
    AND NOT EXISTS (
        SELECT 1 FROM tournament_players AS q
        WHERE q.tournament_id = p.tournament_id AND q.nick_key = nick_key(p.nick || ' ' || d.n)
    );
UPDATE tournament_players AS p
SET nick = p.nick || ' #' || p.user_id, nick_key = nick_key(p.nick || ' #' || p.user_id)
FROM (
    SELECT tournament_id, user_id, row_number() OVER (
        PARTITION BY tournament_id, nick_key ORDER BY registered_at, user_id
    ) AS n
    FROM tournament_players
) AS d
WHERE d.tournament_id = p.tournament_id AND d.user_id = p.user_id AND d.n > 1;
CREATE UNIQUE INDEX tournament_players_by_nick_key
    ON tournament_players (tournament_id, nick_key);
"""

_SCHEMA_5 = """
-- V4: a ban the Host's confirmation of a sanction asks for, until the tournament's Judge
-- confirms (the ban is written with the decision) or declines it.
CREATE TABLE ban_requests (
    request_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    game_id       INTEGER NOT NULL REFERENCES games (game_id),
    user_id       INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'confirmed', 'declined')),
    asked_at      REAL NOT NULL,
    decided_at    REAL
) STRICT;
"""

_SCHEMA_6 = """
-- The Host's private panel of a game: which message it is, so that a restarted bot edits
-- it rather than posting another, and what it shows, so that it is not edited for nothing.
-- It is in the Host's private chat, whose id is the Host's user id.
CREATE TABLE host_panels (
    game_id      INTEGER PRIMARY KEY REFERENCES games (game_id),
    host_user_id INTEGER NOT NULL,
    message_id   INTEGER NOT NULL,
    digest       TEXT NOT NULL
) STRICT;
"""

_SCHEMA_7 = """
-- T1, T5: what the Judge did to the tournament's tours and its end, in the order done:
-- a tour cancelled or redrawn before its games began, a tour confirmed before the last
-- one was complete, the tournament finished or reopened.
CREATE TABLE tournament_journal (
    entry_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    tour          INTEGER,
    kind          TEXT NOT NULL
                  CHECK (kind IN ('cancelled', 'redrawn', 'forced', 'finished', 'reopened')),
    detail        TEXT NOT NULL DEFAULT '',
    judge_user_id INTEGER NOT NULL,
    at            REAL NOT NULL
) STRICT;
CREATE INDEX tournament_journal_by_tournament ON tournament_journal (tournament_id, tour);
"""

_SCHEMA_8 = """
-- T3, T4: the scoring scheme (bonus threshold and coefficient) a tournament game is played
-- under, as JSON; a later change of the tournament's settings leaves it as it was.
ALTER TABLE games ADD COLUMN scoring_json TEXT;
"""

_SCHEMA_9 = """
-- The bot's own secrets, made once and kept with the data they protect (a backup restored
-- elsewhere keeps them): the live page's key, so that a revoked bot token does not change
-- every page's address.
CREATE TABLE bot_secrets (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
"""

_SCHEMA_10 = """
-- A forum supergroup: the topic (message_thread_id) a game was opened in, where every post
-- of the game goes; NULL for a group without topics, or a game in a forum's General.
ALTER TABLE games ADD COLUMN thread_id INTEGER;
"""

_SCHEMA_11 = """
-- T1: the invite links the bot made to a table's chat (/bind, /replace), kept so that a
-- tour cancelled or redrawn revokes them: nobody of a void draw joins a table by them.
CREATE TABLE tour_invites (
    invite_link TEXT PRIMARY KEY,
    code        TEXT NOT NULL,
    chat_id     INTEGER NOT NULL REFERENCES chats (chat_id),
    created_at  REAL NOT NULL
) STRICT;
CREATE INDEX tour_invites_by_code ON tour_invites (code);
"""

_SCHEMA_12 = """
-- T5, S3: the tournament's own lot, the tie-break's last criterion. Its seed is drawn and
-- committed (its SHA-256 announced) at the first confirmed tour, kept secret until the
-- tournament is finished, then revealed with the final table; `revealed_at` says when.
CREATE TABLE tournament_lots (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments (tournament_id),
    seed          TEXT NOT NULL,
    commitment    TEXT NOT NULL,
    committed_at  REAL NOT NULL,
    revealed_at   REAL
) STRICT;
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "chats, users, games, lobby, protocol, outbox, processed updates, tournaments, bans",
        _SCHEMA_1,
    ),
    Migration(2, "who signed a game's result sheet, and when (T3)", _SCHEMA_2),
    Migration(3, "tour groups, point adjustments, sheet changes (T1, T3, T5)", _SCHEMA_3),
    Migration(
        4,
        "unguessable join and registration tokens, registration open or closed, nick keys",
        _SCHEMA_4,
    ),
    Migration(5, "bans waiting for the Judge's decision (V4)", _SCHEMA_5),
    Migration(6, "the Host's private panel message of each game", _SCHEMA_6),
    Migration(7, "the journal of tours cancelled, redrawn, forced, finished, reopened", _SCHEMA_7),
    Migration(8, "the scoring scheme a tournament game is played under (T3, T4)", _SCHEMA_8),
    Migration(9, "the bot's own secrets: the live page's key", _SCHEMA_9),
    Migration(10, "the forum topic each game lives in", _SCHEMA_10),
    Migration(11, "the invite links to tables' chats, revoked with a void tour (T1)", _SCHEMA_11),
    Migration(12, "the tournament's lot: seed committed at the first tour (T5, S3)", _SCHEMA_12),
)
"""Every migration, in order; the last one's version is the schema version of this code."""


def split_statements(sql: str) -> list[str]:
    """Cut a migration script into statements, each to run through the open transaction.

    `executescript` cannot be used: it commits first, which would break the
    migration's own transaction. A statement ends at the end of a line where SQLite
    itself considers it complete, so a trigger's inner `;` does not cut it.
    """
    statements: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip() and not _is_only_comments(pending):
        raise MigrationError(f"migration script ends with an incomplete statement: {pending!r}")
    return statements


def _is_only_comments(sql: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in sql.splitlines())


async def apply_migrations(database: Database, migrations: Sequence[Migration]) -> int:
    """Apply the migrations the database lacks, oldest first; return the resulting version.

    Raises `SchemaTooNewError` when the file is at a version the list does not reach,
    and `MigrationError` when the list is not numbered 1, 2, 3, … or a migration
    leaves a foreign key pointing nowhere.
    """
    for position, migration in enumerate(migrations, start=1):
        if migration.version != position:
            raise MigrationError(
                f"migration {migration.description!r} has version {migration.version}, "
                f"expected {position}: versions must count 1, 2, 3, … without gaps"
            )
    known = len(migrations)
    found = await schema_version(database)
    if found > known:
        raise SchemaTooNewError(found, known)
    for migration in migrations[found:]:
        async with database.transaction():
            # Another process may have migrated the file since it was read above.
            if await schema_version(database) >= migration.version:
                continue
            for statement in split_statements(migration.sql):
                await database.execute(statement)
            broken = await database.fetch_all("PRAGMA foreign_key_check")
            if broken:
                tables = sorted({row[0] for row in broken})
                raise MigrationError(
                    f"migration {migration.version} ({migration.description}) leaves "
                    f"dangling foreign keys in: {', '.join(tables)}"
                )
            # PRAGMA takes no bound parameters; the version is an int from our own list.
            await database.execute(f"PRAGMA user_version = {int(migration.version)}")
    return known


async def schema_version(database: Database) -> int:
    """The number of the last migration applied to the database file (0 when fresh)."""
    rows = await database.fetch_all("PRAGMA user_version")
    return int(rows[0][0])
