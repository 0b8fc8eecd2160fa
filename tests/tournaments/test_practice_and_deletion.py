"""Mistakes put right (issue #47): a player or a tournament entered by mistake deleted, a
tournament hidden from the home page, a practice tournament never listed and saying so."""

import pytest

from scoring.models import RoundResult
from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import play, seat_tables
from tournaments.models import Player, Stage, Tournament

pytestmark = pytest.mark.django_db


def seated_stage(tournament) -> tuple[Stage, list[list[Player]]]:
    stage = factories.StageFactory(tournament=tournament, order=1, rounds=2, status="seated")
    return stage, seat_tables(stage, [["Ann", "Bob", "Cy", "Di"]])


# ---- deleting a player ---------------------------------------------------------------------------


def test_delete_player_without_seat_or_score_is_204_and_keeps_their_history(
    as_organiser, organiser, tournament
):
    player = factories.PlayerFactory(tournament=tournament, number=42, name="Typo Entry")
    response = as_organiser.delete(f"/api/v1/tournaments/{tournament.slug}/players/{player.pk}/")
    assert response.status_code == 204
    assert not Player.objects.filter(pk=player.pk).exists()
    last = Player.history.filter(id=player.pk).order_by("history_date").last()
    assert last.history_type == "-"
    assert last.history_user == organiser
    assert last.history_change_reason == "deleted"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "has a seat or a score in"),
        ("es", "tiene un asiento o una puntuación en"),
    ],
)
def test_delete_player_with_a_seat_is_409_saying_withdraw_and_keeps_them(
    as_organiser, tournament, language, text
):
    _stage, [[ann, *_]] = seated_stage(tournament)
    response = as_organiser.delete(
        f"/api/v1/tournaments/{tournament.slug}/players/{ann.pk}/", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert text in detail
    assert ("withdraw them instead" if language == "en" else "retírelo") in detail
    assert Player.objects.filter(pk=ann.pk).exists()


def test_delete_player_with_a_score_but_no_seat_left_is_409(as_organiser, tournament):
    stage, [players] = seated_stage(tournament)
    play(stage, players, 1, [0, 5, 6, 7])
    players[0].seats.all().delete()  # a seat taken away, the score still there
    response = as_organiser.delete(
        f"/api/v1/tournaments/{tournament.slug}/players/{players[0].pk}/"
    )
    assert response.status_code == 409
    assert Player.objects.filter(pk=players[0].pk).exists()


def test_delete_player_by_an_official_is_403_and_keeps_them(as_official, tournament):
    player = factories.PlayerFactory(tournament=tournament)
    response = as_official.delete(f"/api/v1/tournaments/{tournament.slug}/players/{player.pk}/")
    assert response.status_code == 403
    assert Player.objects.filter(pk=player.pk).exists()


def test_players_list_offers_delete_only_beside_a_player_never_seated(
    client, organiser, tournament
):
    _stage, [[ann, *_]] = seated_stage(tournament)
    extra = factories.PlayerFactory(tournament=tournament, number=99, name="Extra Entry")
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert f"/manage/players/{extra.pk}/delete/" in page
    assert f"/manage/players/{ann.pk}/delete/" not in page


def test_delete_player_page_asks_first_then_deletes(client, organiser, tournament):
    extra = factories.PlayerFactory(tournament=tournament, number=99, name="Extra Entry")
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/players/{extra.pk}/delete/"
    asked = client.get(url)
    assert "Delete #99 Extra Entry?" in asked.content.decode()
    assert Player.objects.filter(pk=extra.pk).exists()
    done = client.post(url, follow=True)
    assert "Deleted #99 Extra Entry." in done.content.decode()
    assert not Player.objects.filter(pk=extra.pk).exists()


@pytest.mark.parametrize(
    ("language", "text"), [("en", "withdraw them instead"), ("es", "retírelo")]
)
def test_delete_player_page_refuses_a_seated_player_saying_withdraw(
    client, organiser, tournament, language, text
):
    _stage, [[ann, *_]] = seated_stage(tournament)
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/players/{ann.pk}/delete/"
    response = client.post(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 409
    assert text in response.content.decode()
    assert Player.objects.filter(pk=ann.pk).exists()


# ---- deleting a tournament -----------------------------------------------------------------------


def test_delete_tournament_without_confirmed_results_is_204_and_takes_its_players(
    as_organiser, tournament
):
    stage, [players] = seated_stage(tournament)
    play(stage, players, 1, [0, 5, 6, 7], status="submitted")
    response = as_organiser.delete(f"/api/v1/tournaments/{tournament.slug}/")
    assert response.status_code == 204
    assert not Tournament.objects.filter(pk=tournament.pk).exists()
    assert not Player.objects.filter(tournament_id=tournament.pk).exists()
    assert not Player.history.filter(tournament_id=tournament.pk).exists()


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "has confirmed results, so it cannot be deleted: hide it from the home page"),
        ("es", "tiene resultados confirmados, así que no se puede eliminar: ocúltelo"),
    ],
)
def test_delete_tournament_with_a_confirmed_result_is_409_saying_hide_it(
    as_organiser, tournament, language, text
):
    stage, [players] = seated_stage(tournament)
    play(stage, players, 1, [0, 5, 6, 7])
    response = as_organiser.delete(
        f"/api/v1/tournaments/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 409
    assert text in response.json()["detail"]
    assert "listed: false" in response.json()["detail"]
    assert Tournament.objects.filter(pk=tournament.pk).exists()
    assert RoundResult.objects.filter(stage=stage).count() == 1


def test_delete_practice_tournament_with_confirmed_results_is_204(as_organiser, tournament):
    stage, [players] = seated_stage(tournament)
    Tournament.objects.filter(pk=tournament.pk).update(practice=True)
    play(stage, players, 1, [0, 5, 6, 7])
    response = as_organiser.delete(f"/api/v1/tournaments/{tournament.slug}/")
    assert response.status_code == 204
    assert not Tournament.objects.filter(pk=tournament.pk).exists()


def test_delete_tournament_by_an_official_is_403(as_official, tournament):
    response = as_official.delete(f"/api/v1/tournaments/{tournament.slug}/")
    assert response.status_code == 403
    assert Tournament.objects.filter(pk=tournament.pk).exists()


def test_delete_tournament_page_names_what_goes_and_wants_the_name_typed(
    client, organiser, tournament
):
    factories.PlayerFactory.create_batch(3, tournament=tournament)
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/delete/"
    asked = client.get(url).content.decode()
    assert "its 3 players and their history" in asked
    wrong = client.post(url, {"name": "something else"})
    assert wrong.status_code == 400
    assert "nothing was deleted" in wrong.content.decode()
    assert Tournament.objects.filter(pk=tournament.pk).exists()
    done = client.post(url, {"name": tournament.name}, follow=True)
    assert f"{tournament.name} is deleted." in done.content.decode()
    assert not Tournament.objects.filter(pk=tournament.pk).exists()


@pytest.mark.parametrize(("language", "text"), [("en", "hide it from"), ("es", "ocúltelo")])
def test_delete_tournament_page_refuses_one_with_confirmed_results(
    client, organiser, tournament, language, text
):
    stage, [players] = seated_stage(tournament)
    play(stage, players, 1, [0, 5, 6, 7])
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/delete/"
    response = client.post(url, {"name": tournament.name}, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 409
    assert text in response.content.decode()
    assert Tournament.objects.filter(pk=tournament.pk).exists()


# ---- listed and practice -------------------------------------------------------------------------


def test_new_tournament_is_listed_and_not_practice(as_organiser, tournament):
    body = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/").json()
    assert body["listed"] is True
    assert body["practice"] is False


def listed_slugs(client) -> set[str]:
    return {t["slug"] for t in client.get("/api/v1/tournaments/").json()}


def test_unlisted_tournament_is_off_the_lists_but_for_its_staff(
    client, anon, as_organiser, organiser, as_other_organiser, other_organiser, tournament
):
    response = as_organiser.patch(
        f"/api/v1/tournaments/{tournament.slug}/", {"listed": False}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["listed"] is False
    assert tournament.slug not in listed_slugs(anon)
    assert tournament.slug not in listed_slugs(as_other_organiser)
    assert tournament.slug in listed_slugs(as_organiser)
    admin = factories.UserFactory(is_superuser=True, is_staff=True)
    assert tournament.slug in listed_slugs(client_for(admin))
    assert tournament.name not in client.get("/").content.decode()
    client.force_login(other_organiser)
    assert tournament.name not in client.get("/").content.decode()
    client.force_login(organiser)
    assert tournament.name in client.get("/").content.decode()
    # Its pages still answer at their address.
    client.logout()
    assert anon.get(f"/api/v1/tournaments/{tournament.slug}/").status_code == 200
    page = client.get(f"/en/t/{tournament.slug}/")
    assert page.status_code == 200
    assert tournament.name in page.content.decode()


def test_practice_tournament_is_on_no_list_even_listed_but_in_its_organisers_home(
    client, anon, as_organiser, organiser, tournament
):
    response = as_organiser.patch(
        f"/api/v1/tournaments/{tournament.slug}/",
        {"practice": True, "listed": True},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["practice"] is True
    assert tournament.slug not in listed_slugs(anon)
    assert tournament.slug not in listed_slugs(as_organiser)
    assert tournament.name not in client.get("/").content.decode()
    client.force_login(organiser)
    home = client.get("/").content.decode()
    assert tournament.name in home
    assert "Practice" in home


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "has results already"), ("es", "ya tiene resultados")],
)
def test_practice_turned_on_once_a_result_exists_is_409_and_changes_nothing(
    as_organiser, tournament, language, text
):
    stage, [players] = seated_stage(tournament)
    play(stage, players, 1, [0, 5, 6, 7], status="submitted")
    response = as_organiser.patch(
        f"/api/v1/tournaments/{tournament.slug}/",
        {"practice": True, "listed": False, "venue": "Hall B"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 409
    assert text in response.json()["detail"]
    tournament.refresh_from_db()
    assert (tournament.practice, tournament.listed, tournament.venue) == (False, True, "")


def test_practice_turned_off_at_any_time(as_organiser, tournament):
    stage, [players] = seated_stage(tournament)
    Tournament.objects.filter(pk=tournament.pk).update(practice=True)
    play(stage, players, 1, [0, 5, 6, 7])
    response = as_organiser.patch(
        f"/api/v1/tournaments/{tournament.slug}/", {"practice": False}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["practice"] is False


def test_listed_and_practice_changed_by_an_official_is_403(as_official, tournament):
    for change in ({"listed": False}, {"practice": True}):
        response = as_official.patch(
            f"/api/v1/tournaments/{tournament.slug}/", change, format="json"
        )
        assert response.status_code == 403
    tournament.refresh_from_db()
    assert (tournament.practice, tournament.listed) == (False, True)


def test_tournament_created_as_practice_through_the_api(as_organiser, organiser):
    factories.StaffFactory(user=organiser, role="organiser")  # may create tournaments
    response = as_organiser.post(
        "/api/v1/tournaments/",
        {"name": "Dry Run", "slug": "dry-run", "practice": True},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["practice"] is True
    assert Tournament.objects.get(slug="dry-run").practice


@pytest.mark.parametrize(
    ("language", "banner"),
    [("en", "A rehearsal: these seats and results"), ("es", "Un ensayo: estos asientos")],
)
def test_practice_pages_say_practice_public_and_staff(
    client, organiser, tournament, language, banner
):
    assert banner not in client.get(f"/{language}/t/{tournament.slug}/").content.decode()
    Tournament.objects.filter(pk=tournament.pk).update(practice=True)
    public = client.get(f"/{language}/t/{tournament.slug}/").content.decode()
    assert banner in public
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/", HTTP_ACCEPT_LANGUAGE=language)
    assert banner in console.content.decode()


def test_public_page_version_changes_with_practice_and_listed(client, tournament):
    url = f"/en/t/{tournament.slug}/"
    versions = [client.get(url)["ETag"]]
    for change in ({"practice": True}, {"listed": False}, {"practice": False}):
        Tournament.objects.filter(pk=tournament.pk).update(**change)
        versions.append(client.get(url)["ETag"])
    assert len(set(versions)) == 4, versions


def test_details_page_offers_listing_practice_and_delete(client, organiser, tournament):
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/manage/details/").content.decode()
    assert 'name="listed"' in page
    assert 'name="practice"' in page
    assert f"/t/{tournament.slug}/manage/delete/" in page
    done = client.post(
        f"/t/{tournament.slug}/manage/details/",
        {"time_zone": tournament.time_zone, "practice": "on"},
    )
    assert done.status_code == 302
    tournament.refresh_from_db()
    assert tournament.practice and not tournament.listed  # an unticked box: off the home page


def test_end_practice_page_asks_first_and_says_what_it_keeps(client, organiser, tournament):
    Tournament.objects.filter(pk=tournament.pk).update(practice=True)
    client.force_login(organiser)
    details = client.get(f"/t/{tournament.slug}/manage/details/").content.decode()
    assert "Turn into the real event" in details
    assert f"/t/{tournament.slug}/manage/practice/reset/" in details
    url = f"/t/{tournament.slug}/manage/practice/end/"
    asked = client.get(url).content.decode()
    assert "It keeps its players" in asked
    tournament.refresh_from_db()
    assert tournament.practice
    client.post(url)
    tournament.refresh_from_db()
    assert not tournament.practice
