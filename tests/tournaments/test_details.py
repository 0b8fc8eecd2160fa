"""A tournament's details (dates, venue, description, time zone, a status that moves by itself)
and every time shown in its own zone: API answers, pages, exports and table cards."""

import io
import re
from datetime import UTC, datetime

import pypdfium2 as pdfium
import pytest
import zxingcpp
from pypdf import PdfReader

from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import play, seat_tables
from tournaments.models import StaffEvent, Tournament
from tournaments.services.staff import create_invitation

pytestmark = pytest.mark.django_db

DETAILS = {
    "starts_on": "2026-03-06",
    "ends_on": "2026-03-08",
    "venue": "Elks Lodge, Quartzsite",
    "description": "Four rounds, then the winners' playoff.",
    "time_zone": "America/Phoenix",
}


def url(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.slug}/"


def test_details_are_given_at_creation_and_read_back(db):
    organiser = factories.OrganiserAccountFactory()
    created = client_for(organiser).post(
        "/api/v1/tournaments/", {"name": "Rally", "slug": "rally", **DETAILS}, format="json"
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert {key: body[key] for key in DETAILS} == DETAILS
    assert body["status"] == "not_started"
    assert body["created_at"].endswith("-07:00")  # Phoenix keeps no summer time


def test_the_status_moves_by_itself(anon, tournament):
    assert anon.get(url(tournament)).json()["status"] == "not_started"
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=1)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    assert anon.get(url(tournament)).json()["status"] == "in_play"
    play(stage, players, 1, [0, 5, 9])
    stage.status = "closed"  # a stage of one table, closed: its placings are decided
    stage.save(update_fields=["status"])
    assert anon.get(url(tournament)).json()["status"] == "finished"


def test_an_organiser_changes_the_details(as_organiser, tournament):
    changed = as_organiser.patch(url(tournament), DETAILS, format="json")
    assert changed.status_code == 200, changed.json()
    assert {key: changed.json()[key] for key in DETAILS} == DETAILS
    tournament.refresh_from_db()
    assert tournament.time_zone == "America/Phoenix" and tournament.venue == DETAILS["venue"]
    # What the API answers, read back as it is, goes back unchanged.
    again = as_organiser.patch(url(tournament), changed.json(), format="json")
    assert again.status_code == 200, again.json()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone", "is not a time zone name"),
        ({"time_zone": ""}, "time_zone", "blank"),
        ({"starts_on": "2026-03-08", "ends_on": "2026-03-06"}, "ends_on", "before the first"),
        ({"starts_on": "8 March"}, "starts_on", "wrong format"),
        ({"venue": "Hall\u202eB"}, "venue", "does not print"),
        ({"name": "Renamed"}, "name", "set by Roundhouse"),
        ({"domino_set": 15}, "domino_set", "set by Roundhouse"),
    ],
)
def test_bad_details_are_400_and_change_nothing(as_organiser, tournament, body, field, message):
    before = Tournament.objects.filter(pk=tournament.pk).values().get()
    response = as_organiser.patch(url(tournament), body, format="json")
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    assert Tournament.objects.filter(pk=tournament.pk).values().get() == before


def test_only_organisers_change_the_details(as_official, as_other_organiser, anon, tournament):
    for client, status in ((anon, 401), (as_official, 403), (as_other_organiser, 403)):
        assert client.patch(url(tournament), {"venue": "X"}, format="json").status_code == status
    tournament.refresh_from_db()
    assert tournament.venue == ""


def test_the_console_page_edits_the_details(client, tournament, organiser, official):
    client.force_login(official)
    assert client.get(f"/t/{tournament.slug}/manage/details/").status_code == 403
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert f'href="/t/{tournament.slug}/manage/details/"' in console
    page = client.get(f"/t/{tournament.slug}/manage/details/").content.decode()
    assert '<option value="America/Chicago"' in page and 'type="date"' in page
    bad = client.post(f"/t/{tournament.slug}/manage/details/", {**DETAILS, "ends_on": "2026-03-01"})
    assert bad.status_code == 400
    assert "The last day is before the first day." in bad.content.decode()
    tournament.refresh_from_db()
    assert tournament.venue == ""
    saved = client.post(f"/t/{tournament.slug}/manage/details/", DETAILS, follow=True)
    assert saved.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/"
    tournament.refresh_from_db()
    assert (tournament.venue, str(tournament.ends_on)) == (DETAILS["venue"], "2026-03-08")
    home = client.get("/").content.decode()
    assert "Elks Lodge, Quartzsite" in home and "March 6, 2026" in home


