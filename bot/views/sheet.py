"""The protocol sheet (T3) as people read it: a message for a phone, a printable page.

Both are drawn from one `ProtocolSheet` (bot.tournament.protocol_sheet), so they never
disagree. The page is one self-contained HTML file: inline CSS, no scripts, no links,
every nick and reason escaped; it prints on one A4 sheet for a table of 16.
"""

from __future__ import annotations

import html
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.rules.events import Cause
from bot.tournament.protocol_sheet import Correction, Departure, ProtocolRow, ProtocolSheet
from bot.tournament.scoring import Scheme, format_tenths
from bot.views.i18n import Texts, decimal, escape


def points(lang: str, tenths: int, *, signed: bool = False) -> str:
    """Points as the language writes them: 1,2 in Russian, 1.2 in English."""
    return decimal(lang, format_tenths(tenths, signed=signed))


def _moment(t: Texts, lang: str, at: float | None, timezone: str) -> str:
    if at is None:
        return "—"
    return datetime.fromtimestamp(at, ZoneInfo(timezone)).strftime(t(lang, "sheet.date_format"))


def left_text(t: Texts, lang: str, left: Departure | None) -> str:
    """How and when a seat left, in the club's words: "Д2 голосование", "Н3 отстрел"."""
    if left is None:
        return t(lang, "sheet.left_stayed")
    when = t(lang, f"sheet.when_{left.phase}", n=left.number) if left.phase else ""
    if left.cause in (Cause.REMOVAL, Cause.DISQUALIFICATION):
        penalty = (
            t(lang, f"penalty.{left.penalty.value}")
            if left.penalty is not None
            else t(lang, f"sheet.left_{left.cause.value}")
        )
        why = t(lang, f"violation.{left.code.value if left.code else 'none'}")
        return t(lang, "sheet.left_removed", when=when, penalty=penalty, why=why).strip()
    return t(lang, f"sheet.left_{left.cause.value}", when=when).strip()


def _header(t: Texts, lang: str, doc: ProtocolSheet, timezone: str) -> dict[str, str]:
    if doc.tournament is None:
        event = t(lang, "sheet.casual")
    else:
        event = t(
            lang,
            "sheet.event",
            tournament=escape(doc.tournament),
            tour=doc.tour if doc.tour is not None else "—",
            table=escape(doc.table or "—"),
        )
    if doc.signed_by is None:
        signature = t(lang, "sheet.not_signed")
    else:
        signature = t(
            lang,
            "sheet.signature",
            host=escape(doc.signed_by),
            at=_moment(t, lang, doc.signed_at, timezone),
        )
    winner = t(lang, f"sheet.winner_{doc.winner.value}" if doc.winner else "sheet.winner_none")
    return {
        "game": str(doc.game_id),
        "event": event,
        "start": _moment(t, lang, doc.started_at, timezone),
        "end": _moment(t, lang, doc.ended_at, timezone),
        "host": escape(doc.host),
        "winner": winner,
        "signature": signature,
    }


def _change(t: Texts, lang: str, correction: Correction) -> str:
    change = correction.change
    if change.get("field") == "winner":
        return t(lang, f"sheet.fixed_winner_{change.get('value')}")
    if change.get("field") == "scheme":
        scheme = Scheme.from_json(change)
        return t(
            lang,
            "sheet.fixed_scheme",
            coefficient=points(lang, scheme.bonus_coefficient),
            threshold=scheme.bonus_threshold,
        )
    key = "sheet.fixed_point_yes" if change.get("value") else "sheet.fixed_point_no"
    return t(lang, key, seat=change.get("seat"))


def _per_win(t: Texts, lang: str, doc: ProtocolSheet) -> str:
    return t(lang, "sheet.per_win", points=points(lang, doc.per_win or 0))


def _winner_cell(t: Texts, lang: str, doc: ProtocolSheet) -> str:
    return "—" if doc.winner is None else t(lang, f"sheet.won_by_{doc.winner.value}")


def _result(t: Texts, lang: str, row: ProtocolRow) -> str:
    # T3: in words, so that a black-and-white print says it without colour or emoji.
    return t(lang, "sheet.result_won" if row.won else "sheet.result_lost")


def _points_cell(lang: str, row: ProtocolRow) -> str:
    return "—" if row.tenths is None else points(lang, row.tenths)


