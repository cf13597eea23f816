"""Texts longer than one message are cut as Telegram counts them (issue 10, part 6).

Each part is parsed here with the sandbox's HTML parser, the one that refuses what
Telegram refuses: every part must parse on its own, fit 4096 UTF-16 units as shown, and
the parts together must show everything the whole text showed.
"""

from __future__ import annotations

from bot.delivery.longtext import TEXT_LIMIT, fits, shown_length, split_text, utf16_length
from sandbox.parse_modes import parse


def shown(text: str) -> str:
    plain, _ = parse("HTML", text)
    return plain


def check(text: str) -> list[str]:
    parts = split_text(text)
    for part in parts:
        assert utf16_length(shown(part)) <= TEXT_LIMIT
        assert shown(part).strip()
    whole = "".join(shown(text).split())
    assert "".join("".join(shown(p).split()) for p in parts) == whole
    return parts


def test_a_text_that_fits_is_left_whole() -> None:
    text = "<b>x</b> " + "🙂" * 2000
    assert fits(text) and split_text(text) == [text]


def test_length_is_counted_in_utf16_units_after_parsing() -> None:
    assert shown_length("🙂" * 3) == 6
    assert shown_length("<b>&lt;&amp;</b>") == 2
    assert not fits("🙂" * 2049) and fits("<i>" * 3000 + "a")  # the tags show as nothing


def test_a_long_list_is_cut_at_line_breaks() -> None:
    lines = [f"{i}. <b>{'🎭' * 30} &lt;{i}&gt;</b> — 1.2" for i in range(300)]
    parts = check("\n".join(lines))
    assert len(parts) > 1
    # Every line whole, in one part: the parts' lines are the text's lines.
    assert [line for p in parts for line in p.split("\n")] == lines


def test_a_line_longer_than_a_message_is_cut_inside_between_words() -> None:
    text = "💬 <b>3 · Vera</b>: <i>" + "слово 🙂 " * 1500 + "</i>"
    parts = check(text)
    assert len(parts) == 4  # 13,500 units and a prefix
    for part in parts:
        assert part.count("<i>") == part.count("</i>") == 1  # closed, and opened again
        words = shown(part).split()
        assert set(words[4 if part is parts[0] else 0 :]) == {"слово", "🙂"}  # none cut


def test_an_entity_or_a_surrogate_pair_is_never_cut() -> None:
    for unit in ("&amp;", "🙂", "&#128578;"):
        parts = check(unit * 5000)
        assert all(not p.endswith("&") and "\ud83d" not in p for p in parts)
        assert sum(shown_length(p) for p in parts) == shown_length(unit * 5000)
