"""Splitting a tournament's players into flights by rating: the ranking it splits comes from
here, the cut from scoring.rules.flights and the writing from tournaments.services.flights
(assign_flights, also the organiser's list).

The ranking, strongest first, ties by badge number:
- the club's ratings, for a tournament a club owns with at least one rated player
  (tables.strengths; an unrated player has a newcomer's rating, as seating by rating gives);
- else the standings of the latest closed stage (its rank; a player it did not rank after);
- else nothing rates the players, and the split is refused: the organiser's list it is.
Withdrawn players are in no flight, as they win no medal."""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.models import StandingRow
from scoring.rules import flights as rules
from tables.strengths import strengths_for
from tournaments.models import Player, Stage, Tournament
from tournaments.services.flights import FlightsChanged, assign_flights

RATING, STANDINGS = "rating", "standings"


@dataclass(frozen=True)
class Ranking:
    """The players to split, strongest first, and what ranked them (RATING or STANDINGS, the
    stage for STANDINGS, how many had no rating of their own for RATING)."""

    players: list[Player]
    by: str
    stage: Stage | None = None
    unrated: int = 0

    def said(self) -> str:
        """What ranked them, for the organiser."""
        if self.by == RATING:
            said = _("by their club ratings")
            if self.unrated:
                said += " " + ngettext(
                    "(%(count)s player with no rating yet counted as a newcomer)",
                    "(%(count)s players with no rating yet counted as newcomers)",
                    self.unrated,
                ) % {"count": self.unrated}
            return said
        return _("by the standings of %(stage)s") % {"stage": self.stage.display_name}


def rating_ranking(tournament: Tournament) -> Ranking | None:
    """The players still playing ranked for a split, strongest first; None when nothing rates
    them (no club's ratings, no closed stage)."""
    players = list(tournament.players.exclude(status=Player.Status.WITHDRAWN).order_by("number"))
    strengths = strengths_for(tournament, [p.pk for p in players]) if players else None
    if strengths is not None and len(strengths.unrated) < len(players):
        players.sort(key=lambda p: (-strengths.of[p.pk], p.number))
        return Ranking(players, RATING, unrated=len(strengths.unrated))
    stage = tournament.stages.filter(status=Stage.Status.CLOSED).order_by("-order").first()
    if stage is None:
        return None
    ranks = dict(StandingRow.objects.filter(stage=stage).values_list("player_id", "rank"))
    if not ranks:
        return None
    unranked = max(ranks.values()) + 1
    players.sort(key=lambda p: (ranks.get(p.pk, unranked), p.number))
    return Ranking(players, STANDINGS, stage=stage)


def split_count_errors(count: int, players: int) -> list[str]:
    """What is wrong with splitting `players` into `count` flights: [] when nothing."""
    if count < 2:
        return [_("Split the players into 2 flights or more.")]
    if count > rules.MAX_FLIGHTS:
        return [_("At most %(most)s flights (A to Z).") % {"most": rules.MAX_FLIGHTS}]
    if count > players:
        message = ngettext(
            "%(count)s flights for %(players)s player: a flight would have nobody.",
            "%(count)s flights for %(players)s players: a flight would have nobody.",
            players,
        )
        return [message % {"count": count, "players": players}]
    return []


def split_by_rating(
    *, tournament: Tournament, count: int, confirm: bool = False
) -> tuple[FlightsChanged, Ranking]:
    """Split the players still playing into `count` flights A, B, ... of equal size, A the
    strongest (scoring.rules.flights); withdrawn players in none. ValidationError when nothing
    rates them or for a bad count; the refusals of assign_flights otherwise."""
    ranking = rating_ranking(tournament)
    if ranking is None:
        raise ValidationError(
            _(
                "Nothing rates these players yet: the tournament belongs to no club with "
                "ratings, and no stage is closed. Put them in flights by your list instead."
            )
        )
    if errors := split_count_errors(count, len(ranking.players)):
        raise ValidationError({"count": errors})
    wanted: dict[int, str | None] = {}
    for index, flight in enumerate(rules.split(ranking.players, count)):
        wanted.update((p.pk, rules.flight_name(index)) for p in flight)
    for withdrawn in tournament.players.filter(status=Player.Status.WITHDRAWN):
        wanted[withdrawn.pk] = None
    changed = assign_flights(tournament=tournament, flights=wanted, confirm=confirm)
    return changed, ranking
