"""The table cards (PDF) through the v1 API: players, the deal, the grid, names in any script."""

import io
import re
import unicodedata

import pypdfium2 as pdfium
import pytest
import zxingcpp
from django.core.checks import WARNING
from pypdf import PdfReader

from tables import cards, checks
from tables.models import Seat, Table
from tests import factories
from tests.tables.api.conftest import add_players, seat
from tournaments.presets import get_preset

pytestmark = pytest.mark.django_db


def test_table_cards_pdf_has_a_page_per_table_with_players_deal_and_grid(
    as_official, as_organiser, tournament, stage
):
    for number, name in enumerate(["José Ramírez", "Françoise Dubois", "Bill O'Connor"], start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    add_more = [factories.PlayerFactory(tournament=tournament, number=n) for n in range(4, 11)]
    assert len(add_more) == 7
    seat(as_organiser, stage, seed=1)
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(response.content))
    assert len(reader.pages) == 3  # 10 players: tables of 4, 3, 3
    pages = [page.extract_text() for page in reader.pages]
    for number, text in enumerate(pages, start=1):
        assert tournament.name in text
        assert f"Table {number}" in text
        assert "Deal 12 tiles" in text  # samboree: 2-4 players get 12
        assert "1 (double-12)" in text and "4 (double-9)" in text
        assert "Total" in text and "signature" in text
    everything = "\n".join(pages)
    for name in ["José Ramírez", "Françoise Dubois", "Bill O'Connor"]:
        assert name in everything
    # Each page's QR code, printed and scanned, opens score entry for that page's table.
    tables = {t.number: t.pk for t in Table.objects.filter(stage=stage)}
    document = pdfium.PdfDocument(response.content)
    for number, page in enumerate(document, start=1):
        image = page.render(scale=2).to_pil()  # 144 dpi, about what a phone sees
        found = [code.text for code in zxingcpp.read_barcodes(image)]
        assert found == [f"http://testserver/t/{tournament.slug}/enter/{tables[number]}/"]


