"""What clubs does when tournaments tells it something (tournaments never imports clubs)."""

from typing import Any

from clubs import ladder_services, rating_store, services
from clubs.models import ClubTournament
from tournaments.models import Stage, Tournament


def link_imported_players(
    sender: Any, *, tournament: Tournament, numbers: dict[int, str], by: Any = None, **kwargs: Any
) -> list[str]:
    """Players imported with member numbers: linked to the members with them; the sentences say
    which numbers were not."""
    return services.link_by_numbers(tournament=tournament, numbers=numbers, by=by)


def rate_after_results(sender: Any, *, stage: Stage, **kwargs: Any) -> None:
    """A stage's confirmed results changed (committed): a club that owns its tournament rates
    its members again from that event."""
    club_id = (
        ClubTournament.objects.filter(tournament_id=stage.tournament_id)
        .values_list("club_id", flat=True)
        .first()
    )
    if club_id is not None:
        rating_store.request_rating(club_id=club_id, tournament_id=stage.tournament_id)


def rebuild_ladders(sender: Any, *, tournament: Tournament, **kwargs: Any) -> None:
    """A tournament's placings were decided (or decided again): the ladder of the season that
    counts it is rebuilt."""
    ladder_services.request_ladders_of(tournament_id=tournament.pk)
