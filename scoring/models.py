"""Round results, the score of each player in them, every version kept, and idempotency keys."""

import re

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from scoring.choices import DecisionMethod
from scoring.rules import medals
from tables.models import Table
from tournaments.models import Division, Player, Stage, Tournament


class RoundResult(models.Model):
    """What one table reports for one round; standings count confirmed results only."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted", _("To check")
        CONFIRMED = "confirmed", _("Confirmed")
        DISPUTED = "disputed", _("Disputed")

    # The stage is the table's, copied for the standings' single-query reads.
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="round_results")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="round_results")
    round_no = models.PositiveSmallIntegerField()
    engine = models.PositiveSmallIntegerField()
    blocked = models.BooleanField(
        default=False,
        help_text=_("Nobody could play (or time was called): everyone scores pips."),
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SUBMITTED)
    version = models.PositiveIntegerField(default=1)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    # The scores the deal makes unusual (scoring.rules.plausibility): [{player, code, pips,
    # limit, tiles, average, checked}], checked when the official confirmed the score as it is.
    # A default in the database too, for a process still running the previous release.
    warnings = models.JSONField(default=list, db_default=[], blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["table", "round_no"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "round_no"], name="scoring_roundresult_one_per_table_round"
            ),
            models.CheckConstraint(
                name="scoring_roundresult_round_no_positive", condition=Q(round_no__gte=1)
            ),
            models.CheckConstraint(
                name="scoring_roundresult_version_positive", condition=Q(version__gte=1)
            ),
            models.CheckConstraint(
                name="scoring_roundresult_status_known",
                condition=Q(status__in=["submitted", "confirmed", "disputed"]),
            ),
            models.CheckConstraint(
                name="scoring_roundresult_confirmed_has_confirmer",
                condition=Q(status__in=["submitted", "disputed"]) | Q(confirmed_by__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}, round {self.round_no} ({self.status})"

    @property
    def etag(self) -> str:
        return f'"{self.pk}-{self.version}"'

    @staticmethod
    def version_in(etag: str) -> int | None:
        """The version an ETag of `etag`'s form names; None for anything else."""
        match = re.fullmatch(r'"\d+-(\d+)"', etag.strip())
        return int(match[1]) if match else None


