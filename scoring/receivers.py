"""What scoring does when tournaments or tables tell it something changed (neither imports
scoring): a new snapshot of the stages whose public pages show it. The pages' versions follow
the snapshot (scoring/public.py), so a change no rebuild follows would stay unseen behind a
304 and the copies kept by the cache in front."""

from typing import Any

from scoring import selectors, standings
from scoring.divisions import medallists
from scoring.models import Placing
from tournaments.models import Player, Stage, Tournament


def seats_changed(sender: Any, *, stage: Stage, **kwargs: Any) -> None:
    standings.request_rebuild(stage)


def player_edited(sender: Any, *, player: Player, **kwargs: Any) -> None:
    """A player corrected: the snapshots of the stages they sat in show them as they are now,
    and the last stage's, whose page names the medallists (seated there or not)."""
    stages = set(Stage.objects.filter(seats__player=player))
    if medallists(Placing.objects.filter(player=player)).exists():
        stages.add(selectors.current_stage(player.tournament.stages.all()))
    for stage in stages - {None}:
        standings.request_rebuild(stage)


def tournament_edited(sender: Any, *, tournament: Tournament, **kwargs: Any) -> None:
    """What every page of the event shows (its divisions, time zone, address): a new snapshot
    of each played stage. A closed stage's is drawn as it was: nothing of this changes who
    advanced from it (the services refuse a closed stage's settings, and the admin the
    tie-break rules once a stage has closed: tournaments.services.tournaments)."""
    for stage in selectors.played_stages(tournament.stages.all()):
        standings.request_rebuild(stage)


def stages_edited(sender: Any, *, tournament: Tournament, **kwargs: Any) -> None:
    """A seated stage's settings, or what follows it (who advances from it): a new snapshot of
    it. A closed stage's standings and advancers stand as they are."""
    for stage in tournament.stages.filter(status=Stage.Status.SEATED):
        standings.request_rebuild(stage)
