"""A tournament day as a Judge runs it (issue 20, "Done when"): 27 players over 3 tours with
a disqualification (V1), a no-show, a /replace, a late scheme change, a tie at the top
settled by the tie-break order (T5), and /finish; the final table the bot announces is
checked against a reference computed here from the signed sheets alone, a Judge's seat
correction included (T3, T4, T5)."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

import pytest

from bot.cli.demo import RIGHTS, Crowd, Table, play
from sandbox import SimGroup, SimUser
from tests.middle.games import open_game
from tests.steps import INVITE, REGISTRATION, say, told, warn

ROW = re.compile(r"^(🏆|·) (\d+)\. (.+?) — (.+)$")
EVENT = re.compile(r"tour (\d+), table (T\d+R\d+G\d+)")


@dataclass
class Sheet:
    """What a signed sheet shows: the tour, the rows (nick, role, won, out) and the
    stated worth of a win, in tenths."""

    tour: int
    rows: list[tuple[str, str, bool, bool, int]]
    absent: list[str]
    per_win: int
    seats: list[int]
    corrections: list[tuple[int, bool]]  # the Judge's seat corrections, in order


def read_sheet(text: str) -> Sheet:
    event = EVENT.search(text)
    assert event is not None, text
    rows = []
    seats = []
    absent: list[str] = []
    for line in text.splitlines():
        if line.startswith("Absent: "):
            absent = [n.strip() for n in line.removeprefix("Absent: ").split(",")]
        match = ROW.match(line)
        if match is None:
            continue
        mark, seat, nick, rest = match.groups()
        seats.append(int(seat))
        role = rest.split(" · ")[0]
        out = "disqualification" in rest or "removal" in rest
        warned = re.search(r"⚠️ (\d+)", rest)
        rows.append((nick, role, mark == "🏆", out, int(warned.group(1)) if warned else 0))
    worth = re.search(r"A win is worth (\d+)\.(\d) here", text)
    assert worth is not None, text
    history = text.split("The Judge's corrections:\n", 1)[1].splitlines()
    corrections = []
    for line in history:
        if line == "none":
            continue
        fixed = re.search(r", seat (\d+) (gets|loses) the point: ", line)
        assert fixed is not None, line  # no other kind of correction on this day
        corrections.append((int(fixed.group(1)), fixed.group(2) == "gets"))
    points = int(worth.group(1)) * 10 + int(worth.group(2))
    return Sheet(int(event.group(1)), rows, absent, points, seats, corrections)


def reference(
    sheets: list[Sheet], thresholds: dict[int, int], out: set[str]
) -> tuple[dict[str, tuple[int, int, int]], list[tuple[set[str], list[tuple[int, int]]]]]:
    """T4, T5 from the sheets alone: a win is 1 point, ×1.2 when more players than the
    threshold of the scheme in force at that tour started; no point for a player
    removed or disqualified in that game; totals summed; the disqualified not placed.
    Where shared places would cross a prize place, the default tie-break order: more
    wins, more wins above the threshold, more wins as Commissioner, fewer warnings and
    sanctions, then a lot (which the sheets cannot tell: only who is in it).
    The places (first, last) of each placed nick, and the lots (nicks, their places)."""
    total: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    bonus: Counter[str] = Counter()
    commissioner: Counter[str] = Counter()
    marks: Counter[str] = Counter()
    everyone: set[str] = set()
    for s in sheets:
        above = len(s.rows) > thresholds[s.tour]
        worth = 12 if above else 10
        assert s.per_win == worth, (s.tour, len(s.rows), s.per_win)
        earns = {seat: r[2] and not r[3] for seat, r in zip(s.seats, s.rows, strict=True)}
        for seat, point in s.corrections:  # T3: the Judge's corrections, in order
            earns[seat] = point
        for seat, (nick, role, _, removed, warnings) in zip(s.seats, s.rows, strict=True):
            everyone.add(nick)
            marks[nick] += warnings + int(removed)
            if earns[seat]:
                total[nick] += worth
                wins[nick] += 1
                bonus[nick] += int(above)
                commissioner[nick] += int(role == "Commissioner")

    def key(n: str) -> tuple[int, ...]:
        return (-wins[n], -bonus[n], -commissioner[n], marks[n])

    order = sorted(everyone - out, key=lambda n: (-total[n], key(n), n))
    places: dict[str, tuple[int, int, int]] = {}
    lots: list[tuple[set[str], list[tuple[int, int]]]] = []
    i = 0
    while i < len(order):
        same = [n for n in order if total[n] == total[order[i]]]
        first, last = i + 1, i + len(same)
        if first > 3 or len(same) == 1:  # no prize place crossed: one shared place
            places.update({n: (first, last, total[n]) for n in same})
        else:
            j = i
            while j < last:
                sub = [n for n in same if key(n) == key(order[j])]
                a, b = j + 1, j + len(sub)
                if len(sub) == 1 or a > 3:
                    places.update({n: (a, b, total[n]) for n in sub})
                else:  # a lot: distinct places up to 3rd, then one shared place
                    drawn = [(p, p) for p in range(a, min(b, 3) + 1)]
                    drawn += [(4, b)] * (b - 3) if b > 3 else []
                    places.update({n: (0, 0, total[n]) for n in sub})
                    lots.append((set(sub), drawn))
                j = b
        i = last
    return places, lots


def announced(final: str) -> tuple[dict[str, tuple[int, int, int]], dict[str, str]]:
    """The final table as announced: each placed nick's (first, last place, tenths), and
    the tie-break that decided it, where one did."""
    table = final.split("\n\n", 1)[1]
    lines: list[str] = []
    for line in table.splitlines():
        if re.match(r"^\d|^out:", line) or not lines:
            lines.append(line)
        else:
            lines[-1] += " " + line
    shown: dict[str, tuple[int, int, int]] = {}
    decided: dict[str, str] = {}
    for line in lines:
        match = re.match(r"^(\d+)(?:–(\d+))?\. (.+) — (\d+)\.(\d)(?: \(decided by: (.+)\))?$", line)
        if match is None:
            assert line.startswith("out: "), line
            continue
        first, last, names, units, tenth, why = match.groups()
        for nick in names.split(", "):
            shown[nick] = (int(first), int(last or first), int(units) * 10 + int(tenth))
            if why:
                decided[nick] = why
    return shown, decided


async def judge_says(table: Table, text: str) -> str:
    return await say(table, table.host, table.host.private, text)


async def seat_table(
    table: Table, code: str, players: list[SimUser], missing: SimUser | None = None
) -> SimGroup:
    """Bind a chat to `code`, the group's players join by their invitations; /newgame, and
    everyone but `missing` marks in."""
    judge = table.host
    chat = table.sandbox.add_supergroup(f"Table {code}", owner=judge)
    chat.promote_bot(by=judge, **RIGHTS)
    done = await say(table, judge, chat, f"/bind {code}")
    assert f"table {code}" in done, done
    group = await table.app.service.repos.tours.group(code)
    assert group is not None
    seated = [p for p in players if p.id in group.players]
    for person in seated:
        invite = next(
            m
            for m in reversed(person.inbox())
            if told(code) in m.content and INVITE.search(m.content)
        )
        url = INVITE.search(invite.content)
        assert url is not None
        await person.join_by_link(url.group(0))
    await table.settle()
    await judge.send(chat, "/newgame")
    await table.settle()
    lobby = chat.visible_messages()[-1]
    for person in seated:
        if person is not missing:
            await person.press(lobby, "I'm here")
            await table.settle()
    return chat


async def play_out(table: Table, chat: SimGroup, seed: int, cheat: SimUser | None = None) -> int:
    """/begin; the Host sanctions `cheat` for V1 and confirms; the game is played to its end
    and the Host signs the sheet. The game's id."""
    game = await table.app.service.active_game(chat.id)
    assert game is not None
    table.group, table.game_id = chat, game.game_id
    await table.host.send(chat, "/begin")
    await table.settle()
    if cheat is not None:
        state = await table.app.service.state(game.game_id)
        assert state is not None
        seat = state.seat_of(cheat.id)
        proposal = await warn(table, table.host, chat, f"/warn {seat} V1")
        assert "disqualification" in proposal.content, proposal.content
        await table.host.press(proposal, "Confirm")
        await table.settle()
    state = await play(table, Crowd(table, random.Random(seed), "en"))
    assert state.winner is not None
    await table.host.press(chat.visible_messages()[-1], "Sign the sheet")
    await table.settle()
    return game.game_id


