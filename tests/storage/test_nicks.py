"""A nick is one line of printable text, compared as it looks (issue 25 §2)."""

from __future__ import annotations

import pytest

from storage.nicks import clean_nick, looks_like, nick_key, profile_name

SPOOF = "Ira)\n\n☠ Killed tonight: #2 (Vera"


def test_a_nick_is_one_line_newlines_and_tabs_become_one_space() -> None:
    assert clean_nick(SPOOF) == "Ira) ☠ Killed tonight: #2 (Vera"[:32]
    assert "\n" not in clean_nick("a\r\nb\u2028c\u2029d\u0085e\tf\vg")
    assert clean_nick("a\r\nb\u2028c\u2029d\u0085e\tf\vg") == "a b c d e f g"


@pytest.mark.parametrize(
    "hidden",
    [
        "\u202e",  # right-to-left override
        "\u202d",  # left-to-right override
        "\u2066",  # left-to-right isolate
        "\u200f",  # right-to-left mark
        "\u200b",  # zero-width space
        "\u200c",  # zero-width non-joiner
        "\u2060",  # word joiner
        "\ufeff",  # byte order mark
        "\u00ad",  # soft hyphen
        "\u0000",  # NUL
        "\u001b",  # escape
        "\u007f",  # delete
        "\ue000",  # private use
        "\U000e0041",  # tag letter A
        "\u3164",  # Hangul filler: prints as blank
        "\u2800",  # braille blank
        "\u115f",  # Hangul choseong filler
    ],
)
def test_invisible_and_control_characters_are_removed(hidden: str) -> None:
    assert clean_nick(f"An{hidden}na") == "Anna"
    assert nick_key(f"An{hidden}na") == nick_key("Anna")


def test_nothing_but_invisible_characters_is_no_nick() -> None:
    assert clean_nick("\u200b\u202e \u3164\n") == ""


def test_a_nick_keeps_its_letters_emoji_and_spaces_and_is_cut_to_32() -> None:
    assert clean_nick("  Анна  Каренина ") == "Анна Каренина"
    assert clean_nick("Дон 🎩") == "Дон 🎩"
    assert clean_nick("x" * 50) == "x" * 32
    assert clean_nick("é") == "é"  # e + combining acute, composed


def test_a_pile_of_combining_marks_is_cut() -> None:
    zalgo = "Z" + "\u0336\u0337\u0338\u0321\u0322" * 4 + "a"
    assert clean_nick(zalgo) == "Z\u0336\u0337a"


def test_the_key_folds_invisible_characters_case_and_width() -> None:
    assert nick_key("Anna\u200b") == nick_key("anna") == nick_key("ＡＮＮＡ")
    assert nick_key("Алёна") == nick_key("АЛЕНА")
    assert nick_key("Anna❤\ufe0f") == nick_key("anna❤")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Anna", "\u0410nna"),  # Cyrillic А
        ("Ivan", "\u0406van"),  # Ukrainian І
        ("Popov", "\u0420\u043e\u0440\u043ev"),  # Cyrillic Р, о, р, о
        ("COCA", "\u0421\u041e\u0421\u0410"),  # all Cyrillic
        ("Olga", "\u039flga"),  # Greek Omicron
        ("Ilya", "llya"),  # capital i and small L
        ("Anna", "Anna\u200b"),
        ("Anna", "ANNA"),
    ],
)
def test_nicks_that_render_alike_look_alike(one: str, other: str) -> None:
    assert looks_like(one) == looks_like(other)


@pytest.mark.parametrize(("one", "other"), [("Анна", "Ahha"), ("Anna", "Anna 2"), ("Ira", "Ura")])
def test_nicks_that_read_differently_do_not(one: str, other: str) -> None:
    assert looks_like(one) != looks_like(other)


def test_a_profile_name_is_the_first_name_made_safe_else_the_next_thing_there_is() -> None:
    assert profile_name("Ira\u202e\n", "Petrova", "ira") == "Ira"
    assert profile_name("\u3164\u200b", "Petrova", "ira") == "Petrova"
    assert profile_name("\u3164", None, "ira") == "@ira"
    assert profile_name("", None, None, fallback="5") == "5"
