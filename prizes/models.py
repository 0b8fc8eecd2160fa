"""Prize tables: for the whole event or one division, each place's prize (cash or an item, or
both) and a booby prize if the organiser wants one, the cash typed or shared out of the entry
fees, and announced (then locked) once it is right. docs/DESIGN.md, "Prizes".

The scope is the table's tournament and, when it is one division's, that division: a later
flight (one group of a division) comes in as a third, nullable foreign key beside `division`,
with the two unique constraints below given `flight` too (the event's table: neither set)."""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Division, Tournament


class PrizeTable(models.Model):
    class Basis(models.TextChoices):
        AMOUNTS = "amounts", _("Amounts I type")
        COLLECTED = "collected", _("A share of the fees collected")
        DUE = "due", _("A share of the fees due (the fee of every entry)")

    class RemainderTo(models.TextChoices):
        HOUSE = "house", _("The organiser (the house)")
        FIRST = "first", _("The first place")

    # Rounded down to: a cent, a whole unit, five or ten units.
    STEPS = (Decimal("0.01"), Decimal(1), Decimal(5), Decimal(10))

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="prize_tables"
    )
    division = models.ForeignKey(
        Division, on_delete=models.CASCADE, null=True, blank=True, related_name="prize_tables"
    )
    basis = models.CharField(max_length=10, choices=Basis.choices, default=Basis.AMOUNTS)
    step = models.DecimalField(max_digits=6, decimal_places=2, default=Decimal(1))
    remainder_to = models.CharField(
        max_length=10, choices=RemainderTo.choices, default=RemainderTo.HOUSE
    )
    # Announced: locked, and the pot it was shared from kept, so that a payment recorded later
    # changes no prize that was announced. Unlocked (with a reason, logged): both cleared.
    announced_at = models.DateTimeField(null=True, blank=True)
    announced_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    announced_pot = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    # One more at every save, announce and unlock: an announcement names the version that was
    # shown, so that it never locks a table another organiser changed in the meantime.
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament"],
                condition=Q(division__isnull=True),
                name="prizes_prizetable_one_for_the_event",
            ),
            models.UniqueConstraint(
                fields=["tournament", "division"],
                condition=Q(division__isnull=False),
                name="prizes_prizetable_one_per_division",
            ),
            models.CheckConstraint(
                name="prizes_prizetable_basis_known",
                condition=Q(basis__in=["amounts", "collected", "due"]),
            ),
            models.CheckConstraint(
                name="prizes_prizetable_remainder_to_known",
                condition=Q(remainder_to__in=["house", "first"]),
            ),
            models.CheckConstraint(
                name="prizes_prizetable_step_known",
                condition=Q(step__in=[Decimal("0.01"), Decimal(1), Decimal(5), Decimal(10)]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} · {self.division or 'event'}"

    @property
    def announced(self) -> bool:
        return self.announced_at is not None

    @property
    def from_fees(self) -> bool:
        return self.basis != self.Basis.AMOUNTS


class Prize(models.Model):
    """One row of a table: a place (1, 2, ...) or, with no place, the booby prize (the last
    place). Its cash is an amount, or a percentage of the pot for a table paid from the fees;
    an item ("Trophy") may come with it or instead."""

    table = models.ForeignKey(PrizeTable, on_delete=models.CASCADE, related_name="prizes")
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    amount = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    percent = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    item = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["table", models.F("place").asc(nulls_last=True)]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "place"],
                condition=Q(place__isnull=False),
                name="prizes_prize_one_per_place",
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(place__isnull=True), name="prizes_prize_one_booby"
            ),
            models.CheckConstraint(
                name="prizes_prize_place_from_1", condition=Q(place__isnull=True) | Q(place__gte=1)
            ),
            models.CheckConstraint(
                name="prizes_prize_amount_not_negative",
                condition=Q(amount__isnull=True) | Q(amount__gte=0),
            ),
            models.CheckConstraint(
                name="prizes_prize_percent_in_range",
                condition=Q(percent__isnull=True) | (Q(percent__gt=0) & Q(percent__lte=100)),
            ),
            models.CheckConstraint(
                name="prizes_prize_something",
                condition=Q(amount__isnull=False) | Q(percent__isnull=False) | ~Q(item=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.place or 'booby'}: {self.amount or self.percent or ''} {self.item}"


class PrizeEvent(models.Model):
    """A prize table's log: saved, announced, unlocked (with the reason), each with who did it
    and the rows as they were, so that an announced table that was changed can be told."""

    class Action(models.TextChoices):
        SAVED = "saved", _("saved")
        ANNOUNCED = "announced", _("announced")
        UNLOCKED = "unlocked", _("unlocked")

    table = models.ForeignKey(PrizeTable, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=10, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)  # kept when the account goes
    reason = models.CharField(max_length=300, blank=True)
    rows = models.JSONField(default=list)  # the table's prizes then, as the API gives them

    class Meta:
        ordering = ["table", "-at", "-pk"]
        constraints = [
            models.CheckConstraint(
                name="prizes_prizeevent_action_known",
                condition=Q(action__in=["saved", "announced", "unlocked"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.action}"
