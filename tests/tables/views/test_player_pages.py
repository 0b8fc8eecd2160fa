"""The organiser's player pages: correcting an entry, adding, importing, withdrawing, checking
in everyone."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests import factories
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.django_db


def test_a_typo_in_a_players_entry_is_corrected_from_the_console_and_shows_on_the_standings(
    organiser_client, tournament, django_capture_on_commit_callbacks
):
    stage = factories.StageFactory(tournament=tournament, order=1, rounds=2, status="seated")
    ((ann, bob),) = seat_tables(stage, [["Ann Smiht", "Bob Ortiz"]])
    play(stage, [ann, bob], 1, [0, 12])
    public = Client()
    before = public.get(f"/en/t/{tournament.slug}/")
    assert "Ann Smiht" in before.content.decode()
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    url = f"/t/{tournament.slug}/manage/players/{ann.pk}/edit/"
    assert url in console
    form = organiser_client.get(url).content.decode()
    assert 'value="Ann Smiht"' in form
    with django_capture_on_commit_callbacks(execute=True):  # the commit sends the rebuild
        saved = organiser_client.post(
            url,
            {"number": ann.number, "name": " Ann Smith ", "household": "", "club": "Lakeside"},
            follow=True,
        )
    assert f"Saved #{ann.number} Ann Smith." in saved.content.decode()
    ann.refresh_from_db()
    assert (ann.name, ann.club, ann.status) == ("Ann Smith", "Lakeside", "registered")
    # The public page does not stay as it was, not even for a phone holding its ETag.
    after = public.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert "Ann Smith" in after.content.decode() and "Smiht" not in after.content.decode()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"number": "2"}, "Number 2 is already taken in"),
        ({"name": ""}, "This field is required."),
        ({"number": "0"}, "Ensure this value is greater than or equal to 1."),
        ({"name": "x" * 121}, "Ensure this value has at most 120 characters"),
    ],
)
def test_a_bad_correction_is_refused_next_to_the_field_and_changes_nothing(
    organiser_client, tournament, change, message
):
    ann = factories.PlayerFactory(tournament=tournament, number=1, name="Ann Smith")
    factories.PlayerFactory(tournament=tournament, number=2, name="Bob Ortiz")
    url = f"/t/{tournament.slug}/manage/players/{ann.pk}/edit/"
    body = {"number": "1", "name": "Ann Smith", "household": "", "club": "", **change}
    refused = organiser_client.post(url, body)
    assert refused.status_code == 400
    page = refused.content.decode()
    assert message in page and "Edit #1 Ann Smith" in page  # still named as saved
    ann.refresh_from_db()
    assert (ann.number, ann.name) == (1, "Ann Smith")


def test_only_the_tournaments_organisers_edit_its_players(client, tournament, official):
    ann = factories.PlayerFactory(tournament=tournament, number=1, name="Ann Smith")
    url = f"/t/{tournament.slug}/manage/players/{ann.pk}/edit/"
    body = {"number": "1", "name": "Someone Else"}
    assert client.post(url, body).status_code == 302  # to the sign-in page
    client.force_login(official)
    assert client.post(url, body).status_code == 403
    ann.refresh_from_db()
    assert ann.name == "Ann Smith"


def test_withdraw_asks_for_confirmation_first(organiser_client, tournament):
    player = factories.PlayerFactory(tournament=tournament, name="Ann Smith")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/players/{player.pk}/withdraw/")
    assert "Withdraw #" in page.content.decode() and "Ann Smith?" in page.content.decode()
    player.refresh_from_db()
    assert player.status == "registered"


def test_add_player_from_the_console_and_its_errors(organiser_client, tournament):
    url = f"/t/{tournament.slug}/manage/players/add/"
    added = organiser_client.post(url, {"number": "5", "name": "Ann Smith"}, follow=True)
    assert "Added #5 Ann Smith." in added.content.decode()
    junior = organiser_client.post(url, {"number": "6", "name": "John Smith Jr."}, follow=True)
    assert "Added #6 John Smith Jr." in junior.content.decode()
    assert "Jr.." not in junior.content.decode()
    tournament.players.filter(number=6).delete()
    duplicate = organiser_client.post(url, {"number": "5", "name": "Another"})
    assert duplicate.status_code == 400
    assert "Number 5 is already taken" in duplicate.content.decode()
    # The form is far down the console: its wrong field takes the focus, and so comes into view.
    assert re.search(r'<input[^>]*name="number"[^>]*autofocus', duplicate.content.decode())
    assert duplicate.content.decode().count("autofocus") == 1
    huge = organiser_client.post(url, {"number": "99999999999", "name": "Huge"})
    assert huge.status_code == 400
    assert "less than or equal to 2000000000" in huge.content.decode()
    assert tournament.players.count() == 1
    # The browser now shows the form's address: opening it again goes back to the console.
    reopened = organiser_client.get(url)
    assert reopened.status_code == 302 and reopened["Location"] == f"/t/{tournament.slug}/manage/"
    stage_action = f"/t/{tournament.slug}/manage/stages/1/table-sizes/"
    assert (
        organiser_client.get(stage_action)["Location"] == f"/t/{tournament.slug}/manage/stages/1/"
    )


def test_import_from_the_console_shows_every_bad_line(organiser_client, tournament):
    bad = SimpleUploadedFile("p.csv", b"number,name\n1,Ann\n1,Bob\n3,\n")
    response = organiser_client.post(f"/t/{tournament.slug}/manage/players/import/", {"file": bad})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported." in page
    assert "Line 3: Number 1 is used twice (also on line 2)." in page
    assert "Line 4: The name is empty." in page
    assert not tournament.players.exists()
    good = SimpleUploadedFile("p.csv", b"number,name\n1,Ann\n2,Bob\n")
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/", {"file": good}, follow=True
    )
    assert "Imported 2 players." in response.content.decode()
    extra = SimpleUploadedFile("p.csv", b"number,name,email\n3,Cy,cy@example.com\n")
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/", {"file": extra}, follow=True
    )
    page = response.content.decode()
    assert "Imported 1 player." in page
    assert "Not imported, as Roundhouse keeps no such column: &#x27;email&#x27;." in page


def test_an_import_says_which_names_two_players_share(organiser_client, tournament):
    """Two people may share a name, so both are imported; the organiser is told, in case one
    person was registered twice (in the file itself, or already in the tournament)."""
    first = SimpleUploadedFile("p.csv", "number,name\n1,José Núñez\n2,Ann\n".encode())
    organiser_client.post(f"/t/{tournament.slug}/manage/players/import/", {"file": first})
    again = SimpleUploadedFile(
        "p.csv", "number,name\n13,josé núñez\n14,Bob\n15,Cy\n16,Cy\n".encode()
    )
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/import/", {"file": again}, follow=True
    )
    page = response.content.decode()
    assert "Imported 4 players." in page
    assert (
        "José Núñez is the name of 2 players (#1, #13): if they are one person, remove the "
        "extra one." in page
    )
    assert "Cy is the name of 2 players (#15, #16)" in page
    assert "Ann is the name" not in page and "Bob is the name" not in page
    assert tournament.players.count() == 6


def test_check_in_everyone_still_registered_asks_first_then_records_each(
    organiser_client, organiser, tournament
):
    for number, status in ((1, "registered"), (2, "registered"), (3, "checked_in")):
        factories.PlayerFactory(tournament=tournament, number=number, status=status)
    factories.PlayerFactory(tournament=tournament, number=4, status="withdrawn")
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    url = f"/t/{tournament.slug}/manage/players/check-in-everyone/"
    assert f'href="{url}"' in console and "Check in the 2 not checked in…" in console
    asked = organiser_client.get(url).content.decode()
    assert "Check in the 2 players not checked in?" in asked
    assert tournament.players.filter(status="registered").count() == 2  # asking changed nothing
    done = organiser_client.post(url, follow=True).content.decode()
    assert "2 players are checked in." in done
    statuses = dict(tournament.players.values_list("number", "status"))
    assert statuses == {1: "checked_in", 2: "checked_in", 3: "checked_in", 4: "withdrawn"}
    entry = tournament.players.get(number=1).history.first()
    assert (entry.history_change_reason, entry.history_user) == ("checked_in", organiser)
    again = organiser_client.get(url).content.decode()
    assert "Nobody is left to check in" in again
