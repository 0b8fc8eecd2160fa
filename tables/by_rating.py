"""Seating by club rating: what a stage's options (balance a stage's tables, seed a playoff's; set
by tables.services.set_rating_options) make seating ask tables.strengths for, and what the
seating report says of it.

*Balanced*: a stage seated at random deals its players by rating (tables.seating.balance).
*Seeded*: a playoff seated from its advancers takes the snake order of ratings instead of ranks.
Both are off by default and need a tournament a club owns (the ratings are the club's).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.utils.translation import gettext as _

from tables import seating, strengths
from tournaments.models import Stage, Tournament

BALANCED, SEEDED = "balanced", "seeded"


def seated_from_advancers(stage: Stage) -> bool:
    """A playoff after another stage: its tables are made from that stage's advancers."""
    return (
        stage.kind == Stage.Kind.PLAYOFF
        and stage.tournament.stages.filter(order__lt=stage.order).exists()
    )


def no_club_message(tournament: Tournament) -> str:
    return _(
        "%(tournament)s belongs to no club, so its players have no club ratings to seat by. "
        "A club organiser can add it to their club first."
    ) % {"tournament": tournament.name}


@dataclass(frozen=True)
class RatingPlan:
    """How a seating uses ratings: `how` is BALANCED, SEEDED or "" (not at all); `strengths`
    are the entrants', or None (not asked, or the tournament can no longer be rated)."""

    how: str
    strengths: strengths.Strengths | None
    unavailable: bool = False  # asked for, but no club owns the tournament any more

    @property
    def warnings(self) -> list[seating.SeatingWarning]:
        return [seating.SeatingWarning("ratings_unavailable", {})] if self.unavailable else []

    def seeded(self, entrants: list[seating.Entrant]) -> list[seating.Entrant]:
        """The entrants ranked by rating, strongest 1; equal ratings keep their rank order."""
        if self.how != SEEDED or self.strengths is None:
            return entrants
        of = self.strengths.of
        order = sorted(entrants, key=lambda e: (-of[e.id], e.rank is None, e.rank or 0, e.id))
        return [replace(entrant, rank=place) for place, entrant in enumerate(order, start=1)]

    def report(self, tables: list[list[int]]) -> dict[str, Any]:
        """What the seating report keeps: how, each table's mean rating, how many unrated."""
        if self.strengths is None:
            return {}
        of = self.strengths.of
        return {
            "by_rating": self.how,
            "table_ratings": [round(sum(of[p] for p in table) / len(table), 1) for table in tables],
            "unrated": len(self.strengths.unrated),
        }


def rating_plan(stage: Stage, entrants: list[seating.Entrant], *, seeded: bool) -> RatingPlan:
    """What the stage's options ask of this seating (`seeded`: a playoff seated by rank)."""
    wanted = stage.seed_by_rating if seeded else stage.balance_by_rating
    if not wanted:
        return RatingPlan("", None)
    found = strengths.strengths_for(stage.tournament, [e.id for e in entrants])
    if found is None:
        return RatingPlan("", None, unavailable=True)
    return RatingPlan(SEEDED if seeded else BALANCED, found)
