"""Table cards and score sheets: one PDF page per table of a stage, drawn with ReportLab."""

import functools
import io
import itertools
import logging
import unicodedata
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin
from xml.sax.saxutils import escape

import pymupdf_fonts
import segno
import uharfbuzz
from bidi.algorithm import get_base_level, get_display
from bidi.mirror import MIRRORED
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont, shapeFragWord
from reportlab.platypus import (
    Flowable,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)
from reportlab.platypus import Table as GridTable

from tables import reporting, selectors
from tables.models import Table
from tournaments.models import Invitation, Stage, Tournament
from tournaments.presets import get_preset

QR_SIZE = 1.4 * inch

# Noto Sans, from pymupdf-fonts (its static Regular and Bold, OFL): Helvetica's WinAnsiEncoding
# printed a name with Ł, ğ, ễ, Greek or Cyrillic letters as black boxes; Noto Sans has Latin
# Extended-A and -B, Vietnamese, Greek and Cyrillic. A character that neither it nor a fallback
# font has (an emoji) prints as a blank, the rest of the name as typed.
FONT, FONT_BOLD = "NotoSans", "NotoSans-Bold"

# The fallback fonts, (regular, bold), tried in turn for a run of characters that Noto Sans
# lacks. FiraGO (pymupdf-fonts, OFL) has Arabic and Hebrew. WenQuanYi Micro Hei has Chinese,
# Japanese and Korean alike in TrueType outlines, which ReportLab needs (Noto Sans CJK is in
# CFF), and no bold. It comes from Debian's fonts-wqy-microhei (Apache 2.0 or GPLv3 with the
# font exception; deploy/Dockerfile and .ci/run install it), at Debian's path. Without it, CJK
# letters print blank, as an emoji does, and the rest of the name as typed (a warning says so,
# and `manage.py check`). ReportLab's own CID fonts are not embedded: without a CJK font on the
# reader's machine, pdfium (Chrome's viewer) drew nothing and poppler drew boxes.
FALLBACKS = [("FiraGO", "FiraGO-Bold"), ("WenQuanYiMicroHei", "WenQuanYiMicroHei")]
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
CJK_MISSING = (
    f"The CJK font {CJK_FONT} is missing: Chinese, Japanese and Korean letters print blank on "
    "table cards and results PDFs. Install Debian's fonts-wqy-microhei."
)

logger = logging.getLogger(__name__)

# Bidi classes of the strong right-to-left letters (Hebrew, Arabic).
RTL = frozenset({"R", "AL"})


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


@functools.cache
def fallback_fonts() -> list[tuple[str, str, dict]]:
    """Register the fallback fonts on the first name that needs one (about 120 ms, once per
    process): (regular, bold, the characters that they have) for each."""
    available = FALLBACKS
    fonts = [
        (FALLBACKS[0][0], io.BytesIO(pymupdf_fonts.myfont("figo"))),
        (FALLBACKS[0][1], io.BytesIO(pymupdf_fonts.myfont("figbo"))),
    ]
    if CJK_FONT.is_file():
        fonts.append((FALLBACKS[1][0], str(CJK_FONT)))
    else:
        logger.warning(CJK_MISSING)
        available = FALLBACKS[:1]
    for name, source in fonts:
        pdfmetrics.registerFont(TTFont(name, source))
    # ReportLab's shaping asks HarfBuzz for discretionary ligatures too (dlig, which a font
    # leaves for the typesetter to ask for): FiraGO's made the yod and vav of יוסף one Yiddish
    # letter, ױ, the wrong way round. It has no setting for them: its default features, off.
    shapeFragWord.__defaults__[0]["dlig"] = False
    return [
        (regular, bold, pdfmetrics.getFont(regular).face.charToGlyph) for regular, bold in available
    ]


def _font_for(char: str) -> tuple[str, str] | None:
    """The fallback (regular, bold) that has char, or None for Noto Sans (or for none)."""
    if char.isspace() or ord(char) in pdfmetrics.getFont(FONT).face.charToGlyph:
        return None
    for regular, bold, chars in fallback_fonts():
        if ord(char) in chars:
            return regular, bold
    return None


def _is_rtl(word: str) -> bool:
    return any(unicodedata.bidirectional(char) in RTL for char in word)


def _harfbuzz_rtl(text: str) -> bool:
    """Whether HarfBuzz lays text out right to left, as it does when a shaped paragraph (see
    _paragraph) hands it a word: it takes the direction from the word's first letter of a
    script (Hebrew, Arabic: right to left), not from the bidi algorithm."""
    buffer = uharfbuzz.Buffer()
    buffer.add_str(text)
    buffer.guess_segment_properties()
    return buffer.direction == "rtl"


