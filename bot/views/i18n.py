"""Translation catalogs: every text a person sees lives in bot/views/locales/<lang>.toml.

Values are `str.format` templates. Anything user-supplied (nicks, titles) is escaped
for HTML by the caller before it goes in, through `escape`.
"""

from __future__ import annotations

import html
import tomllib
from collections.abc import Sequence
from importlib import resources
from typing import Any

LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def clip(text: str, limit: int) -> str:
    """A name cut to `limit` characters with an ellipsis: for a chat's title (up to 128
    characters) inside a callback answer, which Telegram holds to 200."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _flatten(prefix: str, table: dict[str, Any], out: dict[str, str]) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(f"{name}.", value, out)
        else:
            out[name] = str(value)


def load_catalog(lang: str) -> dict[str, str]:
    data = tomllib.loads(resources.files("bot.views.locales").joinpath(f"{lang}.toml").read_text())
    flat: dict[str, str] = {}
    _flatten("", data, flat)
    return flat


class Texts:
    """All catalogs, loaded once at start-up and handed to whoever renders."""

    def __init__(self, default: str = DEFAULT_LANGUAGE) -> None:
        self.default = default
        self.catalogs = {lang: load_catalog(lang) for lang in LANGUAGES}

    def lang(self, wanted: str | None) -> str:
        if wanted:
            short = wanted.split("-")[0].lower()
            if short in self.catalogs:
                return short
        return self.default

    def __call__(self, lang: str, key: str, **values: Any) -> str:
        catalog = self.catalogs.get(lang) or self.catalogs[self.default]
        template = catalog.get(key) or self.catalogs[self.default][key]
        return template.format(**values) if values else template

    def has(self, lang: str, key: str) -> bool:
        return key in (self.catalogs.get(lang) or self.catalogs[self.default])

    def listing(self, lang: str, items: Sequence[str]) -> str:
        """Items as a person writes them: "A", "A и B", "A, B и C"."""
        if len(items) < 2:
            return "".join(items)
        return ", ".join(items[:-1]) + self(lang, "vote.and") + items[-1]

    def count(self, lang: str, key: str, n: int) -> str:
        """`n` with the word's form for it: "1 голос", "2 голоса", "5 голосов".

        The catalog keeps each word under `plural.<key>.<form>`, the forms of `plural_form`.
        """
        lang = lang if lang in self.catalogs else self.default
        return self(lang, f"plural.{key}.{plural_form(lang, n)}", n=n)


def plural_form(lang: str, n: int) -> str:
    """The CLDR plural category of a whole number: English has one/other, Russian
    one/few/many (1, 21, 101 голос; 2-4, 22-24 голоса; 0, 5-20, 25 голосов)."""
    n = abs(n)
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "other"


def decimal(lang: str, number: str) -> str:
    """A decimal as the language writes it: "1,2" in Russian, "1.2" in English."""
    return number.replace(".", ",") if lang == "ru" else number
