"""A tournament's stages, and the rules of what follows a closed one (StageQuerySet)."""

from django.db import models
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils.translation import gettext_lazy as _

from tournaments.choices import Follows, LateEntryRule
from tournaments.models.tournaments import Tournament
from tournaments.presets import DOMINO_SETS
from tournaments.stagenames import NAME_KEY_PATTERN, say


class StageQuerySet(models.QuerySet):
    """The rules of what follows a closed stage, in one place: the worker, the sweeper and the
    console ask them alike."""

    def with_table_count(self) -> "StageQuerySet":
        return self.annotate(table_count=Count("tables"))

    def last_decides_placings(self) -> "StageQuerySet":
        """Whether the last of these stages (a tournament's) places everyone by total: no
        playoff follows (Tournament.placed_by_total). One value, or none without stages; a
        subquery too (Subquery(...filter(tournament_id=OuterRef(...)).last_decides_placings()))."""
        return self.order_by("-order").values_list("decides_placings", flat=True)[:1]

    def qualifying_after(self, stage: "Stage") -> bool:
        """A later qualifying stage follows `stage`: everyone plays it (the organiser seats it),
        so `stage` sends nobody to a playoff and decides no placings."""
        return self.filter(
            tournament_id=stage.tournament_id, order__gt=stage.order, kind=Stage.Kind.QUALIFYING
        ).exists()

    def what_follows(self, stage: "Stage", *, tables: int) -> Follows:
        """What follows `stage`, of `tables` tables, once it closes: QUALIFYING (everyone plays
        the later qualifying stage: nobody advances), PLACINGS (a stage of one table is the
        final; a stage that decides the placings places everyone by total) or PLAYOFF (its
        advancers are seated at the next level)."""
        if self.qualifying_after(stage):
            return Follows.QUALIFYING
        tables = self.competing_tables(stage) if _divisions_apart(stage) else tables
        return Follows.PLACINGS if tables == 1 or stage.decides_placings else Follows.PLAYOFF

    def competing_tables(self, stage: "Stage") -> int:
        """The most tables whose players compete for the same places: at a playoff level of a
        tournament whose divisions play their own playoffs, each division's tables compete
        apart (a division at one table plays its final there); elsewhere, all the tables."""
        if not _divisions_apart(stage):
            return stage.tables.count()
        per_division = stage.tables.values("seats__player__division").annotate(
            tables=Count("pk", distinct=True)
        )
        return max((row["tables"] for row in per_division), default=0)

    def finals_of_divisions(self) -> list[int]:
        """Closed playoff levels where every division played at one table of its own: each
        table a division's final, the last level of the tournament's playoffs."""
        candidates = Stage.objects.filter(
            status=Stage.Status.CLOSED,
            kind=Stage.Kind.PLAYOFF,
            tournament__division_playoffs=Tournament.DivisionPlayoffs.PER_DIVISION,
            next_level__isnull=True,
        ).select_related("tournament")
        return [stage.pk for stage in candidates if self.competing_tables(stage) == 1]

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
            .filter(
                status=Stage.Status.CLOSED,
                next_level__isnull=True,
                table_count__gt=1,
                decides_placings=False,
            )
            .exclude(Exists(later_qualifying))
            .exclude(pk__in=self.finals_of_divisions())
            .exclude(tournament__placings__stage=F("pk"))  # placed there: nobody played on
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
        if latest is None or latest.status != Stage.Status.CLOSED:
            return None
        if self.what_follows(latest, tables=latest.table_count) == Follows.PLACINGS:
            return latest
        # Divisions playing their own playoffs, none with two players left to play on: the
        # placings were decided at this stage.
        if latest.tournament.placings.filter(stage_id=latest.pk).exists():
            return latest
        return None


