"""A tournament's divisions: groups of players placed and given medals among themselves (age
categories such as 50-59, 60-69, 70-79 and 80+ at senior games). A flight is a division made by
splitting the players, by rating or by the organiser's list (flight A, B, ...): placed, given
medals and shown as a division is; a tournament has divisions or flights, not both."""

from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.models.tournaments import Tournament


class Division(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="divisions")
    name = models.CharField(_("Name"), max_length=80)
    age_min = models.PositiveSmallIntegerField(
        _("Youngest age"),
        null=True,
        blank=True,
        help_text=_("A player of this age or older may be put in it by an import's age."),
    )
    age_max = models.PositiveSmallIntegerField(
        _("Oldest age"),
        null=True,
        blank=True,
        help_text=_("Empty for no upper age (80 and over)."),
    )
    description = models.CharField(_("Description"), max_length=300, blank=True)
    order = models.PositiveSmallIntegerField(default=1)
    # Made by splitting the players (tournaments.services.flights), not chosen one by one: the
    # pages say "Flight A" instead of "Division A", and the flights' console splits them again.
    flight = models.BooleanField(_("Flight"), default=False)
    entry_fee = models.DecimalField(
        _("Entry fee"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal(0))],
        help_text=_("Empty: the tournament's fee."),
    )

    class Meta:
        ordering = ["tournament", "order", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "name"], name="tournaments_division_name_unique"
            ),
            models.CheckConstraint(name="tournaments_division_name_set", condition=~Q(name="")),
            models.CheckConstraint(
                name="tournaments_division_ages_ordered",
                condition=Q(age_min__isnull=True)
                | Q(age_max__isnull=True)
                | Q(age_max__gte=F("age_min")),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def title(self) -> str:
        """ "Division 60-69" or "Flight A", as headings say it."""
        if self.flight:
            return gettext("Flight %(name)s") % {"name": self.name}
        return gettext("Division %(name)s") % {"name": self.name}

    def takes_age(self, age: int) -> bool:
        """An age within the division's range (a division without one takes no age)."""
        if self.age_min is None and self.age_max is None:
            return False
        return (self.age_min is None or age >= self.age_min) and (
            self.age_max is None or age <= self.age_max
        )
