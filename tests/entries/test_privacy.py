"""Entrants' privacy: contact details erased everywhere they are kept (the entry, its history,
the mails sent to it) by the entrant or by the beat a set time after the event, the name kept in
the results; the entrant's own data downloaded; and no contact detail on any public page or
public API answer."""

import io
import json
import random
import re
from datetime import date, timedelta
from decimal import Decimal
from itertools import product

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.exceptions import NoReverseMatch
from django.utils import timezone, translation
from pypdf import PdfReader

from entries import tasks
from entries.models import Delivery, Entry, Message, Payment
from entries.services import entering, mail, privacy
from scoring.demo_events import new_tournament, play_to_the_end
from tables import services as table_services
from tests import factories
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Player, Tournament

pytestmark = pytest.mark.django_db


def database_hits(needle: str) -> list[str]:
    """Every text column of every table in the database that holds `needle` (any case)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND data_type IN "
            "('character varying', 'text', 'character', 'json', 'jsonb')"
        )
        columns = cursor.fetchall()
        hits = []
        for table, column in columns:
            cursor.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{column}"::text ILIKE %s',
                [f"%{needle}%"],
            )
            if cursor.fetchone()[0]:
                hits.append(f"{table}.{column}")
    return hits


def test_erasing_leaves_no_old_contact_detail_anywhere_in_the_database(
    smtp_server, django_capture_on_commit_callbacks, require_postgres
):
    tournament = open_tournament(name="Harvest Open", starts_on=date(2026, 12, 30))
    with django_capture_on_commit_callbacks(execute=True):
        ann = enter(
            tournament, "Ann Abbott", "Ann.Abbott@Example.org", phone="+1 555 0101", age=67,
            birth_year=1959, household="Abbott", messages_ok=True,
        )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        ann = entering.update(ann, changes={"email": "ann.new@example.org", "phone": "555-0199"})
        mail.queue_message(
            tournament=tournament, kind=Message.Kind.ORGANISER, subject="Parking",
            entries=[ann], body="Park behind the hall.",
        )  # fmt: skip
    # A first try that a mail server refused, quoting the address, before the one that went.
    Delivery.objects.filter(message__kind=Message.Kind.ORGANISER).update(
        last_error="450 <ann.new@example.org>: mailbox busy, try later"
    )
    assert len(smtp_server.messages) == 2  # the receipt to the first address, the news to the new
    old = ["ann.abbott@example.org", "ann.new@example.org", "555 0101", "555-0199"]
    assert all(database_hits(needle) for needle in old)  # before: in the entry, history, mails
    history_rows = ann.history.count()

    erased = privacy.erase_contact(ann)

    ann.refresh_from_db()
    assert (ann.email, ann.phone, ann.age, ann.birth_year) == ("", "", None, None)
    assert ann.contact_erased_at is not None and erased.contact_erased_at == ann.contact_erased_at
    assert {needle: database_hits(needle) for needle in old} == {needle: [] for needle in old}
    history = list(ann.history.all())
    assert len(history) == history_rows + 1  # every change is still told, its details gone
    assert {(row.email, row.phone, row.age, row.birth_year) for row in history} == {
        ("", "", None, None)
    }
    assert history[0].history_change_reason == privacy.ERASED_REASON
    assert set(ann.deliveries.values_list("email", flat=True)) == {""}
    # The entry and its player stay, with what seats and results need.
    ann.player.refresh_from_db()
    assert (ann.status, ann.name, ann.household) == ("entered", "Ann Abbott", "Abbott")
    assert (ann.player.name, ann.player.household) == ("Ann Abbott", "Abbott")


def test_erasing_twice_is_refused_and_changes_nothing():
    ann = enter(open_tournament(), "Ann Abbott")
    privacy.erase_contact(ann)
    ann.refresh_from_db()
    with pytest.raises(entering.StateConflict, match="were erased on"):
        privacy.erase_contact(ann)
    assert Entry.objects.get().contact_erased_at == ann.contact_erased_at


def test_names_alike_may_both_be_erased_and_an_erased_entry_takes_no_changes():
    tournament = open_tournament()
    one = enter(tournament, "Sam Lee", "sam@example.org")
    two = enter(tournament, "Sam Lee", "sam.lee@example.org")
    privacy.erase_contact(one)
    privacy.erase_contact(two)  # two live entries of one name, neither with an address
    assert Entry.objects.filter(name="Sam Lee", email="", status="entered").count() == 2
    with pytest.raises(entering.StateConflict, match="details were erased"):
        entering.update(one, changes={"email": "sam@example.org"})
    assert Entry.objects.get(pk=one.pk).email == ""


def test_mail_not_sent_yet_goes_nowhere_once_erased(django_capture_on_commit_callbacks):
    ann = enter(open_tournament(), "Ann Abbott", messages_ok=True)  # its receipt still waiting
    privacy.erase_contact(ann)
    delivery = ann.deliveries.get()
    assert (delivery.status, delivery.email) == ("failed", "")
    assert "contact details were erased" in delivery.last_error


def test_the_beat_erases_contact_details_a_set_time_after_the_last_day(settings):
    today = timezone.localdate()
    ago = lambda days: today - timedelta(days=days)  # noqa: E731
    past = open_tournament(starts_on=ago(92), ends_on=ago(90))
    one_day = open_tournament(starts_on=ago(90))
    recent = open_tournament(starts_on=ago(95), ends_on=ago(89))
    undated = open_tournament(starts_on=None, ends_on=None)
    for tournament in (past, one_day, recent, undated):
        enter(tournament, "Ann Abbott", phone="555 0101", age=40)
    assert privacy.erase_on(past) == past.ends_on + timedelta(days=90)
    assert privacy.erase_on(undated) is None  # never played: kept until a day is known

    assert tasks.erase_old_contacts() == 2  # the beat's task, run inline here
    erased = set(Entry.objects.filter(email="").values_list("tournament", flat=True))
    assert erased == {past.pk, one_day.pk}
    assert tasks.erase_old_contacts() == 0  # done once

    settings.ROUNDHOUSE_CONTACT_DAYS = 30
    assert tasks.erase_old_contacts() == 1  # the shorter time reaches the recent one too
    assert Entry.objects.get(tournament=undated).email == "ann@example.org"


def test_the_beat_runs_the_erase_once_a_day():
    job = settings.CELERY_BEAT_SCHEDULE["erase-contact-details"]
    assert job == {"task": "entries.tasks.erase_old_contacts", "schedule": 86400.0}
    assert settings.ROUNDHOUSE_CONTACT_DAYS == 90


# The entrant's own page and API.


def test_erasing_from_the_entrys_page_asks_first_then_withdraws_before_the_event():
    tournament = open_tournament(capacity=1)
    ann = enter(tournament, "Ann Abbott", phone="555 0101")
    bob = enter(tournament, "Bob Brown")
    client = Client()
    page = client.get(f"/en/t/{tournament.slug}/entry/{ann.manage_key}/").content.decode()
    assert "Download my data" in page and "Erase my details" in page
    url = f"/en/t/{tournament.slug}/entry/{ann.manage_key}/erase/"
    asked = client.get(url).content.decode()
    assert "Erase your details?" in asked and "Your entry will be withdrawn first" in asked
    assert Entry.objects.get(pk=ann.pk).email == "ann@example.org"  # asking changed nothing

    done = client.post(url, follow=True).content.decode()

    assert "Your entry is withdrawn and your contact details are erased." in done
    assert "Your contact details were erased on" in done
    assert 'name="email"' not in done  # no details left to change
    ann.refresh_from_db()
    bob.refresh_from_db()
    assert (ann.status, ann.email, ann.phone) == ("withdrawn", "", "")
    assert bob.status == "offered"  # the place passed on, as at any withdrawal


def test_erasing_after_play_began_keeps_the_entry_and_its_name(as_organiser, organiser):
    tournament = open_tournament()
    factories.StaffFactory(tournament=tournament, role="organiser", user=organiser)
    ann = enter(tournament, "Ann Abbott")
    for name in ("Bob Brown", "Cy Cole"):
        enter(tournament, name)
    table_services.check_in_everyone(tournament=tournament, by=organiser)
    stage = factories.StageFactory(tournament=tournament, table_size_min=3, table_size_max=4)
    table_services.seat_stage(stage=stage, by=organiser, seed=1)
    url = f"/es/t/{tournament.slug}/entry/{ann.manage_key}/erase/"
    asked = Client().get(url).content.decode()
    assert "Ann Abbott" in asked and "sigue en los resultados" in asked

    answer = Client().post(f"/api/v1/entries/{ann.manage_key}/erase/")

    assert answer.status_code == 200
    assert (answer.json()["status"], answer.json()["email"]) == ("entered", "")
    ann.refresh_from_db()
    assert ann.player.status == Player.Status.CHECKED_IN and ann.player.name == "Ann Abbott"
    again = Client().post(f"/api/v1/entries/{ann.manage_key}/erase/")
    assert again.status_code == 409 and "nothing changed" in again.json()["detail"]
    assert Client().post("/api/v1/entries/not-a-key/erase/").status_code == 404


def test_the_download_holds_the_entry_its_payments_and_its_mails(
    smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament(name="Harvest Open", entry_fee=Decimal(10), capacity=1)
    with django_capture_on_commit_callbacks(execute=True):
        ann = enter(tournament, "Ann Abbott", phone="555 0101", age=67, club="Lakeside")
        bob = enter(tournament, "Bob Brown")
    Payment.objects.create(entry=ann, amount=Decimal(10), method="cash", note="at the desk")
    client = Client()

    page = client.get(f"/en/t/{tournament.slug}/entry/{ann.manage_key}/my-data.json")

    assert page.status_code == 200
    assert page["Content-Disposition"] == f'attachment; filename="entry-{tournament.slug}.json"'
    data = json.loads(page.content)
    assert data["tournament"]["name"] == "Harvest Open"
    entry = data["entry"]
    assert (entry["name"], entry["email"], entry["phone"], entry["age"]) == (
        "Ann Abbott", "ann@example.org", "555 0101", 67,
    )  # fmt: skip
    assert (entry["status"], entry["number"], entry["club"]) == ("entered", 1, "Lakeside")
    assert (entry["fee_due"], entry["paid"], entry["currency"]) == ("10.00", "10.00", "USD")
    assert entry["check_in_code"] == ann.check_in_code
    assert data["payments"] == [
        {"amount": "10.00", "method": "cash", "note": "at the desk",
         "recorded_at": data["payments"][0]["recorded_at"]}
    ]  # fmt: skip
    [receipt] = data["messages"]
    assert receipt["subject"] == "Your entry to Harvest Open"
    assert (receipt["status"], receipt["email"]) == ("sent", "ann@example.org")
    assert ann.manage_key in receipt["text"]  # the mail's own text, its link in it
    # Bob's is his alone, at his own address; the API gives the same.
    other = client.get(f"/api/v1/entries/{bob.manage_key}/data/").json()
    assert other["entry"]["status"] == "waitlisted" and other["entry"]["email"] == "bob@example.org"
    assert "ann@example.org" not in json.dumps(other)
    assert client.get("/api/v1/entries/not-a-key/data/").status_code == 404

    privacy.erase_contact(ann)
    after = client.get(f"/api/v1/entries/{ann.manage_key}/data/").json()
    erased = after["entry"]
    assert (erased["email"], erased["phone"], erased["age"]) == ("", "", None)
    assert after["entry"]["contact_erased_at"] and after["messages"][0]["email"] == ""


# No contact detail on a public page or a public API answer.

PEOPLE = [
    "Agnes Moreau", "Bud Kowalczyk", "Consuelo Ibáñez", "Dale Whitaker", "Edna Fairbanks",
    "Fermín Castillo", "Gail Henderson", "Hank Lundqvist", "Irma Delacroix", "Jack O'Malley",
    "Kay Nakamura", "Luis Echeverría",
]  # fmt: skip


@pytest.fixture
def finished_with_entries(django_capture_on_commit_callbacks):
    """A club night whose twelve players all entered online, played to its placings; no dates,
    so its last day is the day its final closed."""
    organiser, official = factories.UserFactory(), factories.UserFactory()
    tournament = new_tournament("Open Night", "open-night", organiser, official)
    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(
        entries_open_at=now - timedelta(days=1), starts_on=None, ends_on=None
    )
    tournament.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        for n, name in enumerate(PEOPLE):
            enter(tournament, name, f"person{n}.secret@example.net", phone=f"+1 555 01{n:02d}",
                  age=60 + n)  # fmt: skip
        table_services.check_in_everyone(tournament=tournament, by=organiser)
        qualifying = tournament.stages.order_by("order").first()
        table_services.seat_stage(stage=qualifying, by=organiser, seed=12)
        play_to_the_end(tournament, organiser, official, random.Random(12))
    return tournament


def named_patterns(patterns=None, params=()) -> list[tuple[str, set[str]]]:
    found = []
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        own = set(pattern.pattern.regex.groupindex)
        if isinstance(pattern, URLResolver):
            found += named_patterns(pattern.url_patterns, {*params, *own})
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append((pattern.name, {*params, *own}))
    return found


def public_addresses(tournament) -> dict[str, str]:
    """Every address of the site that a tournament's values fill, by its name and values."""
    stages = list(tournament.stages.order_by("order"))
    values = {
        "slug": [tournament.slug],
        "stage_id": [stage.pk for stage in stages],
        "order": [stage.order for stage in stages],
        "number": [1, len(PEOPLE)],
        "table_id": list(stages[0].tables.values_list("pk", flat=True)[:2]),
        "player_id": list(tournament.players.values_list("pk", flat=True)[:2]),
        "round_no": [1],
    }
    addresses = {}
    with translation.override("en"):
        for name, params in named_patterns():
            if not params <= set(values):
                continue
            for combo in product(*(values[p] for p in sorted(params))):
                kwargs = dict(zip(sorted(params), combo, strict=True))
                try:
                    addresses[f"{name} {kwargs}"] = reverse(name, kwargs=kwargs)
                except NoReverseMatch:
                    continue
    return addresses


