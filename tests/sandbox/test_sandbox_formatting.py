"""Parse modes, trimming and detected entities, compared with what Telegram produces."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.api_errors import ApiError
from sandbox.formatting import FormattedText, format_text


def formatted(text: str, mode: str | None = "HTML", **kwargs: Any) -> FormattedText:
    users = {5: {"id": 5, "is_bot": False, "first_name": "Anna"}}
    return format_text(
        text,
        parse_mode=mode,
        entities=kwargs.get("entities"),
        find_user=users.get,
        allow_empty=kwargs.get("allow_empty", False),
    )


def spans(result: FormattedText) -> list[tuple[str, int, int]]:
    return [(e["type"], e["offset"], e["length"]) for e in result.entities]


@pytest.mark.parametrize(
    ("source", "text", "expected"),
    [
        ("<b>5</b> · Anna", "5 · Anna", [("bold", 0, 1)]),
        ("<i>a<u>b</u></i>", "ab", [("italic", 0, 2), ("underline", 1, 1)]),
        ("1 &lt; 2 &amp;&amp; &nbsp;", "1 < 2 && &nbsp;", []),
        ("😀<s>x</s>", "😀x", [("strikethrough", 2, 1)]),
        ('<pre><code class="language-json">{}</code></pre>', "{}", [("pre", 0, 2)]),
        ("<blockquote expandable>q</blockquote>", "q", [("expandable_blockquote", 0, 1)]),
        ('<span class="tg-spoiler">mafia</span>', "mafia", [("spoiler", 0, 5)]),
        ('<a href="tg://user?id=5">Anna</a>, speak', "Anna, speak", [("text_mention", 0, 4)]),
        ("<b>  </b>x", "x", []),
    ],
)
def test_html_becomes_text_and_entities(
    source: str, text: str, expected: list[tuple[str, int, int]]
) -> None:
    result = formatted(source)

    assert result.text == text
    assert spans(result) == expected


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("a<br>b", 'Unsupported start tag "br" at byte offset 1'),
        ("a < b", 'Unsupported start tag "" at byte offset 2'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("<b>x", "Can't find end tag corresponding to start tag b"),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ('<span class="x">s</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("Ж<b", "Unclosed start tag at byte offset 2"),
    ],
)
def test_malformed_html_is_refused_in_telegrams_words(source: str, error: str) -> None:
    with pytest.raises(ApiError) as refusal:
        formatted(source)

    assert refusal.value.status == 400
    assert refusal.value.description == f"Bad Request: can't parse entities: {error}"


@pytest.mark.parametrize(
    ("source", "text", "expected"),
    [
        ("*bold* _it_ __u__ ~s~ ||sp||", "bold it u s sp",
         [("bold", 0, 4), ("italic", 5, 2), ("underline", 8, 1), ("strikethrough", 10, 1),
          ("spoiler", 12, 2)]),
        ("[site](http://example.com) `x`", "site x", [("text_link", 0, 4), ("code", 5, 1)]),
        ("Seat 5\\. Anna\\!", "Seat 5. Anna!", []),
        (">quote\n>more\nout", "quote\nmore\nout", [("blockquote", 0, 11)]),
    ],
)  # fmt: skip
def test_markdown_v2_becomes_text_and_entities(
    source: str, text: str, expected: list[tuple[str, int, int]]
) -> None:
    result = formatted(source, "MarkdownV2")

    assert result.text == text
    assert spans(result) == expected


@pytest.mark.parametrize(
    ("mode", "source", "error"),
    [
        ("MarkdownV2", "Seat 5. Anna", "Character '.' is reserved and must be escaped with the "
         "preceding '\\'"),
        ("MarkdownV2", "*open", "Can't find end of Bold entity at byte offset 0"),
        ("Markdown", "*open", "Can't find end of the entity starting at byte offset 0"),
    ],
)  # fmt: skip
def test_malformed_markdown_is_refused(mode: str, source: str, error: str) -> None:
    with pytest.raises(ApiError, match="can't parse entities") as refusal:
        formatted(source, mode)

    assert refusal.value.description.endswith(error)


def test_text_is_trimmed_and_control_characters_cleaned() -> None:
    result = formatted("\n  <b>Lobby</b>\t(3)\r\n\n", "HTML")

    assert result.text == "Lobby (3)"
    assert spans(result) == [("bold", 0, 5)]


def test_explicit_entities_replace_the_parse_mode_and_are_checked() -> None:
    result = formatted("<b>x</b>", "HTML", entities=[{"type": "italic", "offset": 0, "length": 3}])

    assert result.text == "<b>x</b>"
    assert spans(result) == [("italic", 0, 3)]
    with pytest.raises(ApiError, match="ends after the end of the text"):
        formatted("abc", None, entities=[{"type": "bold", "offset": 1, "length": 5}])


def test_commands_mentions_hashtags_and_links_are_found_as_telegram_does() -> None:
    result = FormattedText.plain("/vote@mafia_table_bot 5 @anna_k #game1 t.me/mafia_table_bot")

    assert spans(result) == [
        ("bot_command", 0, 21),
        ("mention", 24, 7),
        ("hashtag", 32, 6),
        ("url", 39, 20),
    ]


def test_an_empty_caption_is_allowed_but_an_empty_text_is_not() -> None:
    assert formatted("  ", None, allow_empty=True).text == ""
    with pytest.raises(ApiError, match="message text is empty"):
        formatted("<b> </b>")