def shaded_cells(image) -> list[tuple[int, int]]:
    """The centres (x, y) of the card's grey (#bdbdbd) cells, top to bottom then left to
    right: each cell a patch of grey of its own, the grid's black lines between them."""
    width, height = image.size
    pixels = image.load()
    grey = {(x, y) for y in range(height) for x in range(width) if pixels[x, y] == 0xBD}
    centres = []
    while grey:
        patch, todo = [], [grey.pop()]
        while todo:
            x, y = todo.pop()
            patch.append((x, y))
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in grey:
                    grey.remove(near)
                    todo.append(near)
        if len(patch) > 100:  # a cell, not a grey pixel at the edge of a letter
            xs, ys = [x for x, _ in patch], [y for _, y in patch]
            centres.append(((min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2))
    return sorted(centres, key=lambda c: (c[1], c[0]))


def test_table_cards_printed_again_show_withdrawals_late_entries_and_the_deal_now(
    as_official, as_organiser, tournament, stage
):
    """A card printed again mid-stage is the table as it is: who withdrew after which round,
    who joined when, the deal for the players now and from which round; a round that a seat
    does not play is shaded, so that nobody writes a score there."""
    stage.table_size_max = 5
    stage.save(update_fields=["table_size_max"])
    add_players(tournament, 10)  # two tables of 5
    seat(as_organiser, stage, seed=1)
    first, second = Table.objects.filter(stage=stage).order_by("number")
    factories.RoundResultFactory(table=first, stage=stage, round_no=1)
    factories.RoundResultFactory(table=second, stage=stage, round_no=1)
    factories.RoundResultFactory(table=second, stage=stage, round_no=2)
    leaving = first.seats.get(position=2).player
    url = f"/api/v1/tournaments/{tournament.slug}/players/{leaving.pk}/withdraw/"
    assert as_organiser.post(url).status_code == 200
    newcomer = factories.PlayerFactory(tournament=tournament, number=11, name="Late Lou")
    joined = as_organiser.post(
        f"/api/v1/stages/{stage.pk}/late-players/", {"player": newcomer.pk}, format="json"
    )
    assert joined.status_code == 201 and joined.json()["table"] == 1  # the smaller table now
    # At table 2, one leaves after the last round: the table played every round as it was.
    for round_no in (3, 4):
        factories.RoundResultFactory(table=second, stage=stage, round_no=round_no)
    done = second.seats.get(position=1).player
    url = f"/api/v1/tournaments/{tournament.slug}/players/{done.pk}/withdraw/"
    assert as_organiser.post(url).status_code == 200
    deal = get_preset(tournament.preset).tiles_dealt
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    pages = [
        " ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(response.content)).pages
    ]
    assert f"Seat 2: #{leaving.number} {leaving.name} (withdrew after round 1)" in pages[0]
    assert "#11 Late Lou (plays from round 2)" in pages[0]
    assert (
        f"Deal {deal(12, 5)} tiles to each of the 5 players (double-12 set). From round 2, as "
        "the table is now."
    ) in pages[0]
    assert f"Deal {deal(12, 5)} tiles to each of the 5 players (double-12 set)." in pages[1]
    assert f"#{done.number} {done.name} (withdrew after round 4)" in pages[1]
    assert "From round" not in pages[1]
    # The shading: rounds 2 to 4 under the player who left, round 1 under the late one.
    image = pdfium.PdfDocument(response.content)[0].render(scale=1).to_pil().convert("L")
    late_round_1, *left = shaded_cells(image)
    assert len(left) == 3  # rounds 2, 3 and 4 of the player who left
    assert len({x for x, _ in left}) == 1  # one column, seat 2's
    heights = [b[1] - a[1] for a, b in zip([late_round_1, *left], left, strict=False)]
    assert max(heights) - min(heights) <= 2  # one row after another, round 1 the late one's
    assert late_round_1[0] > left[0][0]  # the late player's column, right of seat 2's


def test_table_cards_print_names_with_angle_brackets_and_ampersands_as_typed(
    as_official, as_organiser, tournament, stage
):
    names = ["Bob <Bobby> Lee", "Ann <b Smith", "Cy & Di", "Ed Jones"]
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    seat(as_organiser, stage, seed=1)
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200  # "<b" once made the PDF fail
    text = PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    for name in names:
        assert name in text


def cards_of(client, organiser_client, stage, names: list[str], **renamed: str) -> bytes:
    """The stage's cards PDF, its players named as given (and the tournament or the stage
    renamed: event=, stage_name=), seated at one table with seed 1."""
    tournament = stage.tournament
    if "event" in renamed:
        tournament.name = renamed["event"]
        tournament.save()
    if "stage_name" in renamed:
        stage.name = renamed["stage_name"]
        stage.save()
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    seat(organiser_client, stage, seed=1)
    response = client.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200
    return response.content


def test_table_cards_print_names_outside_windows_1252_as_typed_and_still_scan(
    as_official, as_organiser, tournament, stage
):
    # Helvetica's WinAnsiEncoding printed Ł, ễ, ă, Ễ, ğ, Greek and Cyrillic as black boxes; a
    # glyph that the card's font lacks comes out of the text layer as something else.
    names = ["Łukasz Wójcik", "Nguyễn Văn Ễ", "Ömer Çağlar", "Юрий Ρήγας"]
    pdf = cards_of(
        as_official, as_organiser, stage, names,
        event="Łódź Open: Çağlar Cup", stage_name="Квалификация Ελλάδα",
    )  # fmt: skip
    tournament.refresh_from_db()
    document = pdfium.PdfDocument(pdf)
    assert len(document) == 1
    page = document[0]
    text = page.get_textpage().get_text_range()
    lines = text.splitlines()
    assert lines[:2] == [tournament.name, stage.name]
    seat_lines = {line for line in lines if line.startswith("Seat ")}
    assert seat_lines == {f"Seat {s.position}: #{s.player.number} {s.player.name}"
                          for s in Seat.objects.filter(stage=stage)}  # fmt: skip
    for name in names:  # its seat's line and the score grid's header
        assert text.count(name) == 2, name
    table = Table.objects.get(stage=stage)
    found = [code.text for code in zxingcpp.read_barcodes(page.render(scale=2).to_pil())]
    assert found == [f"http://testserver/t/{tournament.slug}/enter/{table.pk}/"]


def test_table_cards_print_a_name_with_an_emoji(as_official, as_organiser, tournament, stage):
    names = ["Dice 🎲 Dan", "Ann Lee", "Cy Di", "Ed Jones"]
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    seat(as_organiser, stage, seed=1)
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200  # the font has no emoji: a blank, the rest as typed
    text = PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    assert "Dice" in text and "Dan" in text and "Ed Jones" in text


def letters(page) -> list[tuple[str, tuple[float, float, float, float], float]]:
    """Each letter printed on the page: the letter (a joined Arabic form as its plain letter),
    its box in points (left, bottom, right, top), and the share of dark pixels in that box when
    the page is rendered at 144 dpi, as it prints."""
    scale = 2
    image = page.render(scale=scale, grayscale=True).to_pil()
    height = page.get_height()
    textpage = page.get_textpage()
    found = []
    for index in range(textpage.count_chars()):
        char = unicodedata.normalize("NFKC", textpage.get_text_range(index, 1))
        if not char.strip():
            continue
        box = left, bottom, right, top = textpage.get_charbox(index, loose=True)
        crop = image.crop((int(left * scale), int((height - top) * scale),
                           int(right * scale) + 1, int((height - bottom) * scale) + 1))  # fmt: skip
        dark = sum(crop.histogram()[:128])
        found.append((char, box, dark / max(crop.width * crop.height, 1)))
    return found


def assert_inked(page, names: list[str]) -> None:
    """Every letter of the names prints: a letter that the font lacks left its box blank."""
    wanted = {char for name in names for char in name if char.strip()}
    printed = [(char, ink) for char, _, ink in letters(page) if char in wanted]
    assert {char for char, _ in printed} == wanted
    blank = sorted({char for char, ink in printed if ink < 0.03})
    assert not blank, f"printed blank: {blank}"


def lines_of(page) -> list[dict[str, float]]:
    """Each line of the page: where the middle of each of its letters is, across, in points.
    (The fonts' boxes differ in height: a letter whose box is centred within 5 pt of a line's
    first letter is on that line; the lines are 13 pt apart or more.)"""
    lines: list[tuple[float, dict[str, float]]] = []
    for char, (left, bottom, right, top), _ in letters(page):
        height = (bottom + top) / 2
        line = next((line for y, line in lines if abs(y - height) < 5), None)
        if line is None:
            lines.append((height, line := {}))
        line.setdefault(char, (left + right) / 2)
    return [line for _, line in lines]


def right_to_left(line: dict[str, float], *words: str) -> bool:
    """Whether the words lie right to left on the line, each word's letters too."""
    middles = [line[char] for word in words for char in word if char.strip()]
    return middles == sorted(middles, reverse=True)


def embedded_fonts(pdf: bytes) -> set[str]:
    """The fonts that the PDF's first page uses, less ReportLab's subset prefix and number
    ("AAAAAA+WenQuanYiMicroHei-0" is WenQuanYiMicroHei)."""
    fonts = PdfReader(io.BytesIO(pdf)).pages[0]["/Resources"]["/Font"]
    names = (str(font.get_object()["/BaseFont"]).split("+")[-1] for font in fonts.values())
    return {re.sub(r"-\d+$", "", name) for name in names}


def test_table_cards_print_chinese_japanese_and_korean_names(
    as_official, as_organiser, tournament, stage
):
    names = ["王芳", "山田はなこ", "김민준", "Ana 王"]
    renamed = {"event": "東京ドミノ Open", "stage_name": "예선 1"}
    pdf = cards_of(as_official, as_organiser, stage, names, **renamed)
    tournament.refresh_from_db()
    page = pdfium.PdfDocument(pdf)[0]
    text = page.get_textpage().get_text_range()
    assert text.splitlines()[:2] == [tournament.name, stage.name]
    for name in names:  # its seat's line and the score grid's header
        assert text.count(name) == 2, name
    assert_inked(page, [tournament.name, stage.name, *names])
    # Drawn in the CJK font (Debian's fonts-wqy-microhei), not as another font's empty boxes.
    assert "WenQuanYiMicroHei" in embedded_fonts(pdf)


@pytest.fixture
def without_the_cjk_font(monkeypatch, tmp_path):
    """A machine without fonts-wqy-microhei: the fallback fonts registered again without it."""
    monkeypatch.setattr(cards, "CJK_FONT", tmp_path / "wqy-microhei.ttc")
    cards.fallback_fonts.cache_clear()
    yield
    cards.fallback_fonts.cache_clear()


def test_table_cards_without_the_cjk_font_print_the_rest_and_say_why(
    as_official, as_organiser, tournament, stage, without_the_cjk_font, caplog
):
    pdf = cards_of(as_official, as_organiser, stage, ["王芳", "Ana 王", "Ann Lee", "Cy Di"])
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert "Ann Lee" in text and "Ana" in text
    assert "WenQuanYiMicroHei" not in embedded_fonts(pdf)
    assert any("fonts-wqy-microhei" in record.getMessage() for record in caplog.records)
    assert [(m.id, m.level) for m in checks.cjk_font(None)] == [("tables.W001", WARNING)]


def test_the_system_check_is_quiet_with_the_cjk_font():
    assert checks.cjk_font(None) == []


def test_table_cards_print_arabic_and_hebrew_names_joined_and_right_to_left(
    as_official, as_organiser, tournament, stage
):
    names = ["سمير خان", "יוסף כהן", "Dov גלעד", "Ann Lee"]
    pdf = cards_of(as_official, as_organiser, stage, names, event="كأس القاهرة")
    tournament.refresh_from_db()
    page = pdfium.PdfDocument(pdf)[0]
    assert_inked(page, [tournament.name, *names])
    # The Arabic letters join: سمير is drawn in its initial, medial, medial and final forms.
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert "\ufeb3\ufee4\ufef4\ufeae" in text or "\ufeae\ufef4\ufee4\ufeb3" in text
    # Each line that prints a name (its seat's line, the grid's header) lays its Arabic and
    # Hebrew words out right to left, the first word rightmost; "Dov" stays left of "גלעד".
    lines = lines_of(page)
    arabic = [line for line in lines if "س" in line and "خ" in line]
    hebrew = [line for line in lines if "ף" in line]
    mixed = [line for line in lines if "D" in line and "ג" in line]
    title = [line for line in lines if "ك" in line]
    assert (len(arabic), len(hebrew), len(mixed), len(title)) == (2, 2, 2, 1)
    assert all(right_to_left(line, "سمير", "خان") for line in arabic)
    assert all(right_to_left(line, "יוסף", "כהן") for line in hebrew)
    assert all(right_to_left(line, "גלעד", "vD") for line in mixed)  # Dov: its D left of its v
    assert right_to_left(title[0], "كأس", "قة")


def test_table_cards_print_names_of_two_directions_in_bidi_order(
    as_official, as_organiser, tournament, stage
):
    # HarfBuzz took the direction of 'Dov-כהן', one word, from its D: the Hebrew printed
    # reversed. 'علي 12 حسن' printed as three runs left to right, علي leftmost.
    names = ["Dov-כהן", "علي 12 حسن", "Ann Lee", "Cy Di"]
    pdf = cards_of(as_official, as_organiser, stage, names)
    page = pdfium.PdfDocument(pdf)[0]
    assert_inked(page, [name.replace("-", " ") for name in names])  # a hyphen inks too little
    lines = lines_of(page)
    hebrew = [line for line in lines if "D" in line and "כ" in line]
    arabic = [line for line in lines if "ع" in line and "2" in line]
    assert (len(hebrew), len(arabic)) == (2, 2)  # its seat's line and the grid's header
    # Left to right: Dov, then כהן read right to left (its כ rightmost).
    assert all(right_to_left(line, "כהן", "voD") for line in hebrew)
    # Right to left: علي rightmost, then 12 (its digits left to right), حسن leftmost.
    assert all(right_to_left(line, "علي", "حسن") for line in arabic)
    assert all(line["ي"] > line["2"] > line["1"] > line["ح"] for line in arabic)


def test_table_cards_need_a_seated_stage_and_staff(anon, as_organiser, as_other_organiser, stage):
    assert as_organiser.get(f"/api/v1/stages/{stage.pk}/cards.pdf").status_code == 409
    assert anon.get(f"/api/v1/stages/{stage.pk}/cards.pdf").status_code == 401
    assert as_other_organiser.get(f"/api/v1/stages/{stage.pk}/cards.pdf").status_code == 403


def test_table_card_and_sheet_of_a_table_above_the_maximum_say_so(
    as_official, as_organiser, client, tournament, stage
):
    add_players(tournament, 8)  # two tables of 4, the stage's largest
    seat(as_organiser, stage, seed=1)
    latecomer = factories.PlayerFactory(tournament=tournament, number=41)
    body = {"player": latecomer.pk, "allow_over_max": True}
    assert as_organiser.post(f"/api/v1/stages/{stage.pk}/late-players/", body).status_code == 201
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    first, second = (page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    assert "5 players: above this stage's 4." in first
    deal = get_preset(tournament.preset).tiles_dealt(12, 5)
    assert f"Deal {deal} tiles to each of the 5 players" in first  # the deal for five, not four
    assert "above this stage's" not in second
    sheet = client.get(f"/en/t/{tournament.slug}/tables/{stage.order}/1/").content.decode()
    assert "5 players: above this stage&#x27;s 4." in sheet
    other = client.get(f"/en/t/{tournament.slug}/tables/{stage.order}/2/").content.decode()
    assert "above this stage" not in other
