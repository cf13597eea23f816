"""One vocabulary, the regulation's and the clubs' (issue 22 §4).

The same thing had four or five names across the bot and its documents ("последняя речь" and
"последнее слово", "убийство ночью" and "ночной выстрел", "баллы" and "очки", "бан" for the
regulation's запрет на участие, "Ничья" for a tied vote). Every key of the Russian catalog is
rendered and read for the words a club does not use; the Russian documents a player or Host
reads are read for them too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.rules.settings import KillRule
from bot.views.i18n import Texts
from bot.views.render import _KILL_ASK
from tests.bot.test_catalog import NICKS, rendered

ROOT = Path(__file__).resolve().parents[2]

# The word the club does not use, and the one it does (what a failure tells the next engineer).
NOT_OURS: dict[str, str] = {
    r"последн(яя|ей|юю) реч": "последнее слово (D9)",
    r"убийств": "отстрел (N3)",
    r"выстрел": "отстрел (N3)",
    r"\bбалл": "очки (T4)",
    r"\bбан(а|ом|ы|ов)?\b": "запрет на участие (V4)",
    r"\bничья\b": "голоса разделились поровну (D7)",
    r"выдвижени": "выставлены (D3)",
    r"(ваши|их|мафии) выбор|выбор(ы|ам)? (мафии|совпад)": "мафия указывает на игрока (N3)",
    r"удал(ён|ен|ил|ение|ения)\w* (игрок|из игры|из турнира)": "снятие с игры, с турнира (V)",
    r"удаление из (игры|турнира)": "снятие с игры, с турнира (V)",
}


def offending(text: str) -> list[str]:
    return [
        f"{match.group(0)!r} → {ours}"
        for pattern, ours in NOT_OURS.items()
        if (match := re.search(pattern, text, flags=re.IGNORECASE))
    ]


def test_the_word_list_catches_what_it_names() -> None:
    """The list itself can fail: each of the old words is caught, the club's words are not."""
    old = [
        "Последняя речь игрока №3",
        "убийство ночью",
        "ночной выстрел",
        "баллы: 1,0",
        "Подтвердить бан",
        "Ничья: поровну голосов",
        "Выдвижения: 2",
        "если ваши выборы совпадут",
        "Ведущий удалил игрока №4 из турнира",
    ]
    assert all(offending(text) for text in old), [t for t in old if not offending(t)]
    ours = [
        "Последнее слово игрока №3",
        "отстрел",
        "очки: 1,0",
        "Подтвердить запрет",
        "Голоса разделились поровну",
        "Выставлены: №2",
        "удаление сообщений",
        "Сообщение удалено.",
        "Наблюдатель Анна удалён из чата по требованию.",
    ]
    assert not [t for t in ours if offending(t)]


def test_every_russian_text_speaks_the_clubs_words() -> None:
    found = {
        key: offending(text)
        for key, nick, text in rendered("ru")
        if nick == NICKS[0] and offending(text)
    }
    assert not found, found
    assert len([key for key, nick, _ in rendered("ru") if nick == NICKS[0]]) > 500  # all read


@pytest.mark.parametrize(
    "document", ["README.ru.md", "docs/rules.md", "docs/fairness.md", "docs/player.ru.md"]
)
def test_every_russian_document_speaks_the_clubs_words(document: str) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    russian = text.split('<a id="english"></a>')[0]  # docs/rules.md has an English half
    found = [
        (number, line.strip(), offending(line))
        for number, line in enumerate(russian.splitlines(), start=1)
        if offending(line)
    ]
    assert not found, found


@pytest.mark.parametrize("rule", list(KillRule))
def test_the_mafias_prompt_says_the_tables_kill_rule(rule: KillRule) -> None:
    """N3: under the majority rule the prompt no longer tells the mafia they must agree."""
    t = Texts()
    prompt = t("ru", _KILL_ASK[rule])
    if rule is KillRule.UNANIMOUS:
        assert "все мафиози" in prompt
    else:
        assert "больше половины мафиози" in prompt
    assert t("ru", _KILL_ASK[KillRule.UNANIMOUS]) != t("ru", _KILL_ASK[KillRule.MAJORITY])


@pytest.mark.parametrize(
    ("items", "ru", "en"),
    [
        (["№1"], "№1", "#1"),
        (["№1", "№2"], "№1 и №2", "#1 and #2"),
        (["№1", "№2", "№3"], "№1, №2 и №3", "#1, #2 and #3"),
    ],
)
def test_three_or_more_read_as_a_person_writes_them(items: list[str], ru: str, en: str) -> None:
    t = Texts()
    assert t.listing("ru", items) == ru
    assert t.listing("en", [i.replace("№", "#") for i in items]) == en
