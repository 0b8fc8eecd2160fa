"""Tables of a stage and the seats at them."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player, Stage


class Table(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()

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
