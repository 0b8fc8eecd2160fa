"""Table cards and score sheets: one PDF page per table of a stage, drawn with ReportLab."""

import functools
import io
import itertools
from collections.abc import Callable
from xml.sax.saxutils import escape

import pymupdf_fonts
import segno
from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
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

# Noto Sans, from pymupdf-fonts (its static Regular and Bold, OFL): Helvetica's WinAnsiEncoding
# printed a name with Ł, ğ, ễ, Greek or Cyrillic letters as black boxes; Noto Sans has Latin
# Extended-A and -B, Vietnamese, Greek and Cyrillic. A character it lacks (an emoji) prints as
# a blank, the rest of the name as typed.
FONT, FONT_BOLD = "NotoSans", "NotoSans-Bold"


@functools.cache
def register_fonts() -> None:
    """Register the cards' font with ReportLab, once per process (about 50 ms). The PDF embeds
    only the glyphs that it uses (ReportLab subsets TrueType fonts)."""
    for name, face in [(FONT, "notos"), (FONT_BOLD, "notosbo")]:
        pdfmetrics.registerFont(TTFont(name, io.BytesIO(pymupdf_fonts.myfont(face))))
    # <b> in a paragraph picks the bold face; the cards have no italics.
    pdfmetrics.registerFontFamily(
        FONT, normal=FONT, bold=FONT_BOLD, italic=FONT, boldItalic=FONT_BOLD
    )


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
    """The sizes are Helvetica's less 4 to 5 %: names set in Noto Sans, a wider font, then
    break where they did in Helvetica (the columns of the score grid and its header's row
    height are fixed), at about the same height of the lowercase letters. The leading is
    unchanged."""
    register_fonts()
    base = getSampleStyleSheet()
    title = {"parent": base["Title"], "fontName": FONT_BOLD, "alignment": 0}
    text = {"parent": base["BodyText"], "fontName": FONT}
    return {
        "event": ParagraphStyle("event", **title, fontSize=19, leading=24, spaceAfter=2),
        "table": ParagraphStyle("table", **title, fontSize=38, leading=44, spaceAfter=4),
        "body": ParagraphStyle("body", **text, fontSize=12.5, leading=17),
        "cell": ParagraphStyle("cell", **text, fontSize=10.5, leading=13),
        "small": ParagraphStyle("small", **text, fontSize=8.5, leading=11),
    }


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
