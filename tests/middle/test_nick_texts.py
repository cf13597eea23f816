"""Nicks in the bot's answers to buttons (issue 11): an answer is plain text."""

from __future__ import annotations

from bot.rules.events import Phase
from tests.middle.games import open_game


async def test_a_button_answer_shows_a_nick_as_written_not_escaped() -> None:
    """The night's "Checking player #6 (…)" and "Your pick" named a nick with `<` as
    `&lt;`: a callback answer is not HTML, so the escaping showed. Now the nick goes in
    as it is; the group's HTML messages still escape it."""
    async with open_game(12, seed=5, lang="en") as table:
        for person in table.people:
            person.first_name = f"<b>{person.first_name}</b>"
        await table.gather()
        await table.begin()
        state = await table.wait_for(lambda s: s.phase is Phase.NIGHT and s.day == 1)
        commissioner, mafioso = state.commissioner(), state.living_mafia()[0]
        target = next(s for s in state.living() if s not in (commissioner, mafioso))
        nick = state.seats[target].nick
        assert nick.startswith("<b>")
        checked = await table.night_pick(commissioner, target)
        assert checked.answer is not None
        assert checked.answer.text == f"Checking player #{target} ({nick})…"
        picked = await table.night_pick(mafioso, target)
        assert picked.answer is not None
        assert picked.answer.text == f"Your pick: player #{target} ({nick})."
        group = [m.content for m in table.group.messages()]
        assert any(nick in text for text in group)  # shown as written, not as markup
        table.sandbox.assert_no_bot_errors()
