"""A tournament: its domino set, rule preset, tie-break order, days, venue and time zone."""

import zoneinfo
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import F, Q
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from tournaments.choices import DEFAULT_TIEBREAKS
from tournaments.presets import DOMINO_SETS, PRESETS


def default_tiebreaks() -> list[str]:
    """Most rounds won, then countback from the last round (docs/DESIGN.md)."""
    return list(DEFAULT_TIEBREAKS)


def default_time_zone() -> str:
    """A new tournament's zone: ROUNDHOUSE_TIME_ZONE, else the site's."""
    return settings.ROUNDHOUSE_TIME_ZONE


def validate_time_zone(name: str) -> None:
    """An IANA zone name such as America/Chicago (the list Python's zoneinfo knows)."""
    if name not in available_time_zones():
        raise ValidationError(
            _("%(name)s is not a time zone name: use one such as America/Chicago.")
            % {"name": repr(name)},
            code="invalid",
        )


def available_time_zones() -> set[str]:
    return zoneinfo.available_timezones()


class Tournament(models.Model):
    class DominoSet(models.IntegerChoices):
        DOUBLE_6 = 6, _("double-6")
        DOUBLE_9 = 9, _("double-9")
        DOUBLE_12 = 12, _("double-12")
        DOUBLE_15 = 15, _("double-15")
        DOUBLE_18 = 18, _("double-18")

    class Preset(models.TextChoices):
        # The labels of tournaments.presets.PRESETS, spelled out here so that they are translated.
        SAMBOREE = "samboree", _("Samboree (RV rally tournament)")
        PARSONS = "parsons", _("Parsons / Puremco rules")
        PAGAT = "pagat", _("Detailed rules (pagat.com)")
        ONLINE = "online", _("Online game rules")
        SENIOR_GAMES = "senior_games", _("Senior games with age categories")
        SENIOR_OLYMPICS = "senior_olympics", _("Senior Olympics: two timed games")
        ELEVEN_THREE = "eleven_three", _("Club day: the 11-3 rule")
        CHAMPIONSHIP_DAY = "championship_day", _("A day with a championship game")
        RV_CLUB = "rv_club", _("RV club rally")

    class DivisionPlayoffs(models.TextChoices):
        SHARED = "shared", _("One playoff for everyone, placed and given medals per division")
        PER_DIVISION = "per_division", _("A playoff for each division, of its table winners")

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=60, unique=True)
    domino_set = models.PositiveSmallIntegerField(
        choices=DominoSet.choices, default=DominoSet.DOUBLE_12
    )
    preset = models.CharField(max_length=20, choices=Preset.choices, default=Preset.SAMBOREE)
    tiebreak_rules = models.JSONField(
        default=default_tiebreaks,
        help_text=_("Tie-break rules in order, after the total: rounds_won, countback."),
    )
    starts_on = models.DateField(_("First day"), null=True, blank=True)
    ends_on = models.DateField(_("Last day"), null=True, blank=True)
    venue = models.CharField(_("Venue"), max_length=200, blank=True)
    description = models.TextField(_("Description"), max_length=2000, blank=True)
    time_zone = models.CharField(
        _("Time zone"),
        max_length=64,
        default=default_time_zone,
        validators=[validate_time_zone],
        help_text=_("Every time on the pages, exports and cards is shown in this zone."),
    )
    division_playoffs = models.CharField(
        _("Playoffs with divisions"),
        max_length=20,
        choices=DivisionPlayoffs.choices,
        default=DivisionPlayoffs.SHARED,
    )
    listed = models.BooleanField(
        _("Listed on the home page"),
        default=True,
        help_text=_(
            "Shown in the list of tournaments on the home page. Its pages answer at their "
            "address either way."
        ),
    )
    practice = models.BooleanField(
        _("Practice"),
        default=False,
        help_text=_(
            "A rehearsal: never listed, marked Practice on every page, card and file, and its "
            "seats and results can be reset."
        ),
    )
    # Entries taken before the day (the entries app): open between the two times (no opening
    # time: closed; no closing time: open until the first stage is seated), at most `capacity`
    # players (none: no cap), then a waitlist whose first entry is offered a freed place for
    # `offer_hours`. The fee is due from each entry (a division's own fee replaces it).
    entries_open_at = models.DateTimeField(_("Entries open"), null=True, blank=True)
    entries_close_at = models.DateTimeField(
        _("Entries close"),
        null=True,
        blank=True,
        help_text=_("Empty: entries stay open until the first stage is seated."),
    )
    capacity = models.PositiveIntegerField(
        _("Places"),
        null=True,
        blank=True,
        help_text=_("Players entered at most. Empty for no limit."),
    )
    waitlist = models.BooleanField(
        _("Waitlist"),
        default=True,
        help_text=_("When every place is taken, further entries wait in order for a place."),
    )
    offer_hours = models.DecimalField(
        _("Hours to take a place"),
        max_digits=6,
        decimal_places=2,
        default=Decimal(24),
        validators=[MinValueValidator(Decimal("0.25"))],
        help_text=_("How long the first waiting entry has to take a place that was freed."),
    )
    entry_fee = models.DecimalField(
        _("Entry fee"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal(0))],
        help_text=_("Empty: free to enter."),
    )
    currency = models.CharField(
        _("Currency"),
        max_length=3,
        default="USD",
        validators=[RegexValidator(r"^[A-Z]{3}$", _("A three-letter ISO 4217 code, such as USD."))],
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "name"]
        constraints = [
            models.CheckConstraint(
                name="tournaments_tournament_domino_set_known",
                condition=Q(domino_set__in=DOMINO_SETS),
            ),
            models.CheckConstraint(
                name="tournaments_tournament_preset_known", condition=Q(preset__in=list(PRESETS))
            ),
            models.CheckConstraint(name="tournaments_tournament_name_set", condition=~Q(name="")),
            models.CheckConstraint(
                name="tournaments_tournament_division_playoffs_known",
                condition=Q(division_playoffs__in=["shared", "per_division"]),
            ),
            models.CheckConstraint(name="tournaments_tournament_slug_set", condition=~Q(slug="")),
            models.CheckConstraint(
                name="tournaments_tournament_entries_times_ordered",
                condition=Q(entries_open_at__isnull=True)
                | Q(entries_close_at__isnull=True)
                | Q(entries_close_at__gt=F("entries_open_at")),
            ),
            models.CheckConstraint(
                name="tournaments_tournament_entry_fee_not_negative",
                condition=Q(entry_fee__isnull=True) | Q(entry_fee__gte=0),
            ),
            models.CheckConstraint(
                name="tournaments_tournament_offer_hours_positive",
                condition=Q(offer_hours__gt=0),
            ),
            models.CheckConstraint(
                name="tournaments_tournament_days_ordered",
                condition=Q(starts_on__isnull=True)
                | Q(ends_on__isnull=True)
                | Q(ends_on__gte=F("starts_on")),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def shown_in_lists(self) -> bool:
        """Whether the home page and the API's list show it to anyone (a practice one never)."""
        return self.listed and not self.practice

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)

    @cached_property
    def placed_by_total(self) -> bool:
        """No playoff: its last stage places everyone by total when it closes (a county Silver
        Games). Its public pages say "Final placings", not "Playoffs"; "How it works" says no
        playoff follows."""
        # A value, not a Stage: a Stage fetched through the manager with its tournament_id
        # deferred would fetch it again (the manager sets the stage's tournament from it).
        return any(self.stages.last_decides_placings())
