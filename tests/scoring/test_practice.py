"""A practice tournament (issue #47): its cards, PDFs and files say Practice; reset removes its
seats, results, placings and the stages a close made, keeping its players; and a rehearsed
Samboree is then played for real."""

import io

import pytest
from pypdf import PdfReader

from scoring.models import Placing, RoundResult, StandingRow
from tables.models import Seat
from tests import factories
from tests.conftest import client_for
from tests.scoring import helpers
from tests.scoring.test_preset_events import (
    add_players,
    close,
    organiser_and_official,
    play_rounds,
    seat,
    tables_of,
)
from tournaments.models import Player, Stage, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def pdf_text(content: bytes) -> str:
    return " ".join(
        " ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(content)).pages
    )


def check_in_everyone(client, slug: str) -> None:
    for player in Player.objects.filter(tournament__slug=slug):
        response = client.post(f"/api/v1/tournaments/{slug}/players/{player.pk}/check-in/")
        assert response.status_code == 200


def test_reset_of_a_real_tournament_is_409_and_changes_nothing(require_postgres):
    tournament = factories.TournamentFactory()
    stage = helpers.qualifying_with_tables(tournament, [4])
    players = list(Player.objects.filter(tournament=tournament).order_by("number"))
    helpers.play(stage, players, 1, [0, 5, 6, 7])
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    for language, text in (("en", "is not a practice tournament"), ("es", "no es un torneo")):
        response = client_for(organiser).post(
            f"/api/v1/tournaments/{tournament.slug}/reset/", HTTP_ACCEPT_LANGUAGE=language
        )
        assert response.status_code == 409
        assert text in response.json()["detail"]
    assert RoundResult.objects.filter(stage=stage).count() == 1
    assert Seat.objects.filter(stage=stage).count() == 4
    assert Stage.objects.get(pk=stage.pk).status == "seated"


def test_reset_by_an_official_is_403_and_changes_nothing(require_postgres):
    tournament = factories.TournamentFactory(practice=True)
    stage = helpers.qualifying_with_tables(tournament, [4])
    official = factories.StaffFactory(tournament=tournament, role="official").user
    response = client_for(official).post(f"/api/v1/tournaments/{tournament.slug}/reset/")
    assert response.status_code == 403
    assert Seat.objects.filter(stage=stage).count() == 4


def test_reset_keeps_players_and_check_ins_and_removes_play_and_close_made_stages(
    require_postgres,
):
    tournament = factories.TournamentFactory(practice=True)
    organiser = client_for(factories.StaffFactory(tournament=tournament, role="organiser").user)
    stage = helpers.qualifying_with_tables(tournament, [3, 3])
    Player.objects.filter(tournament=tournament).update(status="checked_in")
    late = factories.PlayerFactory(tournament=tournament, number=50, status="registered")
    helpers.play_stage(stage)
    assert helpers.close(organiser, stage).status_code == 202
    made = Stage.objects.get(tournament=tournament, source_stage=stage)
    assert made.made_by_close and made.status == "seated"
    response = organiser.post(f"/api/v1/tournaments/{tournament.slug}/reset/")
    assert response.status_code == 200
    assert response.json()["practice"] is True
    assert list(Stage.objects.filter(tournament=tournament).values_list("pk", "status")) == [
        (stage.pk, "pending")
    ]
    assert not Seat.objects.filter(stage__tournament=tournament).exists()
    assert not RoundResult.objects.filter(stage__tournament=tournament).exists()
    assert not StandingRow.objects.filter(stage__tournament=tournament).exists()
    assert not Placing.objects.filter(tournament=tournament).exists()
    statuses = dict(Player.objects.filter(tournament=tournament).values_list("number", "status"))
    assert len(statuses) == 7
    assert statuses.pop(late.number) == "registered"
    assert set(statuses.values()) == {"checked_in"}
    # Twice is harmless.
    assert organiser.post(f"/api/v1/tournaments/{tournament.slug}/reset/").status_code == 200


def test_reset_keeps_a_playoff_stage_the_organiser_set_up(require_postgres):
    tournament = factories.TournamentFactory(practice=True)
    organiser = client_for(factories.StaffFactory(tournament=tournament, role="organiser").user)
    stage = helpers.qualifying_with_tables(tournament, [3, 3])
    final = helpers.playoff(tournament, size_min=2, size_max=4)
    helpers.play_stage(stage)
    assert helpers.close(organiser, stage).status_code == 202
    assert Stage.objects.get(pk=final.pk).status == "seated"
    assert organiser.post(f"/api/v1/tournaments/{tournament.slug}/reset/").status_code == 200
    assert set(Stage.objects.filter(tournament=tournament).values_list("pk", "status")) == {
        (stage.pk, "pending"),
        (final.pk, "pending"),
    }


def test_a_samboree_rehearsed_as_practice_then_reset_and_played_for_real(require_postgres):
    organiser, official, stages = organiser_and_official(
        "samboree", "lakeside-rehearsal", practice=True
    )
    slug = "lakeside-rehearsal"
    qualifying = stages[0]["id"]
    add_players(organiser, slug, 8)
    check_in_everyone(organiser, slug)
    seat(organiser, qualifying, seed=1)
    tables = tables_of(official, qualifying)
    play_rounds(official, tables, range(1, 3), {})  # the morning's first two rounds, rehearsed

    # Everything it prints says it is practice.
    cards = organiser.get(f"/api/v1/stages/{qualifying}/cards.pdf")
    assert "PRACTICE: a rehearsal, not the real event" in pdf_text(cards.content)
    assert 'filename="practice-' in cards["Content-Disposition"]
    for name in ("players", "scores", "standings"):
        export = organiser.get(f"/api/v1/tournaments/{slug}/exports/{name}.csv")
        assert export.status_code == 200
        assert f'filename="practice-{slug}-{name}.csv"' in export["Content-Disposition"]
    spanish = organiser.get(f"/api/v1/stages/{qualifying}/cards.pdf", HTTP_ACCEPT_LANGUAGE="es")
    assert "PRÁCTICA: un ensayo" in pdf_text(spanish.content)

    assert organiser.post(f"/api/v1/tournaments/{slug}/reset/").status_code == 200
    real = organiser.patch(f"/api/v1/tournaments/{slug}/", {"practice": False}, format="json")
    assert real.status_code == 200 and real.json()["practice"] is False
    assert Player.objects.filter(tournament__slug=slug, status="checked_in").count() == 8
    # Practice again, now that the real event has begun: refused.
    seat(organiser, qualifying, seed=2)
    tables = tables_of(official, qualifying)
    play_rounds(official, tables, range(1, 5), {})
    again = organiser.patch(f"/api/v1/tournaments/{slug}/", {"practice": True}, format="json")
    assert again.status_code == 409

    close(organiser, qualifying)
    final = Stage.objects.get(tournament__slug=slug, status="seated")
    assert not final.made_by_close  # the preset's own playoff
    play_rounds(official, tables_of(official, final.pk), range(1, final.rounds + 1), {})
    close(organiser, final.pk)
    tournament = Tournament.objects.get(slug=slug)
    assert Placing.objects.filter(tournament=tournament).count() == 8
    export = organiser.get(f"/api/v1/tournaments/{slug}/exports/placings.csv")
    assert f'filename="{slug}-placings.csv"' in export["Content-Disposition"]
    cards = organiser.get(f"/api/v1/stages/{final.pk}/cards.pdf")
    assert "PRACTICE" not in pdf_text(cards.content)
    # Real results: no deleting it now, only hiding it.
    assert organiser.delete(f"/api/v1/tournaments/{slug}/").status_code == 409
