"""The placings that the last close decides, and what may no longer change once they are."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Placing
from tests import factories
from tests.scoring.helpers import close, play_stage, qualifying_with_tables

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_single_table_stage_decides_the_placings(as_organiser, anon, tournament):
    stage = qualifying_with_tables(tournament, [4])
    play_stage(stage)
    close(as_organiser, stage)
    placings = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    assert [(p["place"], p["player"]["name"]) for p in placings] == [
        (1, "Q1"),
        (2, "Q2"),
        (3, "Q3"),
        (4, "Q4"),
    ]
    assert Placing.objects.filter(tournament=tournament).count() == 4


def test_no_player_is_added_once_the_placings_are_decided(
    as_organiser, client, organiser, tournament
):
    stage = qualifying_with_tables(tournament, [4])
    play_stage(stage)
    close(as_organiser, stage)
    api = f"/api/v1/tournaments/{tournament.slug}/players/"
    added = as_organiser.post(api, {"number": 50, "name": "Late Lou"}, format="json")
    assert added.status_code == 409
    assert "the tournament is over, so no player can be added" in added.json()["detail"]
    upload = SimpleUploadedFile("players.csv", b"number,name\n51,Lou\n")
    imported = as_organiser.post(f"{api}import/", {"file": upload}, format="multipart")
    assert imported.status_code == 409
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "no player can be added" in console and "manage/players/add/" not in console
    form = client.post(f"/t/{tournament.slug}/manage/players/add/", {"number": 52, "name": "Lu"})
    assert form.status_code == 400 and "no player can be added" in form.content.decode()
    assert tournament.players.count() == 4
    # A typo in an entry can still be put right.
    q1 = tournament.players.get(number=1)
    fixed = client.post(
        f"/t/{tournament.slug}/manage/players/{q1.pk}/edit/",
        {"number": 1, "name": "Q One", "household": "", "club": ""},
    )
    assert fixed.status_code == 302
    q1.refresh_from_db()
    assert q1.name == "Q One"


def test_nobody_withdraws_rejoins_or_checks_in_once_the_placings_are_decided(
    as_organiser, client, organiser, tournament
):
    """A withdrawal after the final would rank the winner after everyone at the next rebuild,
    while the placings said first: the finished event's results stand as they are."""
    stage = qualifying_with_tables(tournament, [4])
    late = factories.PlayerFactory(
        tournament=tournament, number=60, name="Reg", status="registered"
    )
    gone = factories.PlayerFactory(
        tournament=tournament, number=61, name="Gone", status="withdrawn"
    )
    # Two registered: the console offers to check in everyone registered from two.
    factories.PlayerFactory(tournament=tournament, number=62, name="Reg Two", status="registered")
    play_stage(stage)
    close(as_organiser, stage)
    winner = tournament.players.get(name="Q1")
    placings = f"/api/v1/tournaments/{tournament.slug}/placings/"
    before = as_organiser.get(placings).json()
    assert before[0]["player"]["name"] == "Q1"
    reason = (
        "Qualifying has decided the placings: the tournament is over, so no player can withdraw,"
        " rejoin or check in. A player's entry can still be corrected."
    )
    players = f"/api/v1/tournaments/{tournament.slug}/players"
    for player, action in [(winner, "withdraw"), (gone, "reinstate"), (late, "check-in")]:
        refused = as_organiser.post(f"{players}/{player.pk}/{action}/")
        assert refused.status_code == 409 and refused.json()["detail"] == reason, action
    client.force_login(organiser)
    manage = f"/t/{tournament.slug}/manage/players"
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "nobody can withdraw, rejoin or check in" in console
    for player, action in [(winner, "withdraw"), (gone, "reinstate"), (late, "check-in")]:
        assert f"{manage}/{player.pk}/{action}/" not in console, action
    assert f"{manage}/check-in-everyone/" not in console
    for player, action in [(winner, "withdraw"), (gone, "reinstate"), (late, "check-in")]:
        for ask in (client.get, client.post):  # a stale tab: the confirmation, or its button
            page = ask(f"{manage}/{player.pk}/{action}/", follow=True).content.decode()
            assert reason.replace("'", "&#x27;") in page, (action, ask)
    for ask in (client.get, client.post):
        page = ask(f"{manage}/check-in-everyone/", follow=True).content.decode()
        assert reason.replace("'", "&#x27;") in page
    statuses = dict(tournament.players.values_list("name", "status"))
    assert statuses["Q1"] != "withdrawn"
    assert (statuses["Reg"], statuses["Gone"]) == ("registered", "withdrawn")
    assert as_organiser.get(placings).json() == before