def _to_shape(visual: str) -> str:
    """What to hand HarfBuzz for it to draw the word visual (left to right as it should
    print): reversed if HarfBuzz would turn that round (it joins Arabic letters in their
    reading order), its brackets mirrored back (HarfBuzz mirrors them again). One word of two
    directions whose second part would set the wrong one (Latin after Hebrew, on a
    right-to-left line) prints reversed."""
    backwards = "".join(MIRRORED.get(char, char) for char in reversed(visual))
    return backwards if _harfbuzz_rtl(backwards) else visual


def _width(word: str, fonts: tuple[str, str] | None, bold: bool, size: float) -> float:
    return pdfmetrics.stringWidth(word, (fonts or (FONT, FONT_BOLD))[bold], size)


def _rtl_font(word: str) -> tuple[str, str] | None:
    """The font for a word with right-to-left letters, whole (HarfBuzz shapes a word in one)."""
    return next(filter(None, map(_font_for, word)), None) if _is_rtl(word) else None


def _bidi_lines(text: str, bold: bool, size: float, width: float | None) -> list[list[str]]:
    """text with right-to-left letters as lines of words, each line in the order it prints,
    left to right: wrapped within width in reading order first (the first words on the first
    line), then each line reordered by the Unicode bidi algorithm (python-bidi's Python one:
    its Rust get_display leaves brackets unmirrored), in the direction of the text's first
    strong letter, as dir="auto" does."""
    words = text.split()
    lines = [[words[0]]]
    for word in words[1:]:
        longer = " ".join([*lines[-1], word])
        if width is None or _width(longer, _rtl_font(longer), bold, size) <= width:
            lines[-1].append(word)
        else:
            lines.append([word])
    base = "R" if get_base_level(text) else "L"
    return [get_display(" ".join(line), base_dir=base).split(" ") for line in lines]


def _markup(
    text: str, style: ParagraphStyle, *, bold: bool = False, width: float | None = None
) -> str:
    """text as Paragraph markup: XML-escaped, and each run of characters that Noto Sans lacks
    in a fallback font that has them. Text with Arabic or Hebrew letters is put in the order it
    prints (see _bidi_lines), its lines within width broken here; a word with such letters goes
    to the fallback font whole, and is shaped by HarfBuzz (see _paragraph), which joins Arabic
    letters. 'Dov-כהן' prints Dov then כהן right to left; 'علي 12 حسن', right to left."""
    bold = bold or style.fontName == FONT_BOLD
    lines = [text.split()]
    if _is_rtl(text):
        lines = _bidi_lines(text.strip(), bold, style.fontSize, width)
    markup = []
    for line in lines:
        pieces: list[tuple[tuple[str, str] | None, str]] = []
        for word in line:
            if pieces:
                pieces.append((None, " "))
            if _is_rtl(word):
                pieces.append((_rtl_font(word), _to_shape(word)))
            else:
                pieces.extend((_font_for(char), char) for char in word)
        runs = []
        for fonts, run in itertools.groupby(pieces, key=lambda piece: piece[0]):
            escaped = escape("".join(char for _, char in run))
            runs.append(f'<font name="{fonts[bold]}">{escaped}</font>' if fonts else escaped)
        markup.append("".join(runs))
    return "<br/>".join(markup)


