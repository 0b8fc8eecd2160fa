"""The demo's rally (rallies' load_demo adds it to make run's demo): a weekend's four small
events with one entry for all and two chapters, entered as players would through the rally's
entry form (rallies.services.enter_rally). The Samboree and the ladies' game are decided, the
beginners' game is being played now: the chapter standings count the first two. Tomorrow's
newcomers' game is not seated yet, so that its entries are open: a visitor can try the form.

Each event is one game of two rounds at two or three tables, so that the demo's load stays
small; the entries' receipts are kept as sent (example.com addresses), and no entrant asked
for the seat and result mails, so that make run's console prints none."""

import random
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from entries.models import Delivery
from entries.services import entering
from rallies import services
from rallies.models import Rally
from scoring.demo_events import new_tournament, play, play_to_the_end
from tables import services as table_services
from tournaments import services as tournament_services
from tournaments.models import Player, Tournament

RALLY_SLUG = "desert-sands-rally"
ROADRUNNERS, WANDERERS = "Desert Roadrunners", "Silver State Wanderers"
# (slug, name, hours from now it starts, hours it lasts)
EVENTS = [
    ("desert-sands-samboree", "Desert Sands Samboree", -26, 3),
    ("desert-sands-ladies", "Desert Sands Ladies' Game", -22, 2),
    ("desert-sands-beginners", "Desert Sands Beginners' Game", -1, 2),
    ("desert-sands-newcomers", "Desert Sands Newcomers' Game", 22, 2),
]
# The events played (seated, and the first two decided); the others still take entries.
PLAYED = 3
# (name, chapter or "" for a guest, the events entered by place in EVENTS)
PLAYERS: list[tuple[str, str, tuple[int, ...]]] = [
    ("Dolores Whitfield", ROADRUNNERS, (0, 1)),
    ("Earl Whitfield", ROADRUNNERS, (0, 2, 3)),
    ("Fern Castellano", ROADRUNNERS, (0, 1)),
    ("Gus Ledbetter", ROADRUNNERS, (0, 2)),
    ("Iris Delgado", ROADRUNNERS, (1, 2)),
    ("Jolene Marchetti", WANDERERS, (0, 1)),
    ("Kermit Oyelaran", WANDERERS, (0, 2)),
    ("Lucille Abernathy", WANDERERS, (0, 1)),
    ("Morris Tolliver", WANDERERS, (0, 2, 3)),
    ("Opal Rasmussen", WANDERERS, (1, 2)),
    ("Pearl Sandoval", "", (0, 1)),  # a guest: placed, scoring for no chapter
]


def _email(name: str) -> str:
    return name.lower().replace(" ", ".") + "@example.com"


def _event(slug: str, name: str, organiser, official, starts_at) -> Tournament:
    """One game of two rounds: the Samboree preset's qualifying stage alone, made shorter."""
    tournament = new_tournament(
        name,
        slug,
        organiser,
        official,
        starts_on=timezone.localdate(starts_at),
        venue="Desert Sands RV Resort, Clubhouse",
        time_zone="America/Los_Angeles",
    )
    tournament_services.remove_stage(stage=tournament.stages.order_by("-order").first())
    tournament_services.update_stage(
        stage=tournament.stages.get(), changes={"rounds": 2, "decides_placings": True}
    )
    Tournament.objects.filter(pk=tournament.pk).update(
        entries_open_at=timezone.now() - timedelta(days=14)
    )
    tournament.refresh_from_db()
    return tournament


def load_rally_demo(organiser, official) -> Rally:
    """Create the rally once; later calls keep it (and what happened to it since)."""
    existing = Rally.objects.filter(slug=RALLY_SLUG).first()
    if existing is not None:
        return existing
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    with transaction.atomic():
        rally = services.create_rally(name="Desert Sands Rally 2026", slug=RALLY_SLUG, by=organiser)
        for chapter in (ROADRUNNERS, WANDERERS):
            services.add_chapter(rally=rally, name=chapter)
        events = [
            services.add_event(
                rally=rally,
                tournament=_event(slug, name, organiser, official, now + timedelta(hours=start)),
                starts_at=now + timedelta(hours=start),
                ends_at=now + timedelta(hours=start + hours),
                by=organiser,
            )
            for slug, name, start, hours in EVENTS
        ]
        for name, chapter, chosen in PLAYERS:
            services.enter_rally(
                rally=rally,
                events=[events[i] for i in chosen],
                chapter=chapter,
                details=entering.Details(name=name, email=_email(name)),
            )
        rng = random.Random(2026)
        for index, event in enumerate(events[:PLAYED]):
            tournament = event.tournament
            Player.objects.filter(tournament=tournament).update(status=Player.Status.CHECKED_IN)
            stage = tournament.stages.get()
            table_services.seat_stage(stage=stage, by=organiser, seed=2026 + index)
            if index < 2:
                play_to_the_end(tournament, organiser, official, rng)
            else:  # the beginners' game: round 1 played at every table, round 2 to come
                play(stage, official, rng, rounds=lambda table: 1)
        Delivery.objects.filter(message__tournament__in=[e.tournament for e in events]).update(
            status=Delivery.Status.SENT, sent_at=timezone.now(), attempts=1
        )
    return rally