# ---- every time in the tournament's zone --------------------------------------------------------


def test_api_times_carry_the_tournaments_offset(anon, tournament):
    for zone, offset in (("America/Chicago", "-06:00"), ("Pacific/Auckland", "+13:00")):
        tournament.time_zone = zone
        tournament.save()
        assert anon.get(url(tournament)).json()["created_at"].endswith(offset)


def test_a_round_history_by_table_id_is_in_the_tournaments_zone(as_official, tournament):
    tournament.time_zone = "Asia/Kolkata"  # +05:30, never a whole hour off UTC
    tournament.save()
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    table = stage.tables.get()
    body = {
        "blocked": False,
        "scores": [
            {"player": p.pk, "pips": n, "went_out": n == 0}
            for p, n in zip(players, (0, 4, 9), strict=True)
        ],
    }
    put = as_official.put(f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json")
    assert put.status_code == 201
    history = as_official.get(f"/api/v1/tables/{table.pk}/rounds/1/history/").json()
    stamps = re.findall(r"\d{4}-\d\d-\d\dT[\d:.]+([+-]\d\d:\d\d|Z)", str(history))
    assert stamps and set(stamps) == {"+05:30"}


def test_the_staff_page_shows_times_in_the_tournaments_zone(client, tournament, organiser):
    tournament.time_zone = "America/Chicago"
    tournament.save()
    event = StaffEvent.objects.create(tournament=tournament, action="added", subject_name="kim")
    StaffEvent.objects.filter(pk=event.pk).update(at=datetime(2026, 11, 25, 3, 5, tzinfo=UTC))
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/manage/staff/").content.decode()
    assert "Nov. 24, 2026, 9:05 PM" in page  # 03:05 UTC is 21:05 the day before in Chicago


def test_scores_csv_times_are_in_the_tournaments_zone(as_organiser, tournament):
    tournament.time_zone = "America/Chicago"
    tournament.save()
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 4, 9])
    play(stage, players, 2, [3, 0, 9], status="submitted")
    response = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/scores.csv")
    lines = b"".join(response.streaming_content).decode("utf-8-sig").splitlines()
    assert lines[0].endswith(",status,confirmed_at")
    confirmed = [line for line in lines[1:] if ",confirmed," in line]
    submitted = [line for line in lines[1:] if ",submitted" in line]
    assert len(confirmed) == 3 and all(line.endswith("-06:00") for line in confirmed)
    assert len(submitted) == 3 and all(line.endswith(",submitted,") for line in submitted)


def cards(client, stage) -> bytes:
    response = client.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200
    return response.content


def test_table_cards_say_when_they_were_printed_in_the_tournaments_zone(as_organiser, tournament):
    tournament.time_zone = "Pacific/Auckland"
    tournament.save()
    stage = factories.StageFactory(tournament=tournament, status="seated")
    seat_tables(stage, [["Ann", "Bob", "Cy"]])
    text = PdfReader(io.BytesIO(cards(as_organiser, stage))).pages[0].extract_text()
    printed = re.search(r"Printed (.+?) \(Pacific/Auckland\)", " ".join(text.split()))
    assert printed, text
    from django.utils import formats, timezone

    now = timezone.localtime(timezone.now(), tournament.zone)
    assert formats.date_format(now, "DATE_FORMAT") in printed[1]


def test_the_organisers_cards_end_with_the_officials_invitations(
    as_organiser, as_official, tournament, organiser
):
    stage = factories.StageFactory(tournament=tournament, status="seated")
    seat_tables(stage, [["Ann", "Bob", "Cy"]])
    invitation = create_invitation(tournament=tournament, role="official", by=organiser)
    create_invitation(tournament=tournament, role="organiser", by=organiser)  # not printed
    printed = cards(as_organiser, stage)
    document = pdfium.PdfDocument(printed)
    assert len(document) == 2  # the table's card, then the invitations
    image = document[1].render(scale=2).to_pil()
    found = [code.text for code in zxingcpp.read_barcodes(image)]
    assert found == [f"http://testserver/join/{invitation.key}/"]
    assert (
        "Officials: scan one code each to join"
        in PdfReader(io.BytesIO(printed)).pages[1].extract_text()
    )
    # A link for several tablets says for how many.
    create_invitation(tournament=tournament, role="official", by=organiser, devices=8)
    page = PdfReader(io.BytesIO(cards(as_organiser, stage))).pages[1].extract_text()
    assert "For up to 8 tablets (0 joined), until" in " ".join(page.split())
    # An official prints the cards without anyone's invitations.
    assert len(pdfium.PdfDocument(cards(as_official, stage))) == 1
