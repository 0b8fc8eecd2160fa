"""The demo's event with entries open (make run loads it beside scoring.demo's): a tournament
three weeks ahead with 25 places and a waitlist, entered as entrants would through the entry
form's service: 24 entered, one withdrawn, her place offered to the first waiting, 3 more
waiting; some paid (cash, card), some waived, the rest owing, the one who withdrew refunded.

The entries' mails are kept as sent (the demo's addresses are example.com ones): none leaves,
whatever EMAIL_URL says, and make run's console prints none."""

from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from entries.models import Delivery, Entry, Payment
from entries.services import entering
from scoring.demo_events import new_tournament
from tournaments.models import Tournament

ENTRIES_SLUG = "winter-round-up"
CAPACITY = 25
FEE = Decimal(10)
WITHDRAWS = "Marvin Tate"  # withdraws after entering: his place is offered on
# (name, household, language); couples share a household, seated apart on the day.
ENTRANTS: list[tuple[str, str, str]] = [
    ("Alice Hartley", "Hartley", "en"),
    ("Bob Hartley", "Hartley", "en"),
    ("Concepción Ruiz", "", "es"),
    ("Dwight Bauer", "", "en"),
    ("Evelyn Marsh", "Marsh", "en"),
    ("Floyd Marsh", "Marsh", "en"),
    (WITHDRAWS, "", "en"),
    ("Graciela Soto", "Soto", "es"),
    ("Héctor Soto", "Soto", "es"),
    ("Irene Castillo", "", "en"),
    ("Jasper Holt", "", "en"),
    ("Kathleen Doyle", "", "en"),
    ("Lorenzo Vega", "", "es"),
    ("Mabel Fenwick", "Fenwick", "en"),
    ("Nolan Fenwick", "Fenwick", "en"),
    ("Olga Petrova", "", "en"),
    ("Pauline Grady", "", "en"),
    ("Quentin Ames", "", "en"),
    ("Rhoda Kim", "Kim", "en"),
    ("Samuel Kim", "Kim", "en"),
    ("Thelma Rourke", "", "en"),
    ("Ulises Navarro", "", "es"),
    ("Velma Pryor", "", "en"),
    ("Wallace Crane", "", "en"),
    ("Xiomara Reyes", "", "es"),
    # Past the 25 places: the waitlist.
    ("Yvonne Becker", "", "en"),
    ("Zachary Lund", "", "en"),
    ("Ada Whitcomb", "", "en"),
    ("Benito Ortega", "", "es"),
]
# Payments by place in ENTRANTS (0-based): the rest of the entered owe their fee.
CASH = range(0, 10)
CARD = range(10, 16)
WAIVED = (16, 17)


def _email(name: str) -> str:
    return name.lower().replace(" ", ".").encode("ascii", "ignore").decode() + "@example.com"


def load_entries_demo(organiser, official) -> Tournament:
    """Create the entries event once; later calls keep it (and what happened to it since)."""
    existing = Tournament.objects.filter(slug=ENTRIES_SLUG).first()
    if existing is not None:
        return existing
    now = timezone.now()
    with transaction.atomic():
        tournament = new_tournament(
            "Winter Round-Up",
            ENTRIES_SLUG,
            organiser,
            official,
            starts_on=timezone.localdate() + timedelta(weeks=3),
            venue="Lakeside RV Park, Hall A",
            description="Enter online: 25 places, then a waitlist.",
            time_zone="America/Chicago",
        )
        Tournament.objects.filter(pk=tournament.pk).update(
            entries_open_at=now - timedelta(days=10),
            entries_close_at=now + timedelta(weeks=3) - timedelta(days=2),
            capacity=CAPACITY,
            waitlist=True,
            offer_hours=Decimal(48),
            entry_fee=FEE,
            currency="USD",
        )
        tournament.refresh_from_db()
        entries = []
        for n, (name, household, language) in enumerate(ENTRANTS):
            details = entering.Details(
                name=name,
                email=_email(name),
                phone=f"+1 555 01{n:02d}",
                household=household,
                club="Lakeside RV Club" if n % 3 == 0 else "",
                messages_ok=n % 4 != 3,
            )
            entries.append(
                entering.enter(tournament=tournament, details=details, language=language)
            )
        withdrawn = next(entry for entry in entries if entry.name == WITHDRAWS)
        entering.withdraw(withdrawn)  # the first waiting is offered his place
        Payment.objects.bulk_create(
            [Payment(entry=entries[i], amount=FEE, method="cash", recorded_by=organiser)
             for i in CASH]
            + [Payment(entry=entries[i], amount=FEE, method="card", recorded_by=organiser)
               for i in CARD]
            + [Payment(entry=entries[i], amount=FEE, method="waived", recorded_by=organiser,
                       note="Volunteer") for i in WAIVED]
            + [Payment(entry=withdrawn, amount=-FEE, method="refund", recorded_by=organiser,
                       note="Withdrew in time")]
        )  # fmt: skip
        # Entered over the past ten days, in order; their mails went out as they came.
        for n, entry in enumerate(entries):
            Entry.objects.filter(pk=entry.pk).update(
                entered_at=now - timedelta(days=10) + timedelta(hours=8 * n)
            )
        Delivery.objects.filter(message__tournament=tournament).update(
            status=Delivery.Status.SENT, sent_at=now, attempts=1
        )
    return tournament


def demo_entry(tournament: Tournament) -> Entry | None:
    """An entrant's entry to show: entered and paid."""
    return tournament.entries.filter(status=Entry.Status.ENTERED).order_by("entered_at").first()
