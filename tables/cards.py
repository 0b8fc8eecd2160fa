"""Table cards and score sheets: one PDF page per table of a stage, drawn with ReportLab."""

import io
import itertools
from collections.abc import Callable
from xml.sax.saxutils import escape

import segno
from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import (
    Flowable,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)
from reportlab.platypus import Table as GridTable

from tables import selectors
from tables.models import Table
from tournaments.models import Stage
from tournaments.presets import get_preset

QR_SIZE = 1.4 * inch


class QrCode(Flowable):
    """A QR code, drawn as one filled path of each row's dark runs inside a quiet zone of four
    modules. segno encodes; reportlab's own widget encoded each code twice and drew every
    module as a node of its own: 14 of the 17 s that a PDF of 250 tables took."""

    QUIET_ZONE = 4

    def __init__(self, text: str, size: float) -> None:
        super().__init__()
        self.rows = segno.make(text, error="m", micro=False).matrix
        self.width = self.height = size

    def draw(self) -> None:
        modules = len(self.rows) + 2 * self.QUIET_ZONE
        unit = self.width / modules
        path = self.canv.beginPath()
        for y, row in enumerate(self.rows):
            bottom = (modules - self.QUIET_ZONE - y - 1) * unit
            x = self.QUIET_ZONE
            for dark, run in itertools.groupby(row):
                length = sum(1 for _ in run)
                if dark:
                    path.rect(x * unit, bottom, length * unit, unit)
                x += length
        self.canv.drawPath(path, stroke=0, fill=1)


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    return {
        "event": ParagraphStyle("event", parent=base["Title"], fontSize=20, leading=24,
                                alignment=0, spaceAfter=2),
        "table": ParagraphStyle("table", parent=base["Title"], fontSize=40, leading=44,
                                alignment=0, spaceAfter=4),
        "body": ParagraphStyle("body", parent=base["BodyText"], fontSize=13, leading=17),
        "cell": ParagraphStyle("cell", parent=base["BodyText"], fontSize=11, leading=13),
        "small": ParagraphStyle("small", parent=base["BodyText"], fontSize=9, leading=11),
    }  # fmt: skip


def _table_page(stage: Stage, table: Table, entry_url: str, styles: dict) -> list:
    seats = list(table.seats.all())
    preset = get_preset(stage.tournament.preset)
    tiles = preset.tiles_dealt(stage.domino_set, len(seats))
    heading = [
        Paragraph(escape(stage.tournament.name), styles["event"]),
        Paragraph(escape(stage.name), styles["body"]),
        Paragraph(_("Table %(number)s") % {"number": table.number}, styles["table"]),
        Paragraph(
            _(
                "Deal <b>%(tiles)s tiles</b> to each of the %(players)s players "
                "(double-%(set)s set)."
            )
            % {"tiles": tiles, "players": len(seats), "set": stage.domino_set},
            styles["body"],
        ),
    ]
    qr_cell = [QrCode(entry_url, QR_SIZE), Paragraph(_("Scan to enter scores"), styles["small"])]
    top = GridTable([[heading, qr_cell]], colWidths=[5.4 * inch, 1.6 * inch])
    top.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))

    seat_lines = []
    for seat in seats:
        line = (
            _("Seat %(seat)s: #%(number)s %(name)s (plays from round %(round)s)")
            if seat.from_round > 1
            else _("Seat %(seat)s: #%(number)s %(name)s")
        )
        values = {
            "seat": seat.position,
            "number": seat.player.number,
            "name": escape(seat.player.name),
            "round": seat.from_round,
        }
        seat_lines.append(Paragraph(line % values, styles["body"]))

    header = [Paragraph("<b>" + _("Round (engine)") + "</b>", styles["cell"])] + [
        Paragraph(f"<b>{escape(seat.player.name)}</b><br/>#{seat.player.number}", styles["cell"])
        for seat in seats
    ]
    rows = [header]
    for round_no, engine in enumerate(stage.engines, start=1):
        label = _("%(round)s (double-%(engine)s)") % {"round": round_no, "engine": engine}
        rows.append([Paragraph(label, styles["cell"])] + [""] * len(seats))
    rows.append([Paragraph("<b>" + _("Total") + "</b>", styles["cell"])] + [""] * len(seats))
    first = 1.3 * inch
    width = (7.0 * inch - first) / max(len(seats), 1)
    grid = GridTable(rows, colWidths=[first] + [width] * len(seats),
                     rowHeights=[0.55 * inch] + [0.5 * inch] * (len(rows) - 1))  # fmt: skip
    grid.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.8, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
        ("BACKGROUND", (0, -1), (-1, -1), colors.HexColor("#f2f2f2")),
        ("LINEABOVE", (0, -1), (-1, -1), 2, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ]))  # fmt: skip
    return [
        top,
        Spacer(1, 0.1 * inch),
        *seat_lines,
        Spacer(1, 0.2 * inch),
        grid,
        Spacer(1, 0.25 * inch),
        Paragraph(_("Lowest total wins. The player who goes out scores 0; "
                    "in a blocked round everyone scores their pips."), styles["small"]),
        Spacer(1, 0.35 * inch),
        # The lines to sign on are not words: only the labels are translated.
        Paragraph(_("Official's signature:") + " ________________________________",
                  styles["body"]),
        Spacer(1, 0.25 * inch),
        Paragraph(_("Players checked the totals (initials):") + " ________________",
                  styles["body"]),
    ]  # fmt: skip


def stage_cards_pdf(stage: Stage, *, entry_url: Callable[[Table], str]) -> bytes:
    """The stage's table cards as one PDF, a page per table in table order."""
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer, pagesize=letter,
        title=_("%(tournament)s: %(stage)s table cards")
        % {"tournament": stage.tournament.name, "stage": stage.name},
        author="Roundhouse", leftMargin=0.75 * inch, rightMargin=0.75 * inch,
        topMargin=0.6 * inch, bottomMargin=0.6 * inch,
    )  # fmt: skip
    styles = _styles()
    story: list = []
    for table in selectors.tables_with_seats(stage):
        if story:
            story.append(PageBreak())
        story.extend(_table_page(stage, table, entry_url(table), styles))
    document.build(story)
    return buffer.getvalue()