def _paragraph(markup: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph with right-to-left letters is shaped by HarfBuzz, which joins Arabic letters
    and lays each word out right to left. Only such a paragraph is: shaping would kern Latin
    letters too, and takes time."""
    if _is_rtl(markup):
        style = ParagraphStyle(f"{style.name}-shaped", parent=style, shaping=1)
    return Paragraph(markup, style)


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
        # A players' table's code: its label in the body's size, the code as large as the table.
        "code": ParagraphStyle("code", **text, fontSize=12.5, leading=44, spaceBefore=4),
        "body": ParagraphStyle("body", **text, fontSize=12.5, leading=17),
        "cell": ParagraphStyle("cell", **text, fontSize=10.5, leading=13),
        "small": ParagraphStyle("small", **text, fontSize=8.5, leading=11),
    }


def practice_lines(tournament: Tournament, styles: dict) -> list:
    """A practice tournament's mark atop every page it prints (cards, invitations, results):
    a rehearsal's sheet is never taken for the real event's. Nothing for a real one."""
    if not tournament.practice:
        return []
    said = _markup(_("PRACTICE: a rehearsal, not the real event"), styles["table"])
    return [_paragraph(said, styles["table"])]


def _table_page(
    stage: Stage, table: Table, entry_url: str, styles: dict, seat_url: str | None = None
) -> list:
    """A table's card: `seat_url`, the page its players claim their seats on, when they enter
    its rounds (its code is then printed large beside that page's QR code)."""
    seats = list(table.seats.all())
    heading_width = 5.4 * inch - 12  # a cell's text: its width less the padding, 6 pt a side
    preset = get_preset(stage.tournament.preset)
    # The deal is for who plays now: a card printed again after a withdrawal or a late entry
    # deals for the players still at the table, from the round the table changed.
    # (One who withdrew after the last round played every round: the table's deal is theirs.)
    playing = [s for s in seats if s.to_round is None or s.to_round >= stage.rounds]
    changed = [s.from_round for s in seats if s.from_round > 1] + [
        s.to_round + 1 for s in seats if s.to_round is not None
    ]
    since = max(changed, default=None)
    try:
        tiles = preset.tiles_dealt(stage.domino_set, len(playing))
    except ValueError:  # fewer left than the preset deals for: the deal the table was seated with
        playing, since = seats, None
        tiles = preset.tiles_dealt(stage.domino_set, len(seats))
    deal = _(
        "Deal <b>%(tiles)s tiles</b> to each of the %(players)s players (double-%(set)s set)."
    ) % {"tiles": tiles, "players": len(playing), "set": stage.domino_set}
    first = min((s.from_round for s in seats), default=1)
    if first > 1 and since == first:  # a table opened for late players, as it was opened
        deal += " " + _("The table plays from round %(round)s.") % {"round": first}
    elif since is not None and since <= stage.rounds:
        deal += " " + _("From round %(round)s, as the table is now.") % {"round": since}
    heading = [
        *practice_lines(stage.tournament, styles),
        _paragraph(
            _markup(stage.tournament.name, styles["event"], width=heading_width), styles["event"]
        ),
        _paragraph(
            _markup(stage.display_name, styles["body"], width=heading_width), styles["body"]
        ),
        Paragraph(_("Table %(number)s") % {"number": table.number}, styles["table"]),
        Paragraph(deal, styles["body"]),
    ]
    if above := selectors.over_max_note(stage, seats):
        heading.append(Paragraph(f"<b>{escape(above)}</b>", styles["body"]))
    if seat_url is None:
        qr_cell = [
            QrCode(entry_url, QR_SIZE),
            Paragraph(_("Scan to enter scores"), styles["small"]),
        ]
    else:  # the players enter the rounds: the code, large, and the QR code of its seat page
        code = f"{escape(_('Table code'))} <font size=38><b>{escape(table.code)}</b></font>"
        heading.append(Paragraph(code, styles["code"]))
        hint = _("Scan, then type your badge number")
        qr_cell = [QrCode(seat_url, QR_SIZE), Paragraph(hint, styles["small"])]
    top = GridTable([[heading, qr_cell]], colWidths=[5.4 * inch, 1.6 * inch])
    top.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))

    seat_lines = []
    for seat in seats:
        if seat.to_round is not None and seat.to_round < seat.from_round:
            line = _("Seat %(seat)s: #%(number)s %(name)s (withdrew before playing)")
        elif seat.to_round is not None:
            line = _("Seat %(seat)s: #%(number)s %(name)s (withdrew after round %(last)s)")
        elif seat.from_round > 1:
            line = _("Seat %(seat)s: #%(number)s %(name)s (plays from round %(round)s)")
        else:
            line = _("Seat %(seat)s: #%(number)s %(name)s")
        values = {
            "seat": seat.position,
            "number": seat.player.number,
            "name": _markup(seat.player.name, styles["body"]),
            "round": seat.from_round,
            "last": seat.to_round,
        }
        seat_lines.append(_paragraph(line % values, styles["body"]))

    first = 1.3 * inch
    width = (7.0 * inch - first) / max(len(seats), 1)
    header = [Paragraph("<b>" + _("Round (engine)") + "</b>", styles["cell"])] + [
        _paragraph(
            f"<b>{_markup(seat.player.name, styles['cell'], bold=True, width=width - 12)}</b>"
            f"<br/>#{seat.player.number}",
            styles["cell"],
        )
        for seat in seats
    ]
    rows = [header]
    for round_no, engine in enumerate(stage.engines, start=1):
        label = _("%(round)s (double-%(engine)s)") % {"round": round_no, "engine": engine}
        rows.append([Paragraph(label, styles["cell"])] + [""] * len(seats))
    rows.append([Paragraph("<b>" + _("Total") + "</b>", styles["cell"])] + [""] * len(seats))
    grid = GridTable(rows, colWidths=[first] + [width] * len(seats),
                     rowHeights=[0.55 * inch] + [0.5 * inch] * (len(rows) - 1))  # fmt: skip
    grid.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.8, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
        ("BACKGROUND", (0, -1), (-1, -1), colors.HexColor("#f2f2f2")),
        ("LINEABOVE", (0, -1), (-1, -1), 2, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        # A round a seat does not play (before a late entry sat down, after a withdrawal) is
        # shaded: no score goes there.
        *(
            ("BACKGROUND", (column, round_no), (column, round_no), colors.HexColor("#bdbdbd"))
            for column, seat in enumerate(seats, start=1)
            for round_no in range(1, stage.rounds + 1)
            if not seat.plays_round(round_no)
        ),
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
        Spacer(1, 0.2 * inch),
        Paragraph(_printed(stage), styles["small"]),
    ]  # fmt: skip


