"""The how-it-works page of the events' presets says what each adds: the age categories and
their medals, a stage placed by total, a time limit and what happens when time is called, and
the tables that move between games."""

import pytest

from tests import factories
from tournaments import services

pytestmark = pytest.mark.django_db


def page_of(client, preset: str, domino_set: int = 12) -> str:
    tournament = services.create_tournament(
        name="Event", slug=f"event-{preset}".replace("_", "-"), domino_set=domino_set,
        preset=preset, by=factories.OrganiserAccountFactory(), with_stages=True,
    )  # fmt: skip
    return " ".join(client.get(f"/en/t/{tournament.slug}/how-it-works/").content.decode().split())


def test_senior_games_name_their_age_categories_and_medals(client):
    text = page_of(client, "senior_games")
    divisions = text.split('id="divisions-h"')[1].split("</section>")[0]
    for line in ("50-59</strong>: ages 50 to 59", "70-79</strong>: ages 70 to 79",
                 "80+</strong>: ages 80 and over"):  # fmt: skip
        assert line in divisions
    assert "the first three of each division win gold, silver and bronze" in divisions
    assert "everyone is placed by their total across all its tables" in text
    assert "As played at" not in text and "as played at A county Silver Games" in text
    # Nothing about a playoff the event does not play.
    assert "There is no playoff: the placings come from the totals of the last stage" in text
    assert "playoff level" not in text and "One playoff for everyone" not in text


def test_an_event_with_a_playoff_still_explains_its_levels(client):
    text = page_of(client, "rv_club")
    assert "Otherwise they play a playoff level" in text and "There is no playoff" not in text


def test_a_timed_stage_says_its_limit_and_what_calling_time_does(client):
    text = page_of(client, "senior_olympics")
    assert "60 minutes. When time is called: the round in play is finished" in text
    assert "the standings count the rounds every table played" in text


def test_a_game_seated_from_the_game_before_says_who_moves(client):
    text = page_of(client, "eleven_three", 15)
    assert text.count("the 3 lowest totals at each table move up a table and the 3 highest") == 3
