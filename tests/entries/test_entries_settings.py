"""How a tournament takes entries, set by its organisers through the API and the console's
Entries section: readable by anyone, each bad value a 400 naming its field with nothing changed,
times in the tournament's zone, and a raised cap offering its places to the waitlist at once."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from entries.models import Entry
from tests import factories
from tests.conftest import client_for
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Division, Tournament

pytestmark = pytest.mark.django_db

ENTRY_FIELDS = ("entries_open_at", "entries_close_at", "capacity", "waitlist", "offer_hours",
                "entry_fee", "currency")  # fmt: skip


def url(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.slug}/"


def stored(tournament) -> dict:
    tournament = Tournament.objects.get(pk=tournament.pk)
    return {field: getattr(tournament, field) for field in ENTRY_FIELDS}


def test_anyone_reads_the_entries_settings_fees_as_decimal_strings(anon):
    tournament = open_tournament(capacity=40, entry_fee=Decimal("12.5"), currency="EUR")
    answer = anon.get(url(tournament)).json()
    assert answer["capacity"] == 40 and answer["waitlist"] is True
    assert answer["entry_fee"] == "12.50" and answer["currency"] == "EUR"
    assert answer["offer_hours"] == "24.00"
    assert answer["entries_open_at"] is not None
    assert anon.get(url(factories.TournamentFactory())).json()["entry_fee"] is None


def test_an_organiser_creates_a_tournament_with_its_entries_settings(db):
    body = {
        "name": "Rally", "slug": "rally", "domino_set": 12, "preset": "samboree",
        "entries_open_at": "2030-03-01T09:00:00Z", "entries_close_at": "2030-03-20T18:00:00Z",
        "capacity": 64, "waitlist": False, "offer_hours": "12", "entry_fee": "15.00",
        "currency": "CAD",
    }  # fmt: skip
    answer = client_for(factories.OrganiserAccountFactory()).post(
        "/api/v1/tournaments/", body, format="json"
    )
    assert answer.status_code == 201, answer.json()
    tournament = Tournament.objects.get(slug="rally")
    assert tournament.capacity == 64 and tournament.waitlist is False
    assert tournament.entry_fee == Decimal("15.00") and tournament.currency == "CAD"
    assert tournament.offer_hours == Decimal(12)
    assert tournament.entries_open_at == datetime(2030, 3, 1, 9, tzinfo=UTC)


def test_an_organiser_changes_them_times_read_in_the_tournaments_zone(tournament, as_organiser):
    tournament.time_zone = "America/Chicago"
    tournament.save()
    answer = as_organiser.patch(
        url(tournament),
        {"entries_open_at": "2030-01-10T09:00", "capacity": 30, "entry_fee": None},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json()["entries_open_at"] == "2030-01-10T09:00:00-06:00"
    assert stored(tournament)["entries_open_at"] == datetime(2030, 1, 10, 15, tzinfo=UTC)
    assert stored(tournament)["capacity"] == 30 and stored(tournament)["entry_fee"] is None


def test_officials_and_strangers_may_not_change_them(tournament, as_official, anon):
    before = stored(tournament)
    assert as_official.patch(url(tournament), {"capacity": 3}, format="json").status_code == 403
    assert anon.patch(url(tournament), {"capacity": 3}, format="json").status_code == 401
    assert stored(tournament) == before


BAD = [
    ({"entries_close_at": "2030-01-01T08:00:00Z"}, "entries_close_at", "close before they open"),
    ({"capacity": -1}, "capacity", "greater than or equal to 0"),
    ({"entry_fee": "-5.00"}, "entry_fee", "greater than or equal to 0"),
    ({"entry_fee": "ten"}, "entry_fee", "valid number"),
    ({"offer_hours": "0"}, "offer_hours", "greater than or equal to 0.25"),
    ({"currency": "usd"}, "currency", "ISO 4217"),
    ({"currency": "US"}, "currency", "ISO 4217"),
    ({"currency": "EURO"}, "currency", "no more than 3"),
]


@pytest.mark.parametrize(("body", "field", "message"), BAD)
def test_each_bad_value_is_a_400_naming_its_field_and_changes_nothing(
    tournament, as_organiser, body, field, message
):
    Tournament.objects.filter(pk=tournament.pk).update(
        entries_open_at=datetime(2030, 1, 1, 9, tzinfo=UTC)
    )
    before = stored(tournament)
    answer = as_organiser.patch(url(tournament), {**body, "venue": "Hall"}, format="json")
    assert answer.status_code == 400
    assert list(answer.json()) == [field]
    assert message in " ".join(answer.json()[field])
    assert stored(tournament) == before
    assert Tournament.objects.get(pk=tournament.pk).venue == ""


def test_a_raised_cap_offers_the_freed_places_at_once(
    as_organiser, organiser, smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament(capacity=1)
    factories.StaffFactory(tournament=tournament, user=organiser, role="organiser")
    enter(tournament, "Ann Abbott")
    bob = enter(tournament, "Bob Brown")
    cy = enter(tournament, "Cy Cole")
    assert bob.status == cy.status == Entry.Status.WAITLISTED
    with django_capture_on_commit_callbacks(execute=True):
        answer = as_organiser.patch(url(tournament), {"capacity": 2}, format="json")
    assert answer.status_code == 200
    bob.refresh_from_db()
    cy.refresh_from_db()
    assert bob.status == Entry.Status.OFFERED and bob.offer_expires_at > timezone.now()
    assert cy.status == Entry.Status.WAITLISTED and cy.waitlist_position == 1
    assert any("bob@example.org" in m["To"] for m in smtp_server.messages)


def test_a_division_has_its_own_fee_through_the_api(tournament, as_organiser, anon):
    division = Division.objects.create(tournament=tournament, name="Seniors", order=1)
    path = f"/api/v1/tournaments/{tournament.slug}/divisions/{division.pk}/"
    answer = as_organiser.patch(path, {"entry_fee": "7.50"}, format="json")
    assert answer.status_code == 200 and answer.json()["entry_fee"] == "7.50"
    assert anon.get(path).json()["entry_fee"] == "7.50"
    refused = as_organiser.patch(path, {"entry_fee": "-1"}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["entry_fee"]
    division.refresh_from_db()
    assert division.entry_fee == Decimal("7.50")
    made = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/divisions/",
        {"name": "Juniors", "entry_fee": "3"},
        format="json",
    )
    assert made.status_code == 201 and made.json()["entry_fee"] == "3.00"


# The console's settings form: the same checks, each said beside its field.


def settings_form(**fields) -> dict:
    return {
        "entries_open_at": "2030-01-10T09:00", "entries_close_at": "2030-02-10T18:00",
        "capacity": "48", "waitlist": "on", "offer_hours": "24", "entry_fee": "10.00",
        "currency": "USD", **fields,
    }  # fmt: skip


@pytest.fixture
def console(client, organiser, tournament):
    tournament.time_zone = "Europe/Madrid"
    tournament.save()
    client.force_login(organiser)
    return client


def test_the_console_saves_the_settings_in_the_tournaments_zone(console, tournament):
    answer = console.post(
        f"/t/{tournament.slug}/manage/entries/settings/", settings_form(), follow=True
    )
    assert answer.status_code == 200
    assert "The entries&#x27; settings are saved." in answer.content.decode()
    saved = stored(tournament)
    assert saved["entries_open_at"] == datetime(2030, 1, 10, 8, tzinfo=UTC)  # 09:00 in Madrid
    assert saved["capacity"] == 48 and saved["entry_fee"] == Decimal(10)
    page = console.get(f"/t/{tournament.slug}/manage/entries/").content.decode()
    assert 'value="2030-01-10T09:00"' in page and "Europe/Madrid" in page


PAGE_BAD = [
    ({"entries_close_at": "2030-01-09T09:00"}, "Entries close before they open"),
    ({"capacity": "-1"}, "greater than or equal to 0"),
    ({"entry_fee": "-1"}, "An entry fee is 0 or more"),
    ({"offer_hours": "0"}, "The hours to take a place are more than 0."),
    ({"offer_hours": "0.1"}, "greater than or equal to 0.25"),
    ({"currency": "usd"}, "ISO 4217"),
    ({"entries_open_at": "tomorrow"}, "Enter a valid date/time."),
]


@pytest.mark.parametrize(("fields", "message"), PAGE_BAD)
def test_the_console_says_each_bad_value_beside_its_field_and_saves_nothing(
    console, tournament, fields, message
):
    before = stored(tournament)
    answer = console.post(f"/t/{tournament.slug}/manage/entries/settings/", settings_form(**fields))
    assert answer.status_code == 400
    text = answer.content.decode().replace("&#x27;", "'")
    field = next(iter(fields))
    group = text.split(f'for="id_{field}"', 1)[1].split("</div>", 2)
    assert message in "".join(group[:2]), text
    assert stored(tournament) == before


def test_officials_get_403_on_the_entries_section(client, official, tournament):
    client.force_login(official)
    assert client.get(f"/t/{tournament.slug}/manage/entries/").status_code == 403
    answer = client.post(f"/t/{tournament.slug}/manage/entries/settings/", settings_form())
    assert answer.status_code == 403
    assert stored(tournament)["capacity"] is None


def test_the_enter_link_shows_on_the_public_pages_while_entries_are_open(client):
    tournament = open_tournament()
    register = f'href="/en/t/{tournament.slug}/register/"'
    home = client.get(f"/en/t/{tournament.slug}/")
    assert register in home.content.decode()
    etag = home["ETag"]
    assert register in client.get(f"/en/t/{tournament.slug}/how-it-works/").content.decode()
    # Closed by the clock: the same address has another version, without the link.
    Tournament.objects.filter(pk=tournament.pk).update(
        entries_close_at=timezone.now() - timedelta(minutes=1),
        entries_open_at=timezone.now() - timedelta(hours=2),
    )
    closed = client.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=etag)
    assert closed.status_code == 200 and closed["ETag"] != etag
    assert register not in closed.content.decode()
    assert register not in client.get(f"/en/t/{tournament.slug}/how-it-works/").content.decode()
    # Not yet open: how it works says when they open.
    Tournament.objects.filter(pk=tournament.pk).update(
        entries_open_at=timezone.now() + timedelta(days=1), entries_close_at=None
    )
    how = client.get(f"/en/t/{tournament.slug}/how-it-works/").content.decode()
    assert "Entries open on" in how and register not in how