def sheet_message(t: Texts, lang: str, doc: ProtocolSheet, timezone: str) -> str:
    """The sheet as one Telegram message (HTML parse mode), a line per seat."""
    head = _header(t, lang, doc, timezone)
    lines = []
    for row in doc.rows:
        parts = [
            t(lang, f"role.{row.role.value}"),
            _result(t, lang, row),
            left_text(t, lang, row.left),
        ]
        if row.warnings:
            parts.append(t(lang, "sheet.warnings", n=row.warnings))
        if row.tenths is not None:
            parts.append(t(lang, "sheet.points", points=_points_cell(lang, row)))
        mark = "🏆" if row.won else "·"
        lines.append(f"{mark} <b>{row.seat}</b>. {escape(row.nick)} — " + " · ".join(parts))
    corrections = "\n".join(
        t(
            lang,
            "sheet.correction",
            at=_moment(t, lang, c.at, timezone),
            change=_change(t, lang, c),
            reason=escape(c.reason),
        )
        for c in doc.corrections
    ) or t(lang, "sheet.no_changes")
    per_win = "\n" + _per_win(t, lang, doc) if doc.per_win is not None else ""
    if doc.absent:
        absent = t.listing(lang, [escape(n) for n in doc.absent])
        lines.append(t(lang, "sheet.absent", names=absent))
    return t(
        lang,
        "sheet.message",
        rows="\n".join(lines),
        corrections=corrections,
        per_win=per_win,
        **head,
    )


_CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;margin:2em;color:#000}
h1{font-size:1.4em;margin:0 0 .3em}
p{margin:.2em 0}
table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #444;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#eee}
td.n,th.n{text-align:right;white-space:nowrap}
tr.won td:first-child{font-weight:bold}
.winner{font-size:1.15em;font-weight:bold}
.sign{margin-top:2em}
@media print{body{margin:1cm}th{background:none}a{color:#000}}
"""


def sheet_html(t: Texts, lang: str, doc: ProtocolSheet, timezone: str) -> str:
    """The same sheet as a printable, self-contained HTML page."""
    head = _header(t, lang, doc, timezone)

    def e(text: object) -> str:
        return html.escape(str(text), quote=True)

    columns = [
        ("n", t(lang, "sheet.col_seat")),
        ("", t(lang, "sheet.col_nick")),
        ("", t(lang, "sheet.col_role")),
        ("", t(lang, "sheet.col_winner")),
        ("", t(lang, "sheet.col_result")),
        ("", t(lang, "sheet.col_left")),
        ("n", t(lang, "sheet.col_warnings")),
        ("n", t(lang, "sheet.col_points")),
    ]
    header = "".join(f'<th class="{c}">{e(name)}</th>' for c, name in columns)
    body = []
    for row in doc.rows:
        cells = [
            ("n", e(row.seat)),
            ("", e(row.nick)),
            ("", e(t(lang, f"role.{row.role.value}"))),
            ("", e(_winner_cell(t, lang, doc))),
            ("", e(_result(t, lang, row))),
            ("", e(left_text(t, lang, row.left))),
            ("n", e(row.warnings or "")),
            ("n", e(_points_cell(lang, row))),
        ]
        tds = "".join(f'<td class="{c}">{v}</td>' for c, v in cells)
        body.append(f'<tr class="{"won" if row.won else "lost"}">{tds}</tr>')
    corrections = "".join(
        "<li>"
        + e(_moment(t, lang, c.at, timezone))
        + " — "
        + e(_change(t, lang, c))
        + ": "
        + e(c.reason)
        + "</li>"
        for c in doc.corrections
    )
    # The header values are already escaped for Telegram's HTML, which is HTML too.
    title = t(lang, "sheet.title", game=doc.game_id)
    return (
        f'<!DOCTYPE html>\n<html lang="{e(lang)}"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{e(title)}</h1>"
        f"<p>{head['event']}</p>"
        f"<p>{t(lang, 'sheet.times', start=head['start'], end=head['end'])}</p>"
        f"<p>{t(lang, 'sheet.host', host=head['host'])}</p>"
        f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        + (
            f"<p>{t(lang, 'sheet.absent', names=', '.join(escape(n) for n in doc.absent))}</p>"
            if doc.absent
            else ""
        )
        + f'<p class="winner">{head["winner"]}</p>'
        + (f"<p>{e(_per_win(t, lang, doc))}</p>" if doc.per_win is not None else "")
        + f"<h2>{e(t(lang, 'sheet.corrections'))}</h2>"
        + (f"<ul>{corrections}</ul>" if corrections else f"<p>{e(t(lang, 'sheet.no_changes'))}</p>")
        + f'<p class="sign">{head["signature"]}</p>'
        "</body></html>\n"
    )
