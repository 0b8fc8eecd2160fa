"""Tables of a stage, the seats at them, and the players' claims of their seats."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player, Stage

# A table code is read off a card and typed on a phone: capitals and digits that cannot be
# taken for one another (no 0/O, 1/I/L, 5/S, 2/Z, 8/B).
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6


def new_table_code() -> str:
    """A table's code (25**6, about 244 million): a stage's tables each get one when made, so
    the codes change with each stage; guessing one is slowed per address (reporting.py)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Table(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=CODE_LENGTH, unique=True, default=new_table_code)
    officials_report = models.BooleanField(
        default=False,
        help_text=_(
            "In a stage whose players enter their rounds, an organiser handed this table back "
            "to the officials: its players' seats were signed out."
        ),
    )

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="tables_table_number_unique"),
            models.CheckConstraint(name="tables_table_number_positive", condition=Q(number__gte=1)),
        ]

    def __str__(self) -> str:
        return f"{self.stage.display_name}, table {self.number}"


class Seat(models.Model):
    """A player's place at a table: position 1..n clockwise; one seat per player per stage."""

    # The stage is the table's, copied so that the database can hold one seat per player per stage.
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="seats")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    # A late entry plays from a later round; a withdrawn player stops after the rounds reported.
    from_round = models.PositiveSmallIntegerField(default=1)
    to_round = models.PositiveSmallIntegerField(null=True, blank=True)
    from_table = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_("The table of the previous stage this player advanced from."),
    )

    class Meta:
        ordering = ["table", "position"]
        constraints = [
            models.CheckConstraint(
                name="tables_seat_from_round_positive", condition=Q(from_round__gte=1)
            ),
            models.CheckConstraint(
                name="tables_seat_rounds_ordered",
                condition=Q(to_round__isnull=True) | Q(to_round__gte=models.F("from_round") - 1),
            ),
            models.UniqueConstraint(
                fields=["stage", "player"], name="tables_seat_player_once_per_stage"
            ),
            models.UniqueConstraint(
                fields=["table", "position"], name="tables_seat_position_unique"
            ),
            models.CheckConstraint(
                name="tables_seat_position_positive", condition=Q(position__gte=1)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}, seat {self.position}: {self.player}"

    def plays_round(self, round_no: int) -> bool:
        return self.from_round <= round_no and (self.to_round is None or round_no <= self.to_round)


class SeatClaim(models.Model):
    """A phone that claimed a seat with the table's code and the player's badge number.

    Each claim is its own user (no password, no e-mail, named seat-...) with a token: the
    round's history names who entered a version as for an official, and the claim says which
    seat that was. A claim ends (ended_at, the user made inactive, the token deleted) when the
    table or its stage goes back to the officials, or the stage closes.
    """

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="claims")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seat_claim"
    )
    claimed_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["seat", "claimed_at"]

    def __str__(self) -> str:
        return f"{self.seat} (claimed {self.claimed_at:%Y-%m-%d %H:%M})"

    @property
    def active(self) -> bool:
        return self.ended_at is None