def _divisions_apart(stage: "Stage") -> bool:
    """A playoff level of a tournament whose divisions play their own playoffs."""
    return (
        stage.kind == Stage.Kind.PLAYOFF
        and stage.tournament.division_playoffs == Tournament.DivisionPlayoffs.PER_DIVISION
    )


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
    name_key = models.CharField(
        max_length=40,
        blank=True,
        default="",
        help_text=_(
            "The kind of name the product gave the stage, said in the reader's language; empty "
            "for a name the organiser typed, which stays as typed."
        ),
    )
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
        default=0,
        help_text=_("Extra players who advance: the best of the rest, across all tables."),
    )
    carry_forward = models.BooleanField(
        default=False, help_text=_("Totals of the earlier qualifying stages count in this one.")
    )
    requires_second_person = models.BooleanField(
        default=False,
        help_text=_(
            "Each result must be confirmed by a different official from the one who entered it."
        ),
    )

    class Reporting(models.TextChoices):
        OFFICIALS = "officials", _("Officials enter the rounds")
        PLAYERS = "players", _("The players enter their own rounds")

    reporting = models.CharField(
        max_length=20,
        choices=Reporting.choices,
        default=Reporting.OFFICIALS,
        help_text=_(
            "Who enters the rounds: officials, or the players at each table from their phones "
            "(one enters, another player at the table confirms)."
        ),
    )
    confirm_within_minutes = models.PositiveSmallIntegerField(
        default=10,
        help_text=_(
            "A round the players entered but nobody confirmed for this long is listed on the "
            "officials' board."
        ),
    )

    LateEntryRule = LateEntryRule

    late_entry_rule = models.CharField(
        max_length=20, choices=LateEntryRule.choices, default=LateEntryRule.TABLE_HIGH
    )
    decides_placings = models.BooleanField(
        _("Places everyone by total"),
        default=False,
        help_text=_(
            "When it closes, everyone is placed by their total across all its tables: no "
            "playoff follows."
        ),
    )

    class TimeRule(models.TextChoices):
        FINISH_ROUND = "finish_round", _("The round in play is finished; no new round starts")
        AS_STANDS = "as_stands", _("The round in play is scored as it stands, like a blocked round")

    time_limit_minutes = models.PositiveSmallIntegerField(
        _("Time limit (minutes)"),
        null=True,
        blank=True,
        help_text=_("Empty for no time limit."),
    )
    time_rule = models.CharField(
        _("When time is called"),
        max_length=20,
        choices=TimeRule.choices,
        default=TimeRule.FINISH_ROUND,
    )

    class Movement(models.TextChoices):
        NONE = "", _("Seated by the organiser")
        MOVE = "move", _("The lowest totals move up a table, the highest down")
        RESEAT = "reseat", _("Everyone is reseated, avoiding repeat tablemates")

    movement = models.CharField(
        _("Seating from the game before"),
        max_length=10,
        blank=True,
        default="",
        choices=Movement.choices,
        help_text=_(
            "Set on a game after the first: it is seated as soon as the last table of the game "
            "before confirms its last round."
        ),
    )
    move_count = models.PositiveSmallIntegerField(
        _("Players who move"),
        default=0,
        help_text=_("How many of each table's lowest totals move up, and highest move down."),
    )
    # Club ratings (asked through tables.strengths): offered when a club owns the tournament.
    balance_by_rating = models.BooleanField(
        _("Balance tables by rating"),
        default=False,
        help_text=_(
            "Players are dealt to the tables by their club rating, so that no table seats all "
            "the strongest. Households are still kept apart."
        ),
    )
    seed_by_rating = models.BooleanField(
        _("Seed the playoff by rating"),
        default=False,
        help_text=_(
            "The players who advance are spread over the tables in snake order of their club "
            "rating instead of their rank in the stage before."
        ),
    )
    source_stage = models.OneToOneField(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="next_level",
        help_text=_("The stage whose advancers were seated here."),
    )
    made_by_close = models.BooleanField(
        default=False,
        editable=False,
        help_text=_(
            "Made by the close of the stage before it (a further playoff level): reopening that "
            "stage, or a practice reset, removes it."
        ),
    )
    undone_next_seats = models.JSONField(
        default=dict,
        editable=False,
        help_text=_(
            "Closed, then reopened: where the next stage had seated each player (player id: "
            "table), so that the close that seats it again says who moved."
        ),
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
                name="tournaments_stage_name_key_known",
                condition=Q(name_key__regex=NAME_KEY_PATTERN),
            ),
            models.CheckConstraint(
                name="tournaments_stage_kind_known", condition=Q(kind__in=["qualifying", "playoff"])
            ),
            models.CheckConstraint(
                name="tournaments_stage_reporting_known",
                condition=Q(reporting__in=["officials", "players"]),
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
                name="tournaments_stage_time_limit_positive",
                condition=Q(time_limit_minutes__isnull=True) | Q(time_limit_minutes__gte=1),
            ),
            models.CheckConstraint(
                name="tournaments_stage_time_rule_known",
                condition=Q(time_rule__in=["finish_round", "as_stands"]),
            ),
            models.CheckConstraint(
                name="tournaments_stage_movement_known",
                condition=Q(movement__in=["", "move", "reseat"]),
            ),
            models.CheckConstraint(
                name="tournaments_stage_move_count_with_move",
                condition=Q(movement="move", move_count__gte=1) | ~Q(movement="move"),
            ),
            models.CheckConstraint(
                name="tournaments_stage_late_entry_rule_known",
                condition=Q(late_entry_rule__in=LateEntryRule.values),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.display_name}"

    @property
    def display_name(self) -> str:
        """The stage's name as the reader reads it: a name the product gave (a preset's, a
        playoff level's) in the active language; a name the organiser typed, as typed."""
        return say(self.name_key) or self.name

    def engine(self, round_no: int) -> int:
        return self.starting_double - (round_no - 1)

    @property
    def engines(self) -> list[int]:
        return [self.engine(n) for n in range(1, self.rounds + 1)]
