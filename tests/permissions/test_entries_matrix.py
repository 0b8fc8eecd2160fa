"""Who may call what in the entries' API, against every role, as test_matrix.py does for the
rest: an organiser's list, changes, payments and exports are this tournament's organisers'
(and the superuser's); entering, the kiosk and an entry's private address are anyone's, the key
in the address being the only credential there (a token sent with it changes nothing).

Each cell has a small world, built once and each cell's changes rolled back after it: a
tournament taking entries, two entered and one offered a place, a payment and a failed mail."""

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token

from entries.models import Delivery, Entry, Message, Payment
from entries.services import entering
from tests import factories
from tests.conftest import clear_cache
from tests.permissions.conftest import (
    PASSWORD,
    ROLES,
    built_once,
    client_as,
    database_state,
    seat_token,
)
from tests.permissions.test_matrix import Row, content
from tests.scoring.helpers import seat_tables

pytestmark = pytest.mark.django_db


@dataclass
class EntriesWorld:
    this: Any
    tokens: dict[str, str]
    ann: Entry  # entered, paid 10 in cash
    bob: Entry  # offered the place Cy gave back
    payment: Payment
    message: Message  # a mail to Ann that failed

    def ids(self) -> dict[str, Any]:
        return {
            "t": f"tournaments/{self.this.slug}",
            "ann": self.ann.pk,
            "pay": self.payment.pk,
            "key": self.ann.manage_key,
            "bobkey": self.bob.manage_key,
            "mid": self.message.pk,
        }


def build_entries_world() -> EntriesWorld:
    now = timezone.now()
    this = factories.TournamentFactory(
        name="Spring Samboree",
        slug="spring",
        entries_open_at=now - timedelta(hours=1),
        entries_close_at=now + timedelta(days=7),
        capacity=2,
        entry_fee=Decimal("10"),
    )
    other = factories.TournamentFactory(name="Autumn Rally", slug="autumn")
    users = {
        "player": factories.UserFactory(username="phone", password=PASSWORD),
        "official": factories.StaffFactory(tournament=this, role="official").user,
        "other_official": factories.StaffFactory(tournament=other, role="official").user,
        "organiser": factories.StaffFactory(tournament=this, role="organiser").user,
        "other_organiser": factories.StaffFactory(tournament=other, role="organiser").user,
        "superuser": get_user_model().objects.create_superuser(
            "root", "root@example.org", PASSWORD
        ),
    }
    tokens = {role: Token.objects.create(user=user).key for role, user in users.items()}
    # A seat's phone at the other tournament's table, whose players report.
    stage = factories.StageFactory(tournament=other, status="seated", reporting="players")
    (seated,) = seat_tables(stage, [["Zed", "Yan", "Xia"]])
    tokens["seat"] = seat_token(stage.tables.get(), seated[0].number)

    def enter(name: str) -> Entry:
        details = entering.Details(name=name, email=f"{name.lower()}@example.org")
        return entering.enter(tournament=this, details=details)

    ann, cy, bob = enter("Ann"), enter("Cy"), enter("Bob")
    entering.withdraw(cy)
    bob.refresh_from_db()
    payment = Payment.objects.create(entry=ann, amount=Decimal("10"), method="cash")
    message = Message.objects.create(tournament=this, kind="organiser", subject="Parking")
    Delivery.objects.create(message=message, entry=ann, email=ann.email, status="failed")
    return EntriesWorld(
        this=this, tokens=tokens, ann=ann, bob=bob, payment=payment, message=message
    )


