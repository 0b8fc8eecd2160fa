"""The demo's event with entries open (make run): made through the entry service, with a full
house, an offer, a waitlist and payments of each kind, loaded once."""

from collections import Counter

import pytest
from django.test import Client
from django.utils import timezone

from entries import rules
from entries.demo import CAPACITY, ENTRIES_SLUG, demo_entry, load_entries_demo
from entries.models import Delivery, Entry, Payment
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_demo_event_takes_entries_with_a_full_house_an_offer_and_a_waitlist(
    django_capture_on_commit_callbacks,
):
    organiser, official = factories.UserFactory(), factories.UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        tournament = load_entries_demo(organiser, official)

    assert tournament.slug == ENTRIES_SLUG and rules.closed_reason(tournament) is None
    assert (tournament.capacity, tournament.waitlist, tournament.entry_fee) == (CAPACITY, True, 10)
    statuses = Counter(tournament.entries.values_list("status", flat=True))
    assert statuses == {"entered": 24, "offered": 1, "waitlisted": 3, "withdrawn": 1}
    assert rules.places_free(tournament) == 0
    assert list(
        tournament.entries.filter(status="waitlisted")
        .order_by("waitlist_position")
        .values_list("waitlist_position", flat=True)
    ) == [1, 2, 3]
    assert tournament.players.exclude(status="withdrawn").count() == 24
    payments = Payment.objects.filter(entry__tournament=tournament)
    methods = Counter(payments.values_list("method", flat=True))
    assert methods == {"cash": 10, "card": 6, "waived": 2, "refund": 1}
    # Its mails are kept as sent: none went out.
    assert set(Delivery.objects.values_list("status", flat=True)) == {"sent"}
    assert (tournament.starts_on - timezone.localdate()).days == 21  # three weeks ahead
    assert {e.email.rsplit("@")[1] for e in Entry.objects.all()} == {"example.com"}

    entry = demo_entry(tournament)
    page = Client().get(f"/en/t/{tournament.slug}/entry/{entry.manage_key}/")
    assert page.status_code == 200 and entry.check_in_code in page.content.decode()
    assert load_entries_demo(organiser, official).pk == tournament.pk  # kept, not doubled
    assert Entry.objects.count() == sum(statuses.values())