def _printed(stage: Stage) -> str:
    """When the card was printed, in the tournament's own time zone (a card printed again
    mid-stage says which is newer)."""
    now = timezone.localtime(timezone.now(), stage.tournament.zone)
    when = formats.date_format(now, "DATETIME_FORMAT")
    return _("Printed %(when)s (%(zone)s)") % {"when": when, "zone": stage.tournament.time_zone}


def _invitations_page(stage: Stage, invitations: list[tuple[str, Invitation]], styles) -> list:
    """A last page of officials' invitations, each a QR code that works once: whoever scans it
    at a table joins as an official (on a shared tablet without an account if they choose). A
    link for several tablets says for how many, and how many joined."""
    story: list = [
        *practice_lines(stage.tournament, styles),
        _paragraph(_markup(stage.tournament.name, styles["event"]), styles["event"]),
        Paragraph(_("Officials: scan one code each to join"), styles["body"]),
        Spacer(1, 0.15 * inch),
    ]
    for url, invitation in invitations:
        expires = formats.date_format(
            timezone.localtime(invitation.expires_at, stage.tournament.zone), "DATETIME_FORMAT"
        )
        said = (
            _("For up to %(devices)s tablets (%(joined)s joined), until %(when)s.")
            % {"devices": invitation.devices, "joined": invitation.uses, "when": expires}
            if invitation.for_tablets
            else _("Works once, until %(when)s.") % {"when": expires}
        )
        text = Paragraph(said + "<br/>" + escape(url), styles["small"])
        row = GridTable([[QrCode(url, QR_SIZE), text]], colWidths=[1.7 * inch, 5.3 * inch])
        row.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE")]))
        story += [row, Spacer(1, 0.1 * inch)]
    return story


def seat_page(table: Table, entry_url: str) -> str:
    """The table's seat page (/<lang>/seat/<CODE>/, in the card's language) on the site's origin
    that the entry link names (tournaments.links, from the caller's request)."""
    return urljoin(entry_url, reverse("seat-claim", kwargs={"code": table.code}))


def stage_cards_pdf(
    stage: Stage,
    *,
    entry_url: Callable[[Table], str],
    invitations: list[tuple[str, Invitation]] = (),
) -> bytes:
    """The stage's table cards as one PDF, a page per table in table order; then, given
    pending officials' invitations (their links), a page of their QR codes. A table whose
    players enter its rounds carries its code and its seat page's QR code (seat_page) instead
    of the officials' entry link."""
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer, pagesize=letter,
        title=_("%(tournament)s: %(stage)s table cards")
        % {"tournament": stage.tournament.name, "stage": stage.display_name},
        author="Roundhouse", leftMargin=0.75 * inch, rightMargin=0.75 * inch,
        topMargin=0.6 * inch, bottomMargin=0.6 * inch,
    )  # fmt: skip
    styles = _styles()
    story: list = []
    for table in selectors.tables_with_seats(stage):
        if story:
            story.append(PageBreak())
        entry = entry_url(table)
        seat = seat_page(table, entry) if reporting.players_report(table) else None
        story.extend(_table_page(stage, table, entry, styles, seat))
    if invitations:
        story += [PageBreak(), *_invitations_page(stage, list(invitations), styles)]
    document.build(story)
    return buffer.getvalue()


# ---- for scoring's final results PDF: the cards' fonts, sizes and names in any script ------------

styles = _styles


def name_markup(
    text: str, style: ParagraphStyle, *, bold: bool = False, width: float | None = None
) -> str:
    """Text as typed (a name, in any script) as paragraph markup in `style`, as the cards print
    names: see _markup."""
    return _markup(text, style, bold=bold, width=width)


def paragraph(markup: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph of name_markup, shaped if it holds right-to-left letters."""
    return _paragraph(markup, style)
