"""Table cards and score sheets: one PDF page per table of a stage, drawn with ReportLab."""

import io
from collections.abc import Callable

from django.utils.translation import gettext as _
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import (
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


def _qr(url: str) -> Drawing:
    widget = QrCodeWidget(url)
    left, bottom, right, top = widget.getBounds()
    drawing = Drawing(QR_SIZE, QR_SIZE, transform=[
        QR_SIZE / (right - left), 0, 0, QR_SIZE / (top - bottom), 0, 0
    ])  # fmt: skip
    drawing.add(widget)
    return drawing


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
        Paragraph(stage.tournament.name, styles["event"]),
        Paragraph(stage.name, styles["body"]),
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
    qr_cell = [_qr(entry_url), Paragraph(_("Scan to enter scores"), styles["small"])]
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
            "name": seat.player.name,
            "round": seat.from_round,
        }
        seat_lines.append(Paragraph(line % values, styles["body"]))

    header = [Paragraph("<b>" + _("Round (engine)") + "</b>", styles["cell"])] + [
        Paragraph(f"<b>{seat.player.name}</b><br/>#{seat.player.number}", styles["cell"])
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
