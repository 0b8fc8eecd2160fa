"""The final results as a PDF: the tournament, its dates, the placings, then each closed stage's
final standings on pages of their own, in the request's language. Drawn with ReportLab in the
table cards' fonts (tables.cards), so names in any script print as they do on the cards."""

import io
from xml.sax.saxutils import escape

from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, TableStyle
from reportlab.platypus import Table as GridTable

from scoring import standings
from scoring.results import FinalResults, stage_rows
from tables import cards
from tournaments.models import Stage, Tournament

WIDTH = 7.0 * inch  # letter, less margins of 0.75 in
# The standings' fixed columns (rank, table, total); the rounds share what the player's name
# leaves, up to ROUND_MAX each: 16 rounds (a double-15 stage) get 0.25 in each, room for "R16"
# and 3 digits at 7.5 pt.
RANK, TABLE, TOTAL = 0.45 * inch, 0.45 * inch, 0.6 * inch
PLAYER_MIN, ROUND_MAX = 1.5 * inch, 0.45 * inch

GRID = [
    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
    ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ("ALIGN", (0, 0), (-1, -1), "RIGHT"),
    ("LEFTPADDING", (0, 0), (-1, -1), 2),
    ("RIGHTPADDING", (0, 0), (-1, -1), 2),
]


def _number_style(style: ParagraphStyle) -> ParagraphStyle:
    return ParagraphStyle(f"{style.name}-number", parent=style, alignment=TA_RIGHT)


def _player(row_name: str, number: int, note: str, style: ParagraphStyle, width: float):
    markup = cards.name_markup(row_name, style, width=width - 4)  # less the padding
    markup += f" #{number}"
    if note:
        markup += f" ({cards.name_markup(note, style)})"
    return cards.paragraph(markup, style)


