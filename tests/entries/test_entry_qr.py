"""An entered entry's mail carries its check-in code as text and as a QR (an HTML part showing an
inline image), read back from a real SMTP message; the entry's page shows the QR big."""

import io
from decimal import Decimal

import pytest
import zxingcpp
from django.test import Client
from PIL import Image

from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.django_db


def test_the_entered_mail_has_the_code_in_text_and_as_a_qr_that_reads_back(
    smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament(capacity=1, entry_fee=Decimal("0"))
    with django_capture_on_commit_callbacks(execute=True):
        ann = enter(tournament, "Ann Abbott")
        enter(tournament, "Bob Brown")  # waiting: no code, no QR
    entered, waiting = smtp_server.messages
    assert entered.get_content_type() == "multipart/related"
    plain = entered.get_body(("plain",)).get_content()
    assert f"Your check-in code is {ann.check_in_code}" in plain
    html = entered.get_body(("html",)).get_content()
    assert 'src="cid:check-in-code@roundhouse"' in html and ann.check_in_code in html
    images = [part for part in entered.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1 and images[0]["Content-ID"] == "<check-in-code@roundhouse>"
    picture = Image.open(io.BytesIO(images[0].get_content()))
    assert [found.text for found in zxingcpp.read_barcodes(picture)] == [ann.check_in_code]
    assert waiting.get_content_type() == "text/plain"


def test_the_entrys_page_shows_its_qr(db):
    tournament = open_tournament()
    ann = enter(tournament, "Ann Abbott")
    page = Client().get(f"/en/t/{tournament.slug}/entry/{ann.manage_key}/").content.decode()
    assert 'class="entry-qr"' in page and "<svg" in page
    assert f"QR code of the check-in code {ann.check_in_code}" in page
