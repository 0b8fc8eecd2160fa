"""The public "How this event works" page: the rules as the tournament's own settings make them."""

import re

import pytest
from django.test import Client

from tests import factories
from tests.scoring.helpers import seat_tables
from tournaments.models import Stage, Tournament
from tournaments.presets import PRESETS
from tournaments.services import create_tournament

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    """The page's main part as a reader sees it: tags out, spaces collapsed."""
    assert response.status_code == 200
    html = response.content.decode()
    main = html[html.index("<main") : html.index("</main>")]
    return " ".join(re.sub(r"<[^>]+>", " ", main).split())


def page(client: Client, tournament: Tournament, language: str = "en") -> str:
    return text_of(client.get(f"/{language}/t/{tournament.slug}/how-it-works/"))


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end, text.index(start))]


def deal_of(text: str) -> str:
    """The deal table's rows: players at the table (a range of sizes dealt alike), tiles each."""
    rows = section(text, "Tiles each", "The tiles nobody").removeprefix("Tiles each")
    return rows.strip().replace("\N{EN DASH}", "-")


@pytest.fixture
def samboree():
    organiser = factories.OrganiserAccountFactory()
    return create_tournament(
        name="Lakeside Samboree",
        slug="lakeside",
        domino_set=12,
        preset="samboree",
        by=organiser,
        with_stages=True,
    )


def test_a_samboree_says_its_set_deal_stages_engines_and_who_advances(client, samboree):
    text = page(client, samboree)
    assert "How this event works" in text and "Lakeside Samboree" in text
    assert "A double-12 set: 91 tiles." in text
    assert f"Samboree (RV rally tournament) , from {PRESETS['samboree'].source} ." in text
    # The deal by table size, sizes dealt alike on one row.
    assert deal_of(text) == "2-4 12 5-6 10 7-10 8"
    qualifying = section(text, "Qualifying", "Playoff")
    assert "4 rounds, with their engines 1 (double-12) 2 (double-11) 3 (double-10)" in qualifying
    assert "4 (double-9)" in qualifying and "double-8" not in qualifying
    assert "Players at a table 3 to 4" in qualifying
    assert "Each table's winner goes on to the next playoff level" in qualifying
    assert "Highest score at the table for each missed round" in qualifying
    playoff = section(text, "Playoff", "Ties")
    assert "Players at a table 2 to 10" in playoff
    # Not seated yet: how many tables it takes decides whether it is the final.
    assert "Played at one table, this stage is the final" in playoff
    assert "Played at more than one table: Each table's winner goes on" in playoff
    assert "Late entries" not in playoff  # a playoff seats only its advancers
    # Scores, blocked rounds, ties and mid-stage standings.
    assert "scores 0 for the round" in text and "the lowest total wins" in text
    assert "A round is blocked when nobody can finish it" in text
    ties = section(text, "Ties", "Standings during a stage")
    assert ties.index("Most rounds won") < ties.index("Countback from the last round")
    assert "Tie-break round" in ties and "Drawing lots" in ties
    assert "Ranked on round 1, which every table has reported." in text


def test_a_pagat_double_9_tournament_plays_ten_rounds_down_to_double_blank(client):
    tournament = create_tournament(
        name="Club night",
        slug="club-night",
        domino_set=9,
        preset="pagat",
        by=factories.OrganiserAccountFactory(),
        with_stages=True,
    )
    text = page(client, tournament)
    assert "A double-9 set: 55 tiles." in text
    assert "Detailed rules (pagat.com)" in text
    assert deal_of(text) == "2-4 9 5-7 7 8 6"  # pagat's double-9 deal: 9, 9, 9, 7, 7, 7, 6
    assert "10 rounds, with their engines 1 (double-9)" in text
    assert "10 (double-0)" in text and "double-12" not in text


@pytest.fixture
def stage(tournament):
    tournament.preset = "pagat"
    tournament.save()
    return factories.StageFactory(tournament=tournament, order=1, rounds=4, starting_double=12)