@pytest.mark.heavy(36)
@pytest.mark.rule("T1")
@pytest.mark.rule("T3")
@pytest.mark.rule("T4")
@pytest.mark.rule("T5")
@pytest.mark.rule("T6")
@pytest.mark.rule("V1")
async def test_T4_T5_a_tournament_day_ends_in_the_final_table_the_sheets_give() -> None:
    async with open_game(27, seed=31, lang="en") as table:
        judge = table.host
        people = table.people
        await judge.start_bot()
        await table.settle()
        created = await judge_says(table, "/tournament Winter Cup")
        link = REGISTRATION.search(created)
        assert link is not None, created
        for person in people[:26]:
            await person.open_link(link.group(0))
            await table.settle()
        repos = table.app.service.repos
        games: list[int] = []

        # Tour 1: 26 players in two tables of 13.
        confirmed = await judge_says(table, "/groups confirm")
        assert "Tour 1 is set" in confirmed, confirmed
        first, second = await repos.tours.groups(1, 1)
        assert len(first.players) == len(second.players) == 13
        # A latecomer registers and plays for a player who does not come (/replace).
        late = people[26]
        await late.open_link(link.group(0))
        await table.settle()
        gone = next(p for p in people if p.id == first.players[3])
        done = await judge_says(
            table, f'/replace {first.code} "{gone.first_name}" "{late.first_name}"'
        )
        assert "plays instead of" in done, done
        chat = await seat_table(table, first.code, people)
        cheat = next(p for p in people if p.id == first.players[7])
        told = len(judge.inbox())
        games.append(await play_out(table, chat, seed=1, cheat=cheat))
        assert any(
            cheat.first_name in m.content and "disqualified" in m.content
            for m in judge.inbox()[told:]
        )
        # At the other table one player does not come: it begins with 12 (T1).
        no_show = next(p for p in people if p.id == second.players[5])
        chat = await seat_table(table, second.code, people, missing=no_show)
        games.append(await play_out(table, chat, seed=2))

        # T6: a late scheme change; the signed tour-1 sheets keep theirs.
        changed = await judge_says(table, "/settings bonus_threshold 12 override")
        assert "12" in changed, changed

        # Tours 2 and 3: the disqualified player is never seated again.
        for tour in (2, 3):
            confirmed = await judge_says(table, "/groups confirm")
            assert f"Tour {tour} is set" in confirmed, confirmed
            groups = await repos.tours.groups(1, tour)
            seated = [u for g in groups for u in g.players]
            assert cheat.id not in seated and len(seated) == 26
            for n, group in enumerate(groups):
                chat = await seat_table(table, group.code, people)
                games.append(await play_out(table, chat, seed=10 * tour + n))

        # The reference, from the signed sheets alone as /sheet shows them to the Judge.
        async def signed_sheets() -> list[Sheet]:
            sheets = []
            for game_id in games:
                await judge.send(judge.private, f"/sheet {game_id}")
                await table.settle()
                text, page = judge.private.messages()[-2:]
                assert page.file is not None
                sheets.append(read_sheet(text.content))
            return sheets

        # T3: the Judge takes the point from a winner at the bottom of the standings.
        sheets = await signed_sheets()
        assert all(not s.corrections for s in sheets)
        before, _ = reference(sheets, {1: 14, 2: 12, 3: 12}, out=set())
        seat, nick = min(
            (
                (seat, row[0])
                for seat, row in zip(sheets[2].seats, sheets[2].rows, strict=True)
                if row[2]
            ),
            key=lambda r: (before[r[1]][2], r[1]),
        )
        fixed = await judge_says(table, f"/fix {games[2]} seat {seat} 0 a hint to a teammate")
        assert "a hint to a teammate" in fixed, fixed
        sheets = await signed_sheets()
        assert sheets[2].corrections == [(seat, False)]
        nicks = await table.app.dispatcher["tournaments"].nicks(1)
        assert [s.tour for s in sheets] == [1, 1, 2, 2, 3, 3]
        assert sheets[1].absent == [nicks[no_show.id]] and len(sheets[1].rows) == 12
        assert nicks[late.id] in {r[0] for r in sheets[0].rows}
        assert nicks[gone.id] not in {r[0] for r in sheets[0].rows}
        assert [r[3] for r in sheets[0].rows if r[0] == nicks[cheat.id]] == [True]
        expected = reference(sheets, {1: 14, 2: 12, 3: 12}, out={nicks[cheat.id]})

        places, lots = expected
        assert places[nick][2] == before[nick][2] - sheets[2].per_win  # the fix counts
        # A tie at the top: more than one player on the best total.
        best = max(t for _, _, t in places.values())
        assert sum(t == best for _, _, t in places.values()) > 1, places

        final = await judge_says(table, "/finish")
        assert "Top three" in final, final
        shown, decided = announced(final)
        assert {n: v[2] for n, v in shown.items()} == {n: v[2] for n, v in places.items()}
        for nick, (high, low, _) in places.items():
            if high:
                assert shown[nick][:2] == (high, low), (nick, shown[nick], high, low)
        for names, drawn in lots:
            assert sorted(shown[n][:2] for n in names) == sorted(drawn), (names, final)
            assert {decided[n] for n in names} == {"a lot"}, final
        # The tie at the top was settled by the order, not left shared.
        assert [n for n, v in shown.items() if v[0] <= 3 and v[0] == v[1]] == [
            n for n, v in shown.items() if v[0] <= 3
        ]
        assert all(decided.get(n) for n, v in shown.items() if v[0] <= 3), final
        assert f"out: disqualified. {nicks[cheat.id]}" in final
        for person in people:
            assert "Top three" in person.inbox()[-1].content
        table.sandbox.assert_no_bot_errors()
