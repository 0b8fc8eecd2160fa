"""Seasons made before a season chose whom its places count among keep their events' own
places (their ladders as built and published); a new one counts them among the members."""

import pytest

from tests.migrating import every_app_at, migrated

BEFORE = ("clubs", "0002_seasons_ladder_ratings")
AFTER = ("clubs", "0003_season_places")


def old_season(apps):
    club = apps.get_model("clubs", "Club").objects.create(name="Old club", slug="old-club")
    season = apps.get_model("clubs", "Season").objects.create(
        club=club, name="Spring", slug="spring", rule="points", points_table=[3, 2, 1]
    )
    return club.pk, season.pk


@pytest.mark.django_db(transaction=True)
def test_a_season_made_before_keeps_the_events_places_and_a_new_one_counts_members():
    club_id, season_id = migrated(every_app_at(BEFORE), every_app_at(AFTER), old_season)

    from clubs.models import Season

    assert Season.objects.get(pk=season_id).places == "everyone"
    new = Season.objects.create(club_id=club_id, name="Autumn", slug="autumn", points_table=[1])
    assert new.places == "members"
