"""The console's players import as an update: the file's changes shown first ("N will be added,
M changed"), then applied or cancelled, the file kept in between without uploading it again."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests import factories
from tournaments.services.players import update_player

pytestmark = pytest.mark.django_db

CORRECTED = b"number,name,club\n30,Ann Smyth,Elks\n31,Bob,\n33,Dee,Lakeside\n"


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def entered(tournament):
    return {
        30: factories.PlayerFactory(tournament=tournament, number=30, name="Ann", club="Elks"),
        31: factories.PlayerFactory(tournament=tournament, number=31, name="Bob"),
        32: factories.PlayerFactory(tournament=tournament, number=32, name="Cy"),
    }


def names(tournament) -> dict[int, str]:
    return dict(tournament.players.values_list("number", "name"))


def send(client, tournament, content: bytes = CORRECTED, mode: str = "update", **extra):
    return client.post(
        f"/t/{tournament.slug}/manage/players/import/",
        {"file": SimpleUploadedFile("corrected.csv", content), "mode": mode},
        **extra,
    )


def digest_of(page: str) -> str:
    return page.split('name="digest" value="')[1].split('"')[0]


def test_the_console_offers_adding_only_or_updating_by_number(organiser_client, tournament):
    page = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Add new players only" in page
    assert "Add new and update existing (by number)" in page
    add = page.split('value="add"')[1].split(">")[0]
    assert "checked" in add  # what an import did before, unless asked
    factories.PlayerFactory(tournament=tournament, number=30, name="Ann")
    response = send(organiser_client, tournament, b"number,name\n30,Annie\n", mode="add")
    assert "Line 2: Number 30 is already in the tournament." in response.content.decode()


def test_an_update_is_shown_first_and_saved_only_when_applied(
    organiser_client, tournament, entered
):
    sent = send(organiser_client, tournament)
    assert sent.status_code == 302
    assert sent["Location"] == f"/t/{tournament.slug}/manage/players/import/preview/"
    preview = organiser_client.get(sent["Location"])
    page = preview.content.decode()
    assert preview.status_code == 200
    assert "1 player will be added, 1 changed, 1 unchanged." in page
    row = page.split("<tbody>")[1].split("</tr>")[0]
    assert "#30" in row and "Ann</td>" in row and ">Name<" in row
    assert "<del>Ann</del>" in row and "<strong>Ann Smyth</strong>" in row
    assert "#33 Dee" in page
    assert "Apply these changes" in page and "Cancel" in page
    assert names(tournament) == {30: "Ann", 31: "Bob", 32: "Cy"}  # nothing saved yet
    applied = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/apply/",
        {"digest": digest_of(page), "apply": ""},
        follow=True,
    )
    assert "Players added: 1. Corrected: 1. Unchanged: 1." in applied.content.decode()
    assert names(tournament) == {30: "Ann Smyth", 31: "Bob", 32: "Cy", 33: "Dee"}
    again = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/apply/", {"digest": digest_of(page)},
        follow=True,
    )  # fmt: skip
    assert "No file is waiting to be applied" in again.content.decode()  # applied once only


def test_cancelling_the_preview_changes_nothing(organiser_client, tournament, entered):
    page = send(organiser_client, tournament, follow=True).content.decode()
    cancelled = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/apply/",
        {"digest": digest_of(page), "cancel": ""},
        follow=True,
    )
    assert "Cancelled: no player was added or changed." in cancelled.content.decode()
    assert names(tournament) == {30: "Ann", 31: "Bob", 32: "Cy"}
    gone = organiser_client.get(f"/t/{tournament.slug}/manage/players/import/preview/")
    assert gone.status_code == 302  # the file is no longer kept


def test_a_preview_the_players_changed_under_is_shown_again_before_anything_is_saved(
    organiser_client, organiser, tournament, entered
):
    page = send(organiser_client, tournament, follow=True).content.decode()
    # At the desk meanwhile: Ann's club corrected, and Dee added by hand.
    update_player(player=entered[30], number=30, name="Ann", club="Moose", by=organiser)
    factories.PlayerFactory(tournament=tournament, number=33, name="Dee")
    applied = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/apply/",
        {"digest": digest_of(page)},
        follow=True,
    )
    again = applied.content.decode()
    assert "The players changed since the preview" in again
    # Dee is there now: her club the file's change; Bob unchanged.
    assert "0 players will be added, 2 changed, 1 unchanged." in again
    assert "<del>Moose</del>" in again and "<strong>Elks</strong>" in again
    assert names(tournament)[30] == "Ann"
    assert tournament.players.get(number=30).club == "Moose"
    organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/apply/", {"digest": digest_of(again)}
    )
    assert tournament.players.get(number=30).club == "Elks"


def test_an_update_with_bad_lines_lists_them_all_and_keeps_no_file(
    organiser_client, tournament, entered
):
    response = send(organiser_client, tournament, b"number,name\n30,Ann Smyth\n30,Annie\n32,\n")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported." in page
    assert "Line 3: Number 30 is used twice (also on line 2)." in page
    assert "Line 4: The name is empty." in page
    assert names(tournament) == {30: "Ann", 31: "Bob", 32: "Cy"}
    kept = organiser_client.get(
        f"/t/{tournament.slug}/manage/players/import/preview/", follow=True
    ).content.decode()
    assert "No file is waiting to be applied" in kept


def test_the_preview_reads_in_spanish(organiser_client, tournament, entered):
    send(organiser_client, tournament)
    page = organiser_client.get(
        f"/t/{tournament.slug}/manage/players/import/preview/", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Se añadirá 1 jugador, 1 con cambios, 1 sin cambios." in page
    assert "Aplicar estos cambios" in page and "Cancelar" in page
