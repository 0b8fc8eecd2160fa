"""A rally of three events taking entries, with two chapters, made through the services as an
organiser would; and its events played to their placings."""

from datetime import timedelta

from django.utils import timezone

from rallies import services
from scoring.services import closing
from tables import services as table_services
from tests import factories
from tests.scoring.helpers import play_stage
from tournaments import services as tournament_services
from tournaments.models import Player, Tournament

START = timezone.now().replace(minute=0, second=0, microsecond=0) + timedelta(days=3)


def event(organiser, name: str, **fields) -> Tournament:
    """A tournament taking entries, one game of one round that decides the placings."""
    tournament = tournament_services.create_tournament(
        name=name,
        slug=name.lower().replace(" ", "-").replace("'", ""),
        domino_set=12,
        preset="samboree",
        by=organiser,
        with_stages=True,
    )
    tournament_services.remove_stage(stage=tournament.stages.order_by("-order").first())
    tournament_services.update_stage(
        stage=tournament.stages.get(), changes={"rounds": 1, "decides_placings": True}
    )
    Tournament.objects.filter(pk=tournament.pk).update(
        entries_open_at=timezone.now() - timedelta(hours=1), **fields
    )
    tournament.refresh_from_db()
    return tournament


def rally(**event_fields):
    """The Spring Rally: a Samboree 9-12, a ladies' game 11-13 (clashing with it), a beginners'
    game 14-16; chapters Roadrunners and Wanderers."""
    organiser = factories.OrganiserAccountFactory(username="host")
    made = services.create_rally(name="Spring Rally", by=organiser)
    events = []
    for name, start, hours in (
        ("Spring Samboree", 9, 3),
        ("Ladies' Game", 11, 2),
        ("Beginners' Game", 14, 2),
    ):
        events.append(
            services.add_event(
                rally=made,
                tournament=event(organiser, name, **event_fields.get(name, {})),
                starts_at=START + timedelta(hours=start),
                ends_at=START + timedelta(hours=start + hours),
                by=organiser,
            )
        )
    for name in ("Roadrunners", "Wanderers"):
        services.add_chapter(rally=made, name=name)
    return made, events, organiser


def play_to_placings(tournament, organiser, score_of=None) -> None:
    """Everyone checked in and seated, the round played (seat 1 goes out), the game closed and
    its placings decided, as the worker does after a close."""
    Player.objects.filter(tournament=tournament).update(status=Player.Status.CHECKED_IN)
    stage = tournament.stages.get()
    table_services.seat_stage(stage=stage, by=organiser, seed=7)
    if score_of:
        play_stage(stage, score_of)
    else:
        play_stage(stage)
    closing.close_stage(stage=stage, by=organiser)
    closing.advance_from_stage(stage=stage)
