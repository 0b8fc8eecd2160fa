"""A season's points by place never rise from one place to the next: one rule where a season is
saved (clubs.ladder_services.save_season), for whatever saves a season; a season saved
before the rule keeps its table and still builds its ladder."""

import pytest
from django.test import Client

from clubs import ladder_services
from clubs.models import ClubOrganiser, Season
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    return factories.ClubFactory(name="Pine Valley", slug="pine-valley")


@pytest.fixture
def night(club):
    return factories.ClubTournamentFactory(club=club).tournament


def test_the_season_page_refuses_a_rising_points_table(club, night):
    page = Client()
    organiser = factories.UserFactory()
    ClubOrganiser.objects.create(club=club, user=organiser)
    page.force_login(organiser)
    form = {"name": "Autumn", "slug": "autumn", "rule": "points", "points_table": "5, 8, 1",
            "min_rounds": "0", "places": "members", "events": [night.pk]}  # fmt: skip

    refused = page.post("/clubs/pine-valley/seasons/new/", form)

    assert refused.status_code == 400
    assert "A place cannot score more than the place above it: place 2 has 8 points" in (
        refused.content.decode()
    )
    assert not Season.objects.exists()


@pytest.mark.parametrize("points", [[10, 8, 6], [3, 3, 1, 1], [5]])
def test_a_table_that_falls_or_stays_is_saved(club, night, points):
    season = ladder_services.save_season(
        club=club, name="Autumn", rule="points", points_table=points, best_n=None,
        min_rounds=0, events=[night.pk],
    )  # fmt: skip

    assert Season.objects.get(pk=season.pk).points_table == points


def test_a_season_saved_before_the_rule_still_builds(club, night):
    season = Season.objects.create(club=club, name="Old", slug="old", points_table=[1, 5])
    club.owned.filter(tournament=night).update(season=season)

    assert ladder_services.build_ladder(season=season) == []
    assert Season.objects.get(pk=season.pk).ladder_built_at is not None
