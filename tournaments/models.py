"""Tournaments, their staff, players and stages; every invariant has a constraint behind it."""

import secrets
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from tournaments.choices import DEFAULT_TIEBREAKS, LateEntryRule
from tournaments.presets import DOMINO_SETS, PRESETS


def default_tiebreaks() -> list[str]:
    """Most rounds won, then countback from the last round (DESIGN.md)."""
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
        PAGAT = "pagat", _("Long rules write-up (pagat)")
        ONLINE = "online", _("Online game rules")

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
            models.CheckConstraint(name="tournaments_tournament_slug_set", condition=~Q(slug="")),
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
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


class Staff(models.Model):
    """A user's role in one tournament: organisers run it, officials enter and confirm results."""

    class Role(models.TextChoices):
        ORGANISER = "organiser", _("Organiser")
        OFFICIAL = "official", _("Official")

    class Joined(models.TextChoices):
        CREATED = "created", _("Created the tournament")
        ADDED = "added", _("Added by name")
        INVITATION = "invitation", _("Accepted an invitation")
        TABLET = "tablet", _("Tablet without an account")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="staff")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_roles"
    )
    role = models.CharField(max_length=20, choices=Role.choices)
    joined_via = models.CharField(max_length=20, choices=Joined.choices, default=Joined.ADDED)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Last sign-in or page seen while signed in (accounts.middleware), at most every few minutes.
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "staff"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"], name="tournaments_staff_one_role_per_tournament"
            ),
            models.CheckConstraint(
                name="tournaments_staff_role_known", condition=Q(role__in=["organiser", "official"])
            ),
            # A tablet session enters scores; it never runs the tournament.
            models.CheckConstraint(
                name="tournaments_staff_tablet_is_official",
                condition=~Q(joined_via="tablet") | Q(role="official"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role} of {self.tournament})"


def new_invitation_key() -> str:
    return secrets.token_urlsafe(24)


class Invitation(models.Model):
    """A link (and its QR code) that gives whoever opens it first a role in one tournament:
    it works once, until it expires or is revoked."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be accepted")
        ACCEPTED = "accepted", _("Accepted")
        REVOKED = "revoked", _("Revoked")
        EXPIRED = "expired", _("Expired")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=20, choices=Staff.Role.choices)
    key = models.CharField(max_length=64, unique=True, default=new_invitation_key, editable=False)
    email = models.EmailField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                name="tournaments_invitation_role_known",
                condition=Q(role__in=["organiser", "official"]),
            ),
            models.CheckConstraint(
                name="tournaments_invitation_used_once",
                condition=Q(accepted_at__isnull=True) | Q(revoked_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()} of {self.tournament}"

    def status_at(self, now) -> str:
        if self.accepted_at is not None:
            return self.Status.ACCEPTED
        if self.revoked_at is not None:
            return self.Status.REVOKED
        if self.expires_at <= now:
            return self.Status.EXPIRED
        return self.Status.PENDING

    @property
    def status(self) -> str:
        from django.utils import timezone

        return self.status_at(timezone.now())


class StaffEvent(models.Model):
    """Who gave, changed or took away a role in a tournament, and when: the Staff page's log."""

    class Action(models.TextChoices):
        CREATED = "created", _("created the tournament")
        ADDED = "added", _("added by name")
        INVITED = "invited", _("invitation made")
        ACCEPTED = "accepted", _("invitation accepted")
        REVOKED = "revoked", _("invitation revoked")
        TABLET = "tablet", _("joined on a tablet without an account")
        ROLE_CHANGED = "role_changed", _("role changed")
        REMOVED = "removed", _("removed")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="staff_events"
    )
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=20, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # Names as they were, kept when an account is deleted.
    actor_name = models.CharField(max_length=150, blank=True)
    subject_name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=20, choices=Staff.Role.choices, blank=True)
    previous_role = models.CharField(max_length=20, choices=Staff.Role.choices, blank=True)
    invitation = models.ForeignKey(
        Invitation, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.subject_name}"


