"""Divisions on the public pages: the medallists of each division (the podium), and a
division's own standings, ranked among themselves as its placings are (scoring.rules.medals)."""

from django.db.models import F, QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from scoring.models import Placing
from scoring.rules import medals
from tournaments.models import Division, Stage, Tournament


def medallists(placings: QuerySet[Placing]) -> QuerySet[Placing]:
    """Of these placings, those on a podium: a medal's place in their division (or in
    everyone, without divisions)."""
    return placings.filter(division_place__lte=max(medals.MEDALS))


def podium(tournament: Tournament, stage: Stage | None) -> list[dict]:
    """The medallists once the final (the current stage, closed) has decided the placings: the
    first three of each division ({"division": Division or None, "placings": [...]}, in the
    divisions' order; one group of everyone in a tournament without divisions). The worker
    that decides them rebuilds the final's standings too, so the pages kept for its snapshot
    are drawn again with them."""
    if stage is None or stage.status != Stage.Status.CLOSED:
        return []
    placings = Placing.objects.filter(tournament=tournament)
    if not placings.filter(stage=stage).exists():  # decided by an earlier final, or not yet
        return []
    # The third place may have gone out before the final (a Samboree's final of two).
    top = medallists(placings).select_related("player", "division")
    groups: dict[int | None, dict] = {}
    for placing in top.order_by(
        F("division__order").asc(nulls_last=True), "division__name", "place", "player__number"
    ):
        group = groups.setdefault(
            placing.division_id, {"division": placing.division, "placings": []}
        )
        group["placings"].append(placing)
    return list(groups.values())


def chosen_division(divisions: list[Division], asked: str) -> Division | None:
    """The division of ?division=<id> (None when none is asked); 404 for one the tournament
    does not have."""
    if not asked:
        return None
    chosen = next((d for d in divisions if str(d.pk) == asked), None)
    if chosen is None:
        raise Http404(_("This tournament has no such division."))
    return chosen


def division_members(division: Division) -> frozenset[int]:
    """The division's players of now (read from the division, not from a snapshot's names: a
    snapshot kept from before a player was moved or the division renamed is not stale for it)."""
    return frozenset(division.players.values_list("pk", flat=True))


def division_rows(rows: list[dict], members: frozenset[int]) -> list[dict]:
    """A division's rows, ranked among themselves as the placings are (scoring.rules.medals):
    in the order of the overall ranking, ties sharing their rank."""
    mine = [row for row in rows if row["player"]["id"] in members]
    ranks = medals.places_in_groups((row["player"]["id"], row["rank"], None) for row in mine)
    return [{**row, "rank": ranks[row["player"]["id"]]} for row in mine]
