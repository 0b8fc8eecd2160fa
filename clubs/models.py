"""Clubs: the organisations that own tournaments, their organisers, and their roster of members
linked to the players they entered as."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player, Tournament


class Club(models.Model):
    name = models.CharField(_("Name"), max_length=120)
    slug = models.SlugField(_("Web address"), max_length=60, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ClubOrganiser(models.Model):
    """Someone who manages the club's roster and tournaments (a tournament's own organisers keep
    their roles in tournaments)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="organisers")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_roles"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="clubs_cluborganiser_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club}"


class Season(models.Model):
    """A club's season: the tournaments it groups (club nights, rallies) and the rule its ladder
    ranks the members by (clubs.ladder)."""

    class Rule(models.TextChoices):
        POINTS = "points", _("Points by place")
        BEST_N = "best_n", _("Points by place, best N events")
        AVERAGE = "average", _("Lowest average per round played")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(_("Name"), max_length=120)
    slug = models.SlugField(_("Web address"), max_length=60)
    rule = models.CharField(_("Ladder rule"), max_length=10, choices=Rule.choices,
                            default=Rule.POINTS)  # fmt: skip
    # Points for 1st, 2nd, 3rd ... place in an event; a place beyond the table scores 0.
    points_table = models.JSONField(_("Points by place"), default=list, blank=True)
    best_n = models.PositiveSmallIntegerField(_("Best N events"), null=True, blank=True)
    min_rounds = models.PositiveIntegerField(
        _("Minimum rounds"),
        default=0,
        help_text=_("Lowest average: members with fewer rounds are listed below the ranked ones."),
    )

    class Places(models.TextChoices):
        MEMBERS = "members", _("Among the club's members (guests left out)")
        EVERYONE = "everyone", _("Among everyone the event placed, guests included")

    # Whom each event's places count among (clubs.ladder); seasons made before the choice keep
    # their events' own places (migration 0003).
    places = models.CharField(
        _("Places counted"), max_length=10, choices=Places.choices, default=Places.MEMBERS
    )
    ladder_built_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["club", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["club", "slug"], name="clubs_season_slug_unique"),
            models.CheckConstraint(
                name="clubs_season_rule_known",
                condition=Q(rule__in=["points", "best_n", "average"]),
            ),
            models.CheckConstraint(
                name="clubs_season_places_known", condition=Q(places__in=["members", "everyone"])
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club}: {self.name}"


class ClubTournament(models.Model):
    """The club owns the tournament: its players are linked to the club's members; a season
    may count it for its ladder."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="owned")
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="club_ownership"
    )
    season = models.ForeignKey(
        Season, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )

    def __str__(self) -> str:
        return f"{self.club}: {self.tournament}"


class Member(models.Model):
    """A person on a club's roster. Contact (email, phone) is for the club's organisers only; an
    erased member keeps only an anonymised name (services.erase_member)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(_("Name"), max_length=120)
    member_number = models.CharField(
        _("Member number"),
        max_length=40,
        blank=True,
        help_text=_("Optional; unique in the club."),
    )
    household = models.CharField(_("Household"), max_length=120, blank=True)
    email = models.EmailField(_("Email"), blank=True)
    phone = models.CharField(_("Phone"), max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["club", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "member_number"],
                condition=~Q(member_number=""),
                name="clubs_member_number_unique",
            ),
            models.CheckConstraint(name="clubs_member_name_set", condition=~Q(name="")),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.member_number})" if self.member_number else self.name


class PlayerLink(models.Model):
    """A tournament's player is this member: made by an organiser's choice or by member number,
    never by a name alone."""

    class How(models.TextChoices):
        NUMBER = "number", _("By member number")
        NAME = "name", _("Chosen by name")
        IMPORT = "import", _("By member number at import")

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="member_link")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="links")
    how = models.CharField(max_length=10, choices=How.choices)
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    linked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="clubs_playerlink_how_known",
                condition=Q(how__in=["number", "name", "import"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} = {self.member}"


class LadderRow(models.Model):
    """A member's line in a season's ladder, as the worker last built it (clubs.ladder)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="ladder")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="ladder_rows")
    place = models.PositiveIntegerField(null=True, blank=True)  # None: not ranked (min rounds)
    shared = models.BooleanField(default=False)  # the place is shared with another member
    value = models.DecimalField(max_digits=12, decimal_places=3)  # points, or average pips
    events = models.PositiveIntegerField(default=0)  # events played in the season
    counted = models.JSONField(default=list)  # the tournament ids that counted (best N)
    rounds = models.PositiveIntegerField(default=0)
    pips = models.PositiveIntegerField(default=0)
    # How a tie was broken or shared, or why not ranked: clubs.ladder notes, worded on reading.
    tie_notes = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["season", "place", "member__name"]
        constraints = [
            models.UniqueConstraint(fields=["season", "member"], name="clubs_ladderrow_once"),
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.place or '-'} {self.member}"


class RatingPoint(models.Model):
    """A member's rating after their last rated round of one event (clubs.rating.MemberRating):
    the member page's chart, and the checkpoints a correction replays from."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="rating_points")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    event_date = models.DateField()
    stage_order = models.PositiveIntegerField()
    round_no = models.PositiveIntegerField()
    table_no = models.PositiveIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    rounds = models.PositiveIntegerField()  # table-rounds rated up to this point

    class Meta:
        ordering = ["member", "event_date", "tournament_id"]
        constraints = [
            models.UniqueConstraint(fields=["member", "tournament"], name="clubs_ratingpoint_once"),
        ]

    def __str__(self) -> str:
        return f"{self.member} after {self.tournament_id}: {self.mu:.2f}/{self.sigma:.2f}"
