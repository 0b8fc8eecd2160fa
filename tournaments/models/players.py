"""Who plays in a tournament: its players, and the reasons their entries' history records."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from tournaments.models.divisions import Division
from tournaments.models.tournaments import Tournament


class PlayerChange(models.TextChoices):
    """Why a player's entry changed: the reason stored with each entry of its history."""

    BASELINE = "baseline", _("Entry as first recorded")
    ADDED = "added", _("Added")
    IMPORTED = "imported", _("Imported from a CSV file")
    CORRECTED = "corrected", _("Entry corrected")
    UPDATED = "updated_from_file", _("Entry corrected from a CSV file")
    CHECKED_IN = "checked_in", _("Checked in")
    SEATED_LATE = "seated_late", _("Checked in and seated late")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    REINSTATED = "reinstated", _("Reinstated")
    DELETED = "deleted", _("Deleted (entered by mistake)")


class Player(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("Not checked in")
        CHECKED_IN = "checked_in", _("Checked in")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    MAX_NUMBER = 2_000_000_000  # within every database's integer column

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    number = models.PositiveIntegerField(
        _("Number"), help_text=_("Badge number, unique in the tournament.")
    )
    name = models.CharField(_("Name"), max_length=120)
    household = models.CharField(
        _("Household"),
        max_length=120,
        blank=True,
        help_text=_("Players of one household are seated apart."),
    )
    club = models.CharField(_("Club"), max_length=120, blank=True)
    division = models.ForeignKey(
        Division,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="players",
        verbose_name=_("Division"),
    )
    status = models.CharField(
        _("Status"), max_length=20, choices=Status.choices, default=Status.REGISTERED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Every change to an entry, by whom and why (the services give a PlayerChange as the reason):
    # the console shows it under the player's entry, the admin under History. A player deleted on
    # their own (entered by mistake: services.delete_player, or in the admin) keeps it, with who
    # deleted them; a tournament deleted takes its
    # players' history along (signals.forget_players_history).
    history = HistoricalRecords(excluded_fields=["created_at"])

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="tournaments_player_number_unique"
            ),
            models.CheckConstraint(
                name="tournaments_player_number_positive", condition=Q(number__gte=1)
            ),
            models.CheckConstraint(name="tournaments_player_name_set", condition=~Q(name="")),
            models.CheckConstraint(
                name="tournaments_player_status_known",
                condition=Q(status__in=["registered", "checked_in", "withdrawn"]),
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.number} {self.name}"