def test_the_page_follows_each_setting_as_it_changes(client, tournament, stage):
    text = page(client, tournament)
    assert "4 rounds" in text and "4 (double-9)" in text
    assert "Each table's winner goes on" in text and "wildcard" not in text
    assert text.index("Most rounds won") < text.index("Countback from the last round")
    assert "Highest score at the table for each missed round" in text
    assert "Totals carried forward" not in text

    stage.rounds = 3
    stage.advance_per_table = 2
    stage.wildcards = 1
    stage.late_entry_rule = Stage.LateEntryRule.NO_ADVANCE
    stage.carry_forward = True
    stage.save()
    tournament.tiebreak_rules = ["countback", "rounds_won"]
    tournament.save()
    text = page(client, tournament)
    assert "3 rounds" in text and "3 (double-10)" in text and "double-9" not in text
    assert "Each table's top 2 go on to the next playoff level" in text
    assert "So does 1 more player, the best of the rest overall (a wildcard)." in text
    assert text.index("Countback from the last round") < text.index("Most rounds won")
    assert "Missed rounds score nothing, and the player cannot advance" in text
    assert "Totals carried forward Totals of the earlier qualifying stages count" in text

    stage.wildcards = 3
    stage.save()
    tournament.tiebreak_rules = ["countback"]  # most rounds won breaks no tie here
    tournament.save()
    text = page(client, tournament)
    assert "So do 3 more players" in text
    assert "Countback from the last round" in text and "Most rounds won" not in text


def test_the_page_follows_the_set(client):
    tournament = factories.TournamentFactory(preset="pagat", domino_set=12)
    assert "A double-12 set: 91 tiles." in page(client, tournament)
    tournament.domino_set = 15
    tournament.save()
    text = page(client, tournament)
    assert "A double-15 set: 136 tiles." in text
    assert deal_of(text) == "2-6 15 7-8 13 9-12 11"  # pagat's double-15 deal


def test_a_later_qualifying_stage_sends_nobody_on_and_a_one_table_stage_is_the_final(
    client, tournament, stage
):
    second = factories.StageFactory(tournament=tournament, order=2, name="Day 2", rounds=2)
    final = factories.StageFactory(
        tournament=tournament,
        order=3,
        name="Final table",
        kind=Stage.Kind.PLAYOFF,
        status=Stage.Status.SEATED,
    )
    seat_tables(final, [["Ann", "Bob", "Cy"]])
    text = page(client, tournament)
    first_stage = section(text, "Qualifying", "Day 2")
    assert "everyone plays the next stage" in first_stage
    assert "Each table's winner" in section(text, "Day 2 (Qualifying)", "Final table")
    assert "Played at one table, this stage is the final" in section(text, "Final table", "Ties")
    assert "Late entries" not in section(text, "Final table", "Ties")
    assert second.name in text


def test_a_stage_seated_at_several_tables_says_only_who_advances(client, tournament, stage):
    seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Ed", "Flo"]])
    stage.status = Stage.Status.SEATED
    stage.save()
    text = page(client, tournament)
    assert "Who advances Each table's winner goes on to the next playoff level" in text
    assert "this stage is the final" not in text


def test_a_tournament_without_stages_says_so(client, tournament):
    assert "The stages have not been set up yet." in page(client, tournament)


def test_in_spanish(client, samboree):
    text = page(client, samboree, "es")
    assert "Cómo funciona este torneo" in text
    assert "Samboree (torneo de concentración de autocaravanas)" in text
    assert "Clasificatoria" in text and "1 (doble 12)" in text
    assert "La puntuación más alta de la mesa en cada ronda no jugada" in text
    ties = text[text.index("Más rondas ganadas") :]
    assert "Comparación ronda a ronda desde la última" in ties and "Ronda de desempate" in ties
    assert "How this event works" not in text and "Each table's winner" not in text


def test_linked_from_the_standings_and_the_projector(client, samboree):
    how = f"/en/t/{samboree.slug}/how-it-works/"
    assert f'href="{how}"' in client.get(f"/en/t/{samboree.slug}/").content.decode()
    screen = client.get(f"/en/t/{samboree.slug}/screen/").content.decode()
    assert f'href="{how}"' in screen
    # Read from across the hall: the address itself, not only a link.
    assert f"How this event works: testserver{how}" in text_of_html(screen)


def text_of_html(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_an_unknown_tournament_is_a_404(client):
    assert client.get("/en/t/no-such-event/how-it-works/").status_code == 404


def test_anyone_reads_it_without_signing_in_as_the_standings(client, samboree):
    # Every tournament's public pages are public (there are no private tournaments): both pages
    # answer anyone alike.
    assert client.get(f"/en/t/{samboree.slug}/").status_code == 200
    assert client.get(f"/en/t/{samboree.slug}/how-it-works/").status_code == 200


def test_an_unchanged_page_costs_a_304_and_a_changed_setting_a_new_page(client, tournament, stage):
    url = f"/en/t/{tournament.slug}/how-it-works/"
    first = client.get(url)
    assert first["Cache-Control"] == "public, max-age=1, stale-while-revalidate=30"
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    stage.rounds = 2
    stage.save()
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    spanish = client.get(url.replace("/en/", "/es/"), HTTP_IF_NONE_MATCH=changed["ETag"])
    assert spanish.status_code == 200  # another language is another page
