"""Seating by club rating on the stage's page: the option offered (or why not), turned on, and
the seating report that says how ratings seated the stage."""

import pytest

from clubs.models import RatingPoint
from tests import factories
from tests.tables.views.conftest import add_players, new_stage

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(tournament):
    """The club that owns the organiser's tournament."""
    return factories.ClubTournamentFactory(tournament=tournament).club


def rated_players(tournament, club, ordinals: list[int]) -> list:
    """Players linked to members whose latest rating has these ordinals (sigma 0: 40 x mu)."""
    players = []
    for number, ordinal in enumerate(ordinals, start=1):
        member = factories.MemberFactory(club=club)
        link = factories.PlayerLinkFactory(
            member=member, player__tournament=tournament, player__number=number
        )
        event = factories.ClubTournamentFactory(club=club).tournament
        RatingPoint.objects.create(
            member=member, tournament=event, event_date="2026-02-01", stage_order=1,
            round_no=1, table_no=1, mu=ordinal / 40, sigma=0, rounds=13,
        )  # fmt: skip
        players.append(link.player)
    return players


def test_the_option_is_offered_for_a_club_tournament_and_seating_reports_it(
    organiser_client, tournament, stage, club
):
    page_url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(page_url).content.decode()
    assert "Seating by club rating" in page
    assert "Balance tables by rating" in page
    assert "Seed the playoff by rating" not in page  # a qualifying stage is not seeded
    assert 'name="balance_by_rating"' in page

    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/rating/", {"balance_by_rating": "on"}, follow=True
    )
    assert "Qualifying: its tables will be balanced by rating when it is seated." in (
        response.content.decode()
    )
    stage.refresh_from_db()
    assert stage.balance_by_rating

    # Six rated 1,200 down to 200, two not linked to any member: two tables of 4.
    rated_players(tournament, club, [1200, 1000, 800, 600, 400, 200])
    factories.PlayerFactory(tournament=tournament, number=7)
    factories.PlayerFactory(tournament=tournament, number=8)
    seated = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "3"}, follow=True
    ).content.decode()
    assert "Seated 8 players at 2 tables (shuffle number 3). Tables balanced by rating." in seated
    assert "Balanced by rating." in seated
    assert "2 players had no rating yet and counted as newcomers (rating 0)." in seated
    stage.refresh_from_db()
    # 4,200 in all, in steps of 200: at best 2,000 and 2,200 (by strength order 3,600 and 600).
    means = stage.seating_report["table_ratings"]
    assert sorted(means) == [500.0, 550.0]
    assert "Mean rating 500" in seated and "Mean rating 550" in seated


def test_the_option_turned_off_seats_and_reports_without_ratings(
    organiser_client, tournament, stage, club
):
    rated_players(tournament, club, [1200, 1000, 800, 600, 400, 200])
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/rating/", {})
    seated = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "3"}, follow=True
    ).content.decode()
    assert "Balanced by rating" not in seated
    assert "Mean rating" not in seated


def test_a_playoff_seated_from_advancers_is_offered_seeding_by_rating(
    organiser_client, tournament, stage, club
):
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/add/", new_stage())
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/2/").content.decode()
    assert "Seed the playoff by rating" in page
    assert "Balance tables by rating" not in page
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/2/rating/", {"seed_by_rating": "on"}, follow=True
    )
    assert "Final: its players will be seeded by rating when it is seated." in (
        response.content.decode()
    )
    assert tournament.stages.get(order=2).seed_by_rating


def test_a_tournament_no_club_owns_is_told_why_and_the_option_is_refused(
    organiser_client, tournament, stage
):
    add_players(tournament, 6)
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    why = "belongs to no club, so its players have no club ratings to seat by."
    assert "Seating by club rating" in page and why in page
    assert 'name="balance_by_rating"' not in page
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/rating/", {"balance_by_rating": "on"}, follow=True
    )
    assert why in response.content.decode()
    stage.refresh_from_db()
    assert not stage.balance_by_rating
    assert not stage.tables.exists()
