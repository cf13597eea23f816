"""Migrations: from an empty file, from every earlier version, and what they refuse."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from storage import (
    MIGRATIONS,
    Database,
    Migration,
    MigrationError,
    Repositories,
    SchemaTooNewError,
)
from storage.migrations import schema_version, split_statements
from tests.storage.storage_testdata import HOST

LATEST = MIGRATIONS[-1].version

# A later migration, as the next engineer would append it.
NEXT = Migration(
    LATEST + 1,
    "users remember when they were last seen",
    "ALTER TABLE users ADD COLUMN last_seen REAL;\n",
)


async def schema_of(db: Database) -> list[tuple[str, str, str]]:
    rows = await db.fetch_all("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
    return [(row["type"], row["name"], row["sql"]) for row in rows]


async def integrity(db: Database) -> list[str]:
    return [row[0] for row in await db.fetch_all("PRAGMA integrity_check")]


def test_migrations_count_from_one_without_gaps() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


async def test_empty_file_gets_the_whole_schema(db_path: Path) -> None:
    async with await Database.open(db_path) as db:
        assert await schema_version(db) == LATEST
        assert await integrity(db) == ["ok"]
        tables = {name for kind, name, _ in await schema_of(db) if kind == "table"}
    assert {
        "chats",
        "chat_settings",
        "users",
        "bans",
        "tournaments",
        "tournament_players",
        "games",
        "lobby",
        "events",
        "outbox",
        "processed_updates",
        "processed_callback_queries",
    } <= tables


@pytest.mark.parametrize("version", range(LATEST))
async def test_database_at_every_earlier_version_is_brought_up_to_date(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / "old.sqlite3"
    async with await Database.open(path, migrations=MIGRATIONS[:version]) as old:
        assert await schema_version(old) == version
    async with await Database.open(tmp_path / "fresh.sqlite3") as fresh:
        expected = await schema_of(fresh)
    async with await Database.open(path) as db:
        assert await schema_version(db) == LATEST
        assert await integrity(db) == ["ok"]
        assert await schema_of(db) == expected


async def test_next_migration_applies_and_keeps_the_data(db_path: Path) -> None:
    async with await Database.open(db_path) as db:
        await Repositories.of(db).users.upsert(HOST, first_name="Host", username=None)
    async with await Database.open(db_path, migrations=(*MIGRATIONS, NEXT)) as db:
        assert await schema_version(db) == NEXT.version
        rows = await db.fetch_all("SELECT first_name, last_seen FROM users")
        assert [tuple(row) for row in rows] == [("Host", None)]


async def test_reopening_applies_nothing_twice(db_path: Path) -> None:
    async with await Database.open(db_path, migrations=(*MIGRATIONS, NEXT)):
        pass
    # Applying NEXT again would fail on the duplicate column.
    async with await Database.open(db_path, migrations=(*MIGRATIONS, NEXT)) as db:
        assert await schema_version(db) == NEXT.version


async def test_two_processes_opening_a_fresh_file_migrate_it_once(db_path: Path) -> None:
    first, second = await asyncio.gather(Database.open(db_path), Database.open(db_path))
    async with first, second:
        assert await schema_version(first) == LATEST
        assert await integrity(second) == ["ok"]


async def test_newer_database_is_refused(db_path: Path) -> None:
    async with await Database.open(db_path, migrations=(*MIGRATIONS, NEXT)):
        pass
    with pytest.raises(SchemaTooNewError, match="newer") as raised:
        await Database.open(db_path)
    assert (raised.value.found, raised.value.known) == (NEXT.version, LATEST)


async def test_newer_database_keeps_its_version_and_gets_no_tables(db_path: Path) -> None:
    with sqlite3.connect(db_path) as connection:
        connection.execute(f"PRAGMA user_version = {LATEST + 5}")
    connection.close()
    with pytest.raises(SchemaTooNewError):
        await Database.open(db_path)
    with sqlite3.connect(db_path) as connection:
        tables = connection.execute("SELECT name FROM sqlite_schema").fetchall()
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    connection.close()
    assert tables == []
    assert version == LATEST + 5


async def test_failing_migration_leaves_the_previous_version(db_path: Path) -> None:
    broken = Migration(
        LATEST + 1,
        "fails half-way",
        "CREATE TABLE half_done (x INTEGER) STRICT;\nINSERT INTO no_such_table VALUES (1);\n",
    )
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        await Database.open(db_path, migrations=(*MIGRATIONS, broken))
    async with await Database.open(db_path) as db:
        assert await schema_version(db) == LATEST
        assert all(name != "half_done" for _, name, _ in await schema_of(db))


async def test_migration_leaving_dangling_foreign_keys_is_rolled_back(db_path: Path) -> None:
    dangling = Migration(
        LATEST + 1,
        "inserts a game of an unknown chat",
        "INSERT INTO games (chat_id, host_user_id, settings_json, created_at, updated_at)\n"
        "VALUES (-1, 1, '{}', 0, 0);\n",
    )
    with pytest.raises(MigrationError, match="games"):
        await Database.open(db_path, migrations=(*MIGRATIONS, dangling))
    async with await Database.open(db_path) as db:
        assert await schema_version(db) == LATEST
        assert await db.fetch_all("SELECT * FROM games") == []


async def test_misnumbered_migrations_are_refused(db_path: Path) -> None:
    skipped = Migration(LATEST + 2, "skips a number", "SELECT 1;\n")
    with pytest.raises(MigrationError, match="expected"):
        await Database.open(db_path, migrations=(*MIGRATIONS, skipped))


def test_split_keeps_a_trigger_whole() -> None:
    script = (
        "CREATE TABLE t (x INTEGER);\n"
        "-- no rewriting\n"
        "CREATE TRIGGER t_no_update BEFORE UPDATE ON t\n"
        "BEGIN\n"
        "    SELECT RAISE(ABORT, 'no');\n"
        "END;\n"
        "-- a closing remark\n"
    )
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].startswith("-- no rewriting\nCREATE TRIGGER")
    assert statements[1].endswith("END;")


def test_split_refuses_an_unterminated_statement() -> None:
    with pytest.raises(MigrationError, match="incomplete"):
        split_statements("CREATE TABLE t (x INTEGER);\nCREATE TABLE u (y INTEGER)\n")


async def test_migration_4_keys_nicks_and_tells_old_duplicates_apart(db_path: Path) -> None:
    """Issue 10: nicks differing only in case were two players; after 4 they are told apart.

    The first to register keeps the nick; the next get " 2", or their user id when
    " 2" is someone's nick already. Open lobbies and tournaments get their tokens.
    """
    async with await Database.open(db_path, migrations=MIGRATIONS[:3]) as old:
        for user_id in (HOST, 2, 3, 4, 5, 6):
            await old.execute(
                "INSERT INTO users (user_id, first_name) VALUES (?, ?)", (user_id, "U")
            )
        await old.execute(
            "INSERT INTO tournaments (name, judge_user_id, settings_json, created_at) "
            "VALUES ('Cup', ?, '{}', 0)",
            (HOST,),
        )
        for user_id, nick, at in (
            (2, "Anna", 1),
            (3, "anna", 2),
            (4, "ANNA", 3),
            (5, "Вера", 4),
            (6, "вера 2", 0),
        ):
            await old.execute(
                "INSERT INTO tournament_players (tournament_id, user_id, nick, registered_at) "
                "VALUES (1, ?, ?, ?)",
                (user_id, nick, at),
            )
        await old.execute("INSERT INTO chats (chat_id, type) VALUES (-1, 'supergroup')")
        await old.execute(
            "INSERT INTO games (chat_id, host_user_id, settings_json, created_at, updated_at) "
            "VALUES (-1, ?, '{}', 0, 0)",
            (HOST,),
        )
    async with await Database.open(db_path) as db:
        repos = Repositories.of(db)
        nicks = {p.user_id: p.nick for p in await repos.tournaments.players(1)}
        assert nicks == {2: "Anna", 3: "anna 2", 4: "ANNA 3", 5: "Вера", 6: "вера 2"}
        anna = await repos.tournaments.by_nick(1, "aNnA")
        assert anna is not None and anna.user_id == 2
        vera = await repos.tournaments.by_nick(1, "ВЕРА")
        assert vera is not None and vera.user_id == 5
        cup = await repos.tournaments.get(1)
        assert cup is not None and cup.registration_open and len(cup.reg_token or "") == 32
        lobby = await repos.games.get(1)
        assert lobby is not None and lobby.join_token
        assert await repos.games.by_join_token(lobby.join_token) == lobby


async def test_migration_4_gives_a_clash_with_an_existing_number_the_user_id(
    db_path: Path,
) -> None:
    async with await Database.open(db_path, migrations=MIGRATIONS[:3]) as old:
        for user_id in (HOST, 2, 3, 4):
            await old.execute(
                "INSERT INTO users (user_id, first_name) VALUES (?, ?)", (user_id, "U")
            )
        await old.execute(
            "INSERT INTO tournaments (name, judge_user_id, settings_json, created_at) "
            "VALUES ('Cup', ?, '{}', 0)",
            (HOST,),
        )
        for user_id, nick, at in ((2, "Gleb", 1), (3, "gleb", 2), (4, "Gleb 2", 3)):
            await old.execute(
                "INSERT INTO tournament_players (tournament_id, user_id, nick, registered_at) "
                "VALUES (1, ?, ?, ?)",
                (user_id, nick, at),
            )
    async with await Database.open(db_path) as db:
        nicks = {p.user_id: p.nick for p in await Repositories.of(db).tournaments.players(1)}
        assert nicks == {2: "Gleb", 3: "gleb #3", 4: "Gleb 2"}