def text_of(answer) -> str:
    if answer["Content-Type"].startswith("application/pdf"):
        pages = PdfReader(io.BytesIO(answer.content)).pages
        return "\n".join(page.extract_text() for page in pages)
    return answer.content.decode(errors="replace")


def test_no_public_page_or_api_answer_shows_an_entrants_email_or_phone(finished_with_entries):
    tournament = finished_with_entries
    secrets = [*Entry.objects.values_list("email", flat=True),
               *Entry.objects.values_list("phone", flat=True)]  # fmt: skip
    assert len(secrets) == 2 * len(PEOPLE)
    shown = {}
    for name, path in public_addresses(tournament).items():
        answer = Client().get(path)
        if answer.status_code == 200 and not answer.streaming:
            shown[name.split()[0]] = text_of(answer)
            leaked = [s for s in secrets if s.lower() in shown[name.split()[0]].lower()]
            assert leaked == [], f"{path} shows {leaked}"
            assert not re.search(r"secret@example\.net", shown[name.split()[0]])
    # The walk reached the pages and answers a player reads.
    assert {
        "tournament-home", "find-player", "player-page", "bracket", "results", "results-pdf",
        "tournament-detail", "stage-standings",
    } <= set(shown)  # fmt: skip
    assert "Agnes Moreau" in shown["results-pdf"] and "Agnes Moreau" in shown["results"]


def test_after_the_erase_day_the_results_keep_every_name(finished_with_entries):
    tournament = finished_with_entries
    assert privacy.last_day(tournament) == timezone.localdate(timezone=tournament.zone)
    assert privacy.erase_old_contacts(now=timezone.now() + timedelta(days=89)) == 0
    assert privacy.erase_old_contacts(now=timezone.now() + timedelta(days=91)) == len(PEOPLE)
    assert not Entry.objects.exclude(email="").exists()
    results = Client().get(f"/en/t/{tournament.slug}/results/").content.decode()
    assert all(name.replace("'", "&#x27;") in results for name in PEOPLE)
    assert Player.objects.filter(tournament=tournament).count() == len(PEOPLE)