class Score(models.Model):
    """One player's pip total for one round; 0 for the player who went out."""

    result = models.ForeignKey(RoundResult, on_delete=models.CASCADE, related_name="scores")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="scores")
    pips = models.PositiveIntegerField()
    went_out = models.BooleanField(default=False)

    class Meta:
        ordering = ["result", "player"]
        constraints = [
            models.UniqueConstraint(
                fields=["result", "player"], name="scoring_score_one_per_player_per_result"
            ),
            models.CheckConstraint(
                name="scoring_score_pips_not_negative", condition=Q(pips__gte=0)
            ),
            models.CheckConstraint(
                name="scoring_score_went_out_scores_zero", condition=Q(went_out=False) | Q(pips=0)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.pips}"


class RoundResultVersion(models.Model):
    """Every version of a round result: who, when, from where, what, and why."""

    class Action(models.TextChoices):
        SUBMITTED = "submitted", _("Submitted")
        REPLACED = "replaced", _("Replaced")
        CORRECTED = "corrected", _("Corrected")
        CONFIRMED = "confirmed", _("Confirmed")
        DISPUTED = "disputed", _("Disputed")

    class Source(models.TextChoices):
        API = "api", _("the API")
        WEB = "web", _("the web pages")
        CSV = "csv", _("a CSV upload")
        DEMO = "demo", _("the demo")

    result = models.ForeignKey(RoundResult, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    action = models.CharField(max_length=20, choices=Action.choices)
    status = models.CharField(max_length=20, choices=RoundResult.Status.choices)
    blocked = models.BooleanField()
    scores = models.JSONField(
        help_text=_("[{player, number, name, pips, went_out}] at this version.")
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.API)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    reason = models.TextField(blank=True)
    warnings = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text=_("The result's warnings at this version."),
    )

    class Meta:
        ordering = ["result", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["result", "version"], name="scoring_roundresultversion_unique"
            ),
            models.CheckConstraint(
                name="scoring_roundresultversion_correction_has_reason",
                condition=~Q(action="corrected") | ~Q(reason=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.result} v{self.version} {self.action}"


class IdempotencyRecord(models.Model):
    """The stored answer to a request sent with an Idempotency-Key, kept with the result it made."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=300)
    body_hash = models.CharField(max_length=64)
    # Whether the request made the result, or replaced one: its answer is replayed as the same.
    created = models.BooleanField()
    response_body = models.JSONField()
    response_etag = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "key"], name="scoring_idempotencyrecord_unique"
            ),
            models.CheckConstraint(name="scoring_idempotencyrecord_key_set", condition=~Q(key="")),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({'created' if self.created else 'replaced'})"


class StageStandings(models.Model):
    """The standings snapshot of a stage: when it was computed and from how many results.

    `change_seq` counts changes that affect the standings; `built_seq` is the change the current
    rows include. The stage is stale while change_seq > built_seq: a rebuild is owed.
    """

    stage = models.OneToOneField(Stage, on_delete=models.CASCADE, related_name="standings")
    change_seq = models.PositiveBigIntegerField(default=1)
    built_seq = models.PositiveBigIntegerField(default=0)
    changed_at = models.DateTimeField(auto_now_add=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    results_counted = models.PositiveIntegerField(default=0)
    # The ranking counts rounds 1 to this one: the rounds every table has confirmed (mid-stage,
    # like with like; scoring.rules.progress).
    ranked_through = models.PositiveSmallIntegerField(default=0)
    results_expected = models.PositiveIntegerField(default=0)
    rebuilds = models.PositiveBigIntegerField(default=0)
    flags = models.JSONField(default=list, blank=True)
    # Each table's confirmed results as the last build read them, in a few characters
    # (scoring.announce.table_digests): the next build names the tables whose digest changed.
    # None: not known (never built since it was added).
    table_digests = models.JSONField(null=True, blank=True, default=None)
    # The last change that was not only round results (a seat, a name, a tie-break decision,
    # time called, a stage closed): a build that includes one tells every page to fetch again.
    every_page_seq = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "stage standings"
        constraints = [
            models.CheckConstraint(
                name="scoring_stagestandings_built_not_ahead",
                condition=Q(built_seq__lte=models.F("change_seq")),
            ),
        ]

    def __str__(self) -> str:
        return f"Standings of {self.stage} (change {self.change_seq}, built {self.built_seq})"

    @property
    def stale(self) -> bool:
        return self.built_seq < self.change_seq


class StandingRow(models.Model):
    """One player's line in a stage's standings snapshot."""

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="standing_rows")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    rank = models.PositiveIntegerField()
    table_number = models.PositiveSmallIntegerField(null=True)
    table_rank = models.PositiveSmallIntegerField(null=True)
    total = models.IntegerField()
    carried = models.IntegerField(default=0)
    rounds_won = models.PositiveSmallIntegerField()
    # Every confirmed round the player played (not the rounds a late entry missed), and of
    # them the rounds that `total` and `rank` count: to the stage's ranked_through mid-stage.
    rounds_played = models.PositiveSmallIntegerField()
    rounds_counted = models.PositiveSmallIntegerField(default=0, db_default=0)
    scores = models.JSONField(help_text=_("{round_no: pips} of the confirmed rounds."))
    tied = models.BooleanField(default=False)
    table_tied = models.BooleanField(default=False)
    advances = models.BooleanField(default=False)
    note = models.CharField(max_length=200, blank=True)
    # How a tie-break rule or an official's decision separated this player from the player next
    # above or below with the same total (scoring.rules.ranking.Separation, as stored by
    # scoring.standings.rows): explained on the pages and in the API, in the reader's language.
    tiebreaks = models.JSONField(default=list, db_default=[], blank=True)
    # The line's values hashed (scoring.standings.rows.line_digest): a rebuild rewrites only the
    # lines whose digest changed, without reading them back.
    # A default in the database too: a process still running the previous release writes lines
    # without it while a deploy rolls out.
    digest = models.BigIntegerField(default=0, db_default=0, editable=False)

    class Meta:
        ordering = ["stage", "rank", "player"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "player"], name="scoring_standingrow_unique"),
            models.CheckConstraint(
                name="scoring_standingrow_rank_positive", condition=Q(rank__gte=1)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rank}. {self.player} ({self.total})"


class TiebreakDecision(models.Model):
    """An official's decision of a tie the rules cannot break: a tie-break round, or a draw."""

    Method = DecisionMethod

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="tiebreaks")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, null=True, blank=True)
    order = models.JSONField(help_text=_("The tied players' ids, best first."))
    method = models.CharField(max_length=20, choices=Method.choices)
    note = models.CharField(max_length=500, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["stage", "at"]
        constraints = [
            models.CheckConstraint(
                name="scoring_tiebreakdecision_method_known",
                condition=Q(method__in=DecisionMethod.values),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_method_display()} in {self.stage}: {self.order}"


class Placing(medals.Medalled, models.Model):
    """A player's final place, decided when the final table's stage closes."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="placings")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    place = models.PositiveIntegerField()
    stage = models.ForeignKey(
        Stage,
        on_delete=models.CASCADE,
        related_name="+",
        help_text=_("Where the player went out."),
    )
    division = models.ForeignKey(
        Division,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The player's division when the placings were decided."),
    )
    division_place = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_(
            "The place among the players of the same division (or of none); 1, 2 and 3 are "
            "gold, silver and bronze."
        ),
    )

    class Meta:
        ordering = ["tournament", "place", "player__number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="scoring_placing_unique"),
            models.CheckConstraint(
                name="scoring_placing_place_positive", condition=Q(place__gte=1)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.place}. {self.player}"
