"""Players read "стол 2", the Judge "T1R1G2" (issue 22 §4)."""

from __future__ import annotations

from bot.tournament.tables import table_code, table_number
from bot.views.i18n import Texts


def test_a_code_names_the_tournament_tour_and_group_and_a_player_reads_the_group() -> None:
    assert table_code(1, 2, 3) == "T1R2G3"
    assert table_number("T1R2G3") == "3"
    assert table_number("T12R10G11") == "11"
    assert table_number("Стол у окна") == "Стол у окна"  # not one of ours: shown as it is


def test_what_a_player_reads_of_a_table_carries_no_code() -> None:
    t = Texts()
    for key in ("bind.invite", "replace.told_in_link", "lobby.tournament", "bind.unbound"):
        text = t(
            "ru",
            key,
            tour=2,
            table=table_number("T1R2G3"),
            title="Клуб",
            link="https://t.me/+x",
            game=7,
            count=1,
            total=12,
            players="—",
        )
        assert "стол 3" in text and "T1R2G3" not in text, (key, text)