class PlayerChange(models.TextChoices):
    """Why a player's entry changed: the reason stored with each entry of its history."""

    BASELINE = "baseline", _("Entry when its history began")
    ADDED = "added", _("Added")
    IMPORTED = "imported", _("Imported from a CSV file")
    CORRECTED = "corrected", _("Entry corrected")
    CHECKED_IN = "checked_in", _("Checked in")
    SEATED_LATE = "seated_late", _("Checked in and seated late")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    REINSTATED = "reinstated", _("Reinstated")


class Player(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("Registered")
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
    status = models.CharField(
        _("Status"), max_length=20, choices=Status.choices, default=Status.REGISTERED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Every change to an entry, by whom and why (the services give a PlayerChange as the reason):
    # the console shows it under the player's entry, the admin under History. A player deleted on
    # their own (in the admin) keeps it, with who deleted them; a tournament deleted takes its
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


class StageQuerySet(models.QuerySet):
    """The rules of what follows a closed stage, in one place: the worker, the sweeper and the
    console ask them alike."""

    def with_table_count(self) -> "StageQuerySet":
        return self.annotate(table_count=Count("tables"))

    def qualifying_after(self, stage: "Stage") -> bool:
        """A later qualifying stage follows `stage`: everyone plays it (the organiser seats it),
        so `stage` sends nobody to a playoff and decides no placings."""
        return self.filter(
            tournament_id=stage.tournament_id, order__gt=stage.order, kind=Stage.Kind.QUALIFYING
        ).exists()

    def what_follows(self, stage: "Stage", *, tables: int) -> str:
        """What follows `stage`, of `tables` tables, once it closes: "qualifying" (everyone
        plays the later qualifying stage: nobody advances), "placings" (a stage of one table is
        the final) or "playoff" (its advancers are seated at the next level)."""
        if self.qualifying_after(stage):
            return "qualifying"
        return "placings" if tables == 1 else "playoff"

    def awaiting_next_level(self) -> "StageQuerySet":
        """Closed stages of several tables whose advancers are not seated at a next level yet
        (nor will be: a later qualifying stage follows)."""
        later_qualifying = Stage.objects.filter(
            tournament=OuterRef("tournament"),
            order__gt=OuterRef("order"),
            kind=Stage.Kind.QUALIFYING,
        )
        return (
            self.with_table_count()
            .filter(status=Stage.Status.CLOSED, next_level__isnull=True, table_count__gt=1)
            .exclude(Exists(later_qualifying))
        )

    def next_level_of(self, stage: "Stage") -> "Stage | None":
        """The playoff stage not seated yet that comes first after `stage`: where its advancers
        are seated (without one, the worker makes a level like the last)."""
        return (
            self.filter(
                tournament_id=stage.tournament_id,
                order__gt=stage.order,
                kind=Stage.Kind.PLAYOFF,
                status=Stage.Status.PENDING,
            )
            .order_by("order")
            .first()
        )

    def final_of(self, tournament: "Tournament") -> "Stage | None":
        """The stage that decided the placings, once there is one: the latest stage past seating
        is closed at one table (the worker places everyone when a stage of one table closes)."""
        latest = (
            self.filter(tournament=tournament)
            .exclude(status=Stage.Status.PENDING)
            .with_table_count()
            .order_by("-order")
            .first()
        )
        if (
            latest is not None
            and latest.status == Stage.Status.CLOSED
            and self.what_follows(latest, tables=latest.table_count) == "placings"
        ):
            return latest
        return None


class Stage(models.Model):
    """An ordered phase of a tournament: a qualifying stage or one level of the playoff bracket."""

    class Kind(models.TextChoices):
        QUALIFYING = "qualifying", _("Qualifying")
        PLAYOFF = "playoff", _("Playoff")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SEATED = "seated", _("Seated")
        CLOSED = "closed", _("Closed")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    order = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.QUALIFYING)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    # The set is the tournament's, copied so that the database can check the starting double.
    domino_set = models.PositiveSmallIntegerField(choices=Tournament.DominoSet.choices)
    rounds = models.PositiveSmallIntegerField()
    starting_double = models.PositiveSmallIntegerField()
    table_size_min = models.PositiveSmallIntegerField()
    table_size_max = models.PositiveSmallIntegerField()
    advance_per_table = models.PositiveSmallIntegerField(default=1)
    wildcards = models.PositiveSmallIntegerField(
        default=0, help_text=_("Best non-qualifiers overall who also advance.")
    )
    carry_forward = models.BooleanField(
        default=False, help_text=_("Totals of the earlier qualifying stages count in this one.")
    )
    requires_second_person = models.BooleanField(
        default=False,
        help_text=_("A result must be confirmed by someone other than its submitter."),
    )

    LateEntryRule = LateEntryRule

    late_entry_rule = models.CharField(
        max_length=20, choices=LateEntryRule.choices, default=LateEntryRule.TABLE_HIGH
    )
    source_stage = models.OneToOneField(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="next_level",
        help_text=_("The stage whose advancers were seated here."),
    )
    seed = models.BigIntegerField(
        null=True, blank=True, help_text=_("Seed of the recorded seating.")
    )
    seating_report = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Repeat tablemates and constraints the seating missed."),
    )
    advance_problem = models.TextField(
        blank=True,
        default="",
        help_text=_(
            "Closed: why its advancers could not be seated at the next level (or the placings "
            "decided) when last tried, in the site's language; empty once they are."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = StageQuerySet.as_manager()

    class Meta:
        ordering = ["tournament", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "order"], name="tournaments_stage_order_unique"
            ),
            models.CheckConstraint(
                name="tournaments_stage_order_positive", condition=Q(order__gte=1)
            ),
            models.CheckConstraint(name="tournaments_stage_name_set", condition=~Q(name="")),
            models.CheckConstraint(
                name="tournaments_stage_kind_known", condition=Q(kind__in=["qualifying", "playoff"])
            ),
            models.CheckConstraint(
                name="tournaments_stage_status_known",
                condition=Q(status__in=["pending", "seated", "closed"]),
            ),
            models.CheckConstraint(
                name="tournaments_stage_domino_set_known", condition=Q(domino_set__in=DOMINO_SETS)
            ),
            models.CheckConstraint(
                name="tournaments_stage_starting_double_in_set",
                condition=Q(starting_double__lte=F("domino_set")),
            ),
            models.CheckConstraint(
                name="tournaments_stage_rounds_positive", condition=Q(rounds__gte=1)
            ),
            models.CheckConstraint(
                name="tournaments_stage_rounds_within_doubles",
                condition=Q(rounds__lte=F("starting_double") + 1),
            ),
            models.CheckConstraint(
                name="tournaments_stage_table_size_min_two", condition=Q(table_size_min__gte=2)
            ),
            models.CheckConstraint(
                name="tournaments_stage_table_size_ordered",
                condition=Q(table_size_max__gte=F("table_size_min")),
            ),
            models.CheckConstraint(
                name="tournaments_stage_advance_positive", condition=Q(advance_per_table__gte=1)
            ),
            models.CheckConstraint(
                name="tournaments_stage_late_entry_rule_known",
                condition=Q(late_entry_rule__in=LateEntryRule.values),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.name}"

    def engine(self, round_no: int) -> int:
        return self.starting_double - (round_no - 1)

    @property
    def engines(self) -> list[int]:
        return [self.engine(n) for n in range(1, self.rounds + 1)]


class WorkerHeartbeat(models.Model):
    """When a Celery worker last ran a task: the console and readiness check show live workers."""

    hostname = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField()
    tasks_seen = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.hostname} at {self.seen_at:%H:%M:%S}"
