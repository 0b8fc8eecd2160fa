"""A morning rehearsed, then played for real and put right: each event is first a practice
tournament (played, then reset), then the real one, where a typo at the last table is corrected
after the stage closed (an 11-3 game closes itself), and what its close seated is seated again
from the corrected totals."""

import pytest

from tables.models import Seat
from tests.scoring.test_moving_games import play_game, tables_of
from tests.scoring.test_reopen import badge_numbers, correct, event, round_url
from tournaments import services
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def rehearse(organiser, official, tournament, first: Stage) -> None:
    """Practice on, the first stage seated and played, then reset and practice off."""
    url = f"/api/v1/tournaments/{tournament.slug}/"
    assert organiser.patch(url, {"practice": True}, format="json").json()["practice"] is True
    assert organiser.post(f"/api/v1/stages/{first.pk}/seat/", {"seed": 1}).status_code == 200
    play_game(official, first)
    assert organiser.post(f"{url}reset/").status_code == 200
    first.refresh_from_db()
    assert first.status == "pending" and not Seat.objects.filter(stage=first).exists()
    assert tournament.players.count() > 0  # the real list is kept
    assert organiser.patch(url, {"practice": False}, format="json").json()["practice"] is False


def test_an_eleven_three_day_rehearsed_then_a_typo_corrected_after_the_game_closed_itself():
    tournament, organiser, official, games = event("eleven_three", "club-day", 21, domino_set=15)
    game1, game2 = games[0], games[1]
    rehearse(organiser, official, tournament, game1)
    assert organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 4}).status_code == 200
    play_game(official, game1)
    game2.refresh_from_db()
    assert game2.status == "seated"  # the last table's confirmation closed game 1
    before = tables_of(game2)
    last = badge_numbers(game1, 3)
    typo = {n: 5 * i for i, n in enumerate(last)}
    typo[last[0]], typo[last[1]] = 500, 0  # the best of the bottom table in fact scored worst
    url = round_url(game1, 3, game1.rounds)
    assert correct(organiser, url, typo).status_code == 200
    assert official.post(f"{url}confirm/").status_code == 200
    game2.refresh_from_db()
    assert game2.status == "seated" and tables_of(game2) != before
    assert last[1] in tables_of(game2)[1]  # moved up from the bottom table on corrected totals
    assert game2.seating_report["moved"]


def test_a_samboree_rehearsed_then_a_typo_corrected_after_the_close_seated_the_final():
    tournament, organiser, official, stages = event("samboree", "rally", 8)
    qualifying, playoff = stages
    services.remove_stage(stage=playoff)  # the close makes the final
    rehearse(organiser, official, tournament, qualifying)
    assert not tournament.stages.filter(made_by_close=True).exists()
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    final = Stage.objects.get(source_stage=qualifying)
    last = max(qualifying.tables.values_list("number", flat=True))
    table = badge_numbers(qualifying, last)
    winner = table[0]  # went out every round
    assert Seat.objects.filter(stage=final, player__number=winner).exists()
    typo = {n: 5 * i for i, n in enumerate(table)}
    typo[winner], typo[table[1]] = 400, 0
    url = round_url(qualifying, last, qualifying.rounds)
    assert correct(organiser, url, typo).status_code == 200
    assert not Stage.objects.filter(pk=final.pk).exists()
    assert official.post(f"{url}confirm/").status_code == 200
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    final = Stage.objects.get(source_stage=qualifying)
    seated = set(Seat.objects.filter(stage=final).values_list("player__number", flat=True))
    assert winner not in seated and table[1] in seated
