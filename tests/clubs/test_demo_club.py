"""The demo's club (make run): a roster, an autumn season of six club nights played to their
placings, every night's players linked to the members by number."""

import pytest
from django.core.management import call_command

from clubs.demo import CLUB_SLUG, MEMBERS, NIGHTS, SEASON_SLUG
from clubs.models import Club, PlayerLink, RatingPoint
from scoring.models import Placing
from tests.snapshots import demo_command

pytestmark = pytest.mark.django_db(transaction=True)  # the workers run on commit


def test_the_demo_has_a_club_with_a_season_of_six_nights(capsys):
    demo_command()  # as load_demo left it (run once per test process: tests/snapshots.py)

    club = Club.objects.get(slug=CLUB_SLUG)
    assert club.members.count() == len(MEMBERS)
    season = club.seasons.get(slug=SEASON_SLUG)
    nights = [own.tournament for own in season.events.select_related("tournament")]
    assert len(nights) == NIGHTS
    for tournament in nights:
        players = tournament.players.count()
        assert 12 <= players <= 16
        # Played to the end: everyone placed, and everyone linked to their member.
        assert Placing.objects.filter(tournament=tournament).count() == players
        assert PlayerLink.objects.filter(player__tournament=tournament).count() == players
    # Its ladder and ratings, built by the workers (inline here) as the nights were played.
    assert season.ladder.filter(place=1).exists()
    assert season.ladder.count() == club.members.filter(links__isnull=False).distinct().count()
    assert RatingPoint.objects.filter(member__club=club).count() == sum(
        night.players.count() for night in nights
    )
    # From the second night on, the tables were balanced by the ratings and the playoff seeded.
    later = nights[-1].stages.order_by("order")
    assert [stage.seating_report.get("by_rating") for stage in later] == ["balanced", "seeded"]

    call_command("load_demo", port="8123")  # again: the club is kept, not doubled
    assert Club.objects.filter(slug=CLUB_SLUG).count() == 1
    assert f"/c/{CLUB_SLUG}/seasons/{SEASON_SLUG}/" in capsys.readouterr().out
