"""The demo's club (make run): a roster, an autumn season of six club nights played to their
placings, every night's players linked to the members by number."""

import pytest
from django.core.management import call_command

from clubs.demo import CLUB_SLUG, MEMBERS, NIGHTS, SEASON_SLUG
from clubs.models import Club, PlayerLink
from scoring.models import Placing

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_club_with_a_season_of_six_nights(capsys):
    call_command("load_demo", port="8123")

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
    assert f"/c/{CLUB_SLUG}/seasons/{SEASON_SLUG}/" in capsys.readouterr().out

    call_command("load_demo")  # again: the club is kept, not doubled
    assert Club.objects.filter(slug=CLUB_SLUG).count() == 1