def _bold(label: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(f"<b>{escape(label)}</b>", style)


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


def _placings(results: FinalResults, styles: dict) -> list:
    """Each division's placings with their medals (a tournament with divisions), then everyone's."""
    story: list = []
    in_flights = bool(results.divisions) and getattr(results.divisions[0].division, "flight", False)
    for group in results.divisions:
        if group.division:
            title = group.division.title
        else:
            title = _("No flight") if in_flights else _("No division")
        story += [*_grid(title, group.placings, styles, in_division=True), Spacer(1, 12)]
    title = _("Overall placings") if results.divisions else _("Final placings")
    return story + _grid(title, results.placings, styles, in_division=False)


def _prize(placed, in_division: bool) -> str:
    return placed.division_prize if in_division else placed.prize


def _grid(title: str, placings: list, styles: dict, *, in_division: bool) -> list:
    cell, number = styles["cell"], _number_style(styles["cell"])
    widths = [0.8 * inch, 3.4 * inch, 1.9 * inch, 0.9 * inch]
    if in_division:
        widths = [1.3 * inch, 2.9 * inch, 1.9 * inch, 0.9 * inch]
    # An announced prize table (scoring.awards): a Prize column, taken from the player's and
    # the stage's.
    prized = any(_prize(p, in_division) for p in placings)
    if prized:
        widths = [widths[0], widths[1] - 0.9 * inch, widths[2] - 0.7 * inch, widths[3], 1.6 * inch]
    header = [
        _bold(_("Place"), number),
        _bold(_("Player"), cell),
        _bold(_("Last stage played"), cell),
        _bold(_("Total"), number),
    ]
    if prized:
        header.append(_bold(_("Prize"), cell))
    rows = [header]
    for placed in placings:
        shown = placed.division_place if in_division else placed.place
        place = "\u2013" if shown is None else str(shown)  # withdrew: no division place
        if in_division and placed.medal:
            place = f"{place} {placed.medal_name}"
        row = [
            Paragraph(escape(place), number),
            _player(placed.player.name, placed.player.number, "", cell, widths[1]),
            cards.paragraph(cards.name_markup(placed.stage.display_name, cell), cell),
            Paragraph(_number(placed.total), number),
        ]
        if prized:
            row.append(cards.paragraph(cards.name_markup(_prize(placed, in_division), cell), cell))
        rows.append(row)
    grid = GridTable(rows, colWidths=widths, repeatRows=1)
    grid.setStyle(TableStyle(GRID))
    return [_bold(title, styles["body"]), Spacer(1, 4), grid]


def _stage_standings(stage: Stage, styles: dict) -> list:
    rounds = range(1, stage.rounds + 1)
    room = WIDTH - RANK - TABLE - TOTAL
    per_round = min(ROUND_MAX, (room - PLAYER_MIN) / max(len(rounds), 1))
    player_width = room - per_round * len(rounds)
    size = 9 if per_round >= 0.3 * inch else 7.5
    cell = ParagraphStyle("standings", parent=styles["cell"], fontSize=size, leading=size + 2)
    number = _number_style(cell)
    header = [
        _bold(_("Rank"), number),
        _bold(_("Player"), cell),
        _bold(_("Table"), number),
        *(_bold(_("R%(n)s") % {"n": n}, number) for n in rounds),
        _bold(_("Total"), number),
    ]
    rows = [header]
    for row in stage_rows(stage):
        note = standings.note_text(row["note"]) if row["note"] else ""
        rows.append(
            [
                f"{row['rank']}{'=' if row['tied'] else ''}",
                _player(row["player"]["name"], row["player"]["number"], note, cell, player_width),
                "" if row["table"] is None else str(row["table"]),
                *(_number(row["scores"].get(str(n))) for n in rounds),
                _bold(str(row["total"]), number),
            ]
        )
    grid = GridTable(
        rows,
        colWidths=[RANK, player_width, TABLE] + [per_round] * len(rounds) + [TOTAL],
        repeatRows=1,
    )
    grid.setStyle(
        TableStyle(
            [
                *GRID,
                ("FONTNAME", (0, 1), (-1, -1), cards.FONT),
                ("FONTSIZE", (0, 1), (-1, -1), size),
            ]
        )
    )
    heading = _("%(stage)s: final standings") % {"stage": stage.display_name}
    return [
        cards.paragraph(f"<b>{cards.name_markup(heading, styles['body'])}</b>", styles["body"]),
        Spacer(1, 4),
        grid,
    ]


def _printed(tournament: Tournament) -> str:
    """When the PDF was made, in the tournament's time zone (as the table cards say it)."""
    now = timezone.localtime(timezone.now(), tournament.zone)
    when = formats.date_format(now, "DATETIME_FORMAT")
    return pgettext("final results", "Printed %(when)s (%(zone)s)") % {
        "when": when,
        "zone": tournament.time_zone,
    }


def _page_number(canvas, document) -> None:
    """'Page 2' at the foot of each page: the stages' standings run over several."""
    canvas.saveState()
    canvas.setFont(cards.FONT, 8)
    text = _("Page %(page)s") % {"page": document.page}
    canvas.drawRightString(letter[0] - 0.75 * inch, 0.35 * inch, text)
    canvas.restoreState()


def results_pdf(results: FinalResults, dates: str) -> bytes:
    """The final results of a decided event (results.decided) as a PDF."""
    tournament = results.tournament
    styles = cards.styles()
    buffer = io.BytesIO()
    title = _("%(tournament)s: final results") % {"tournament": tournament.name}
    document = SimpleDocTemplate(
        buffer, pagesize=letter, title=title, author="Roundhouse",
        leftMargin=0.75 * inch, rightMargin=0.75 * inch, topMargin=0.6 * inch,
        bottomMargin=0.6 * inch,
    )  # fmt: skip
    subtitle = f"<b>{escape(_('Final results'))}</b>"
    if when := " · ".join(part for part in (dates, tournament.venue) if part):
        subtitle += f" · {cards.name_markup(when, styles['body'])}"
    story: list = [
        *cards.practice_lines(tournament, styles),
        cards.paragraph(cards.name_markup(tournament.name, styles["event"]), styles["event"]),
        cards.paragraph(subtitle, styles["body"]),
        Paragraph(_printed(tournament), styles["small"]),
        Spacer(1, 0.2 * inch),
        *_placings(results, styles),
    ]
    for stage in results.stages:
        story += [PageBreak(), *_stage_standings(stage, styles)]
    document.build(story, onFirstPage=_page_number, onLaterPages=_page_number)
    return buffer.getvalue()