# fmt: off
ENTRIES_MATRIX = [
    # Statuses: anonymous, player, official, other official, organiser, other organiser,
    # superuser, and a seat's phone (claimed at a table of the other tournament).
    #   name                 method  path                         ano ply off xof org xor sup seat
    Row("entry-list",        "GET",  "{t}/entries/",             "401 403 403 403 200 403 200 403"),
    # Anyone enters; the tournament is full, so each waits (201 all the same).
    Row("entry-create",      "POST", "{t}/entries/",             "201 201 201 201 201 201 201 201"),
    Row("entry-detail",      "GET",  "{t}/entries/{ann}/",       "401 403 403 403 200 403 200 403"),
    Row("entry-edit",        "PATCH","{t}/entries/{ann}/",       "401 403 403 403 200 403 200 403"),
    Row("entry-payments",    "GET",  "{t}/entries/{ann}/payments/",
                                                                 "401 403 403 403 200 403 200 403"),
    Row("entry-payment-add", "POST", "{t}/entries/{ann}/payments/",
                                                                 "401 403 403 403 201 403 201 403"),
    Row("entry-payment-del", "DELETE","{t}/entries/{ann}/payments/{pay}/",
                                                                 "401 403 403 403 204 403 204 403"),
    Row("export-entries",    "GET",  "{t}/exports/entries.csv",  "401 403 403 403 200 403 200 403"),
    Row("export-payments",   "GET",  "{t}/exports/payments.csv", "401 403 403 403 200 403 200 403"),
    Row("message-retry",     "POST", "{t}/messages/{mid}/retry/","401 403 403 403 202 403 202 403"),
    # The kiosk and an entry's private address are anyone's.
    Row("self-check-in",     "POST", "{t}/check-in/",            "200 200 200 200 200 200 200 200"),
    Row("entry-own",         "GET",  "entries/{key}/",           "200 200 200 200 200 200 200 200"),
    Row("entry-own-edit",    "PATCH","entries/{key}/",           "200 200 200 200 200 200 200 200"),
    Row("entry-own-withdraw","DELETE","entries/{key}/",          "204 204 204 204 204 204 204 204"),
    Row("entry-own-accept",  "POST", "entries/{bobkey}/accept/", "200 200 200 200 200 200 200 200"),
    Row("entry-own-data",    "GET",  "entries/{key}/data/",      "200 200 200 200 200 200 200 200"),
    Row("entry-own-erase",   "POST", "entries/{key}/erase/",     "200 200 200 200 200 200 200 200"),
]
# fmt: on

BODIES = {
    "entry-create": lambda w: {"name": "Dee", "email": "dee@example.org", "messages_ok": True},
    "entry-edit": lambda w: {"phone": "555-0101"},
    "entry-payment-add": lambda w: {"amount": "5.00", "method": "cheque"},
    "entry-payment-del": lambda w: {"reason": "Typed on the wrong entry"},
    "self-check-in": lambda w: {"code": w.ann.check_in_code},
    "entry-own-edit": lambda w: {"phone": "555-0102"},
}

CELLS = [
    pytest.param(row, role, int(expected), id=f"{row.name}-{role}")
    for row in ENTRIES_MATRIX
    for role, expected in zip(ROLES, row.expected.split(), strict=True)
]


def state() -> dict:
    return database_state("entries")


@pytest.fixture(scope="module")
def shared_entries_world(module_transaction, django_db_blocker) -> EntriesWorld:
    return built_once(django_db_blocker, build_entries_world)


@pytest.fixture
def world(shared_entries_world, db) -> EntriesWorld:
    """The world as built, for every cell (tests/permissions/conftest.py's `world`)."""
    clear_cache()
    return shared_entries_world


@pytest.mark.parametrize(("row", "role", "expected"), CELLS)
def test_entries_permission_cell(world: EntriesWorld, row: Row, role: str, expected: int):
    before = state()
    client = client_as(world, role)
    path = "/api/v1/" + row.path.format(**world.ids())
    send = getattr(client, row.method.lower())
    response = (
        send(path, BODIES[row.name](world), format="json") if row.name in BODIES else send(path)
    )
    assert response.status_code == expected, content(response)[:500]
    if expected == 401:
        assert response["WWW-Authenticate"] == "Token"
    if expected in (400, 401, 403, 409) or row.method == "GET":
        assert state() == before  # a refused call stores nothing; a read changes nothing
    else:
        assert state() != before, "a successful write changed nothing"
