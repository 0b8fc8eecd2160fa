"""What clubs does when tournaments tells it something (tournaments never imports clubs)."""

from typing import Any

from clubs import ladder_services, rating_store, services
from clubs.models import ClubTournament
from tournaments.models import Stage, Tournament
from tournaments.signals import ImportLinks


def link_imported_players(
    sender: Any, *, tournament: Tournament, numbers: dict[int, str], by: Any = None, **kwargs: Any
) -> ImportLinks:
    """Players imported with member numbers: linked to the members with them; the answer says
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


def forget_tournament(sender: Any, *, instance: ClubTournament, **kwargs: Any) -> None:
    """A tournament left the club, or was deleted: its games no longer count, so the club is
    rated again from nothing (the later events' ratings held them) and its season's ladder is
    rebuilt."""
    rating_store.request_rating(club_id=instance.club_id, tournament_id=None)
    if instance.season_id is not None:
        ladder_services.request_ladder(season_id=instance.season_id)


def tournament_saved(sender: Any, *, instance: Tournament, created: bool, **kwargs: Any) -> None:
    """A club tournament's details were saved: its date may have moved it among the club's
    events, so the club is rated again from it (a full recompute when the stored ratings no
    longer fit the events' order: rating_store.rate_club), and its ladder rebuilt."""
    if created:
        return
    club_id = (
        ClubTournament.objects.filter(tournament=instance).values_list("club_id", flat=True).first()
    )
    if club_id is not None:
        rating_store.request_rating(club_id=club_id, tournament_id=instance.pk)
        ladder_services.request_ladders_of(tournament_id=instance.pk, decided_only=True)


def rebuild_ladders(sender: Any, *, tournament: Tournament, **kwargs: Any) -> None:
    """A tournament's placings were decided (or decided again): the ladder of the season that
    counts it is rebuilt."""
    ladder_services.request_ladders_of(tournament_id=tournament.pk)
