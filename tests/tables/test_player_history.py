"""Every change to a player's entry is kept: when, by whom, why, and what it was before."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import strip_tags

from tests import factories
from tests.scoring.helpers import play, seat_tables
from tournaments.models import Player
from tournaments.services import record_change

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


def history_rows(client, tournament, player) -> list[list[str]]:
    """The History table on the player's page: each row's cells as text, newest first, the
    When cell left out (the time of the test run)."""
    page = client.get(f"/t/{tournament.slug}/manage/players/{player.pk}/edit/").content.decode()
    table = page.split('id="history"', 1)[1].split("</table>", 1)[0]
    rows = table.split("<tbody>", 1)[1].split("</tr>")[:-1]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[1:] for row in rows]
    return [[" ".join(strip_tags(c.replace("<br>", " | ")).split()) for c in row] for row in cells]


def test_every_change_made_from_the_console_is_listed_on_the_players_page(
    organiser_client, tournament, organiser
):
    manage = f"/t/{tournament.slug}/manage/players"
    organiser_client.post(f"{manage}/add/", {"number": "7", "name": "Ann Smiht"})
    ann = Player.objects.get(tournament=tournament, number=7)
    organiser_client.post(
        f"{manage}/{ann.pk}/edit/", {"number": "17", "name": "Ann Smith", "club": "Lakeside"}
    )
    organiser_client.post(f"{manage}/{ann.pk}/withdraw/")
    organiser_client.post(f"{manage}/{ann.pk}/reinstate/")

    by = organiser.username
    assert history_rows(organiser_client, tournament, ann) == [
        ["Reinstated", by, "Status: Withdrawn → Not checked in"],  # as before it
        ["Withdrawn", by, "Status: Not checked in → Withdrawn"],
        [
            "Entry corrected",
            by,
            "Number: 7 → 17 | Name: Ann Smiht → Ann Smith | Club: — → Lakeside",
        ],
        ["Added", by, ""],
    ]


def test_a_refused_change_or_one_that_changes_nothing_adds_nothing_to_the_history(
    organiser_client, tournament
):
    manage = f"/t/{tournament.slug}/manage/players"
    organiser_client.post(f"{manage}/add/", {"number": "1", "name": "Ann Smith"})
    organiser_client.post(f"{manage}/add/", {"number": "2", "name": "Bob Ortiz"})
    ann = Player.objects.get(tournament=tournament, number=1)
    # A number already taken: refused, nothing written.
    taken = organiser_client.post(f"{manage}/{ann.pk}/edit/", {"number": "2", "name": "Ann"})
    assert taken.status_code == 400
    # The same values again, a second withdrawal, a check-in after withdrawing: no change.
    organiser_client.post(f"{manage}/{ann.pk}/edit/", {"number": "1", "name": "Ann Smith"})
    organiser_client.post(f"{manage}/{ann.pk}/withdraw/")
    organiser_client.post(f"{manage}/{ann.pk}/withdraw/")
    refused = organiser_client.post(f"{manage}/{ann.pk}/check-in/", follow=True)
    assert "has withdrawn and cannot be checked in" in refused.content.decode()
    what = [row[0] for row in history_rows(organiser_client, tournament, ann)]
    assert what == ["Withdrawn", "Added"]


def test_a_reinstatement_refused_because_the_table_played_on_adds_nothing(
    organiser_client, tournament
):
    stage = factories.StageFactory(tournament=tournament, order=1, rounds=3, status="seated")
    ((ann, bob, cy),) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    manage = f"/t/{tournament.slug}/manage/players"
    organiser_client.post(f"{manage}/{ann.pk}/withdraw/")
    play(stage, [bob, cy], 1, [0, 12])
    refused = organiser_client.post(f"{manage}/{ann.pk}/reinstate/", follow=True)
    assert "cannot rejoin" in refused.content.decode()
    assert ann.history.count() == 2  # created by the helper, then withdrawn
    assert ann.history.first().history_change_reason == "withdrawn"


def test_players_imported_from_a_csv_file_are_recorded_as_imported_by_the_organiser(
    organiser_client, tournament, organiser
):
    good = SimpleUploadedFile("p.csv", b"number,name\n1,Ann\n2,Bob\n")
    organiser_client.post(f"/t/{tournament.slug}/manage/players/import/", {"file": good})
    for player in Player.objects.filter(tournament=tournament):
        (entry,) = player.history.all()
        assert (entry.history_change_reason, entry.history_user) == ("imported", organiser)


def test_the_api_records_who_withdrew_a_player(as_organiser, tournament, organiser):
    ann = factories.PlayerFactory(tournament=tournament, number=3, name="Ann Smith")
    url = f"/api/v1/tournaments/{tournament.slug}/players/{ann.pk}/withdraw/"
    assert as_organiser.post(url).status_code == 200
    entry = ann.history.first()
    assert (entry.history_change_reason, entry.history_user, entry.status) == (
        "withdrawn",
        organiser,
        "withdrawn",
    )


def test_a_change_in_the_admin_is_recorded_with_its_user_and_cannot_be_reverted_there(client):
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    ann = factories.PlayerFactory(number=4, name="Ann Smiht")
    change = reverse("admin:tournaments_player_change", args=[ann.pk])
    body = {"tournament": ann.tournament_id, "number": 4, "name": "Ann Smith", "household": "",
            "club": ""}  # fmt: skip
    assert client.post(change, body).status_code == 302
    entry = ann.history.first()
    assert (entry.name, entry.history_user, entry.history_type) == ("Ann Smith", superuser, "~")
    history = client.get(reverse("admin:tournaments_player_history", args=[ann.pk]))
    assert history.status_code == 200 and b"Ann Smiht" in history.content
    # Reverting would set the status back without reopening or closing seats.
    old = ann.history.last()
    revert = reverse("admin:tournaments_player_simple_history", args=[ann.pk, old.history_id])
    assert client.get(revert).status_code == 200  # shown
    assert client.post(revert, {**body, "name": old.name}).status_code == 403  # never saved
    ann.refresh_from_db()
    assert ann.name == "Ann Smith"


def test_a_player_entered_before_the_history_says_so(organiser_client, tournament):
    ann = factories.PlayerFactory(tournament=tournament, number=5, name="Ann Smith")
    ann.history.all().delete()  # as for a player entered before this release
    page = organiser_client.get(f"/t/{tournament.slug}/manage/players/{ann.pk}/edit/")
    assert "No changes recorded" in page.content.decode()


def test_a_service_called_outside_any_request_records_the_user_it_is_given(tournament, organiser):
    # A script or a worker has no request for the middleware to read: `by` says who.
    from tables import services as table_services
    from tournaments import services as tournament_services

    ann = factories.PlayerFactory(tournament=tournament, number=6, name="Ann Smith")
    tournament_services.update_player(player=ann, number=6, name="Ann Smyth", by=organiser)
    table_services.withdraw_player(player=ann, by=organiser)
    assert [(e.history_change_reason, e.history_user) for e in ann.history.all()[:2]] == [
        ("withdrawn", organiser),
        ("corrected", organiser),
    ]


def test_the_history_speaks_the_readers_language(organiser_client, tournament):
    manage = f"/t/{tournament.slug}/manage/players"
    organiser_client.post(f"{manage}/add/", {"number": "7", "name": "Ann Smiht"})
    ann = Player.objects.get(tournament=tournament, number=7)
    organiser_client.post(f"{manage}/{ann.pk}/edit/", {"number": "7", "name": "Ann Smith"})
    organiser_client.post(f"{manage}/{ann.pk}/withdraw/")
    spanish = organiser_client.get(
        f"{manage}/{ann.pk}/edit/", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Estado: Sin llegar → Retirado" in spanish
    assert "Nombre: Ann Smiht → Ann Smith" in spanish and "Inscripción corregida" in spanish


def test_deleting_a_tournament_deletes_its_players_history_and_no_other(tournament, organiser):
    other = factories.TournamentFactory()
    kept = factories.PlayerFactory(tournament=other, number=1)
    record_change(kept, by=organiser, reason="added")
    for number in (1, 2, 3):
        player = factories.PlayerFactory(tournament=tournament, number=number)
        record_change(player, by=organiser, reason="added")
    tournament_id = tournament.pk  # delete() forgets it
    assert Player.history.filter(tournament_id=tournament_id).count() == 3
    tournament.delete()
    # Gone with it, "Deleted" entries included: nobody's entry outlives the event.
    assert not Player.history.filter(tournament_id=tournament_id).exists()
    assert list(Player.history.values_list("name", "history_type")) == [(kept.name, "+")]


def test_a_player_deleted_alone_keeps_their_history_with_the_deletion(admin_client, tournament):
    player = factories.PlayerFactory(tournament=tournament, number=4, name="Ann Smith")
    url = reverse("admin:tournaments_player_delete", args=[player.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    history = Player.history.filter(id=player.pk).order_by("history_date")
    assert [(h.name, h.history_type) for h in history] == [("Ann Smith", "+"), ("Ann Smith", "-")]
    assert history.last().history_user.username == "admin"
