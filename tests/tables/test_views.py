"""The organiser's seating pages go through the same services as the API."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from scoring.models import RoundResult
from tables.models import Seat
from tests import factories
from tests.scoring.helpers import play, seat_tables
from tournaments.models import Stage, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(tournament=tournament, order=1, name="Qualifying")


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


def add_players(tournament, count):
    return [factories.PlayerFactory(tournament=tournament, number=n) for n in range(1, count + 1)]


def new_stage(**changes: str) -> dict[str, str]:
    """What the console's Add a stage form sends: a playoff Final, with `changes`."""
    return {
        "name": "Final", "kind": "playoff", "starting_double": "9", "rounds": "2",
        "table_size_min": "2", "table_size_max": "8", "advance_per_table": "1",
        "wildcards": "0", "late_entry_rule": "table_high", **changes,
    }  # fmt: skip


def test_console_needs_login_and_an_organiser(client, tournament, official):
    response = client.get(f"/t/{tournament.slug}/manage/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    client.force_login(official)
    refused = client.get(f"/t/{tournament.slug}/manage/")
    assert refused.status_code == 403
    # The page says why, on the site's own page, not a bare "403 Forbidden".
    page = refused.content.decode()
    assert f"Only an organiser of {tournament.name} may open this page" in page
    assert f"You are signed in as {official.username}" in page
    missing = client.get("/t/no-such-tournament/")
    assert missing.status_code == 404
    assert "There is no page at /t/no-such-tournament/" in missing.content.decode()


def test_the_server_error_page_renders_without_a_request():
    from django.template import loader

    page = loader.get_template("500.html").render()  # as Django's handler renders it: no context
    assert "Something went wrong" in page and "Inténtelo de nuevo" in page


def test_a_form_sent_without_its_csrf_token_is_refused_in_plain_words(db):
    from django.test import Client as CsrfClient

    refused = CsrfClient(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "x", "password": "y"}, HTTP_ACCEPT_LANGUAGE="es"
    )
    assert refused.status_code == 403
    page = refused.content.decode()
    assert "El formulario ha caducado" in page and "CSRF" not in page


def test_console_lists_stages_players_and_downloads(organiser_client, tournament, stage):
    add_players(tournament, 3)
    page = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Qualifying" in page
    assert "3 entered: 0 checked in, 3 registered, 0 withdrawn" in page
    assert f"/api/v1/tournaments/{tournament.slug}/exports/seating.csv" in page


def test_seat_from_the_page_then_see_tables_and_pdf_link(organiser_client, tournament, stage):
    add_players(tournament, 10)
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "4"}, follow=True
    )
    page = response.content.decode()
    assert "Seated 10 players at 3 tables (seed 4)." in page
    assert "Table 3" in page
    assert f"/api/v1/stages/{stage.pk}/cards.pdf" in page
    assert Seat.objects.filter(stage=stage).count() == 10


def test_reseat_from_the_page_warns_and_needs_the_box_ticked(organiser_client, tournament, stage):
    add_players(tournament, 6)
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "1"})
    factories.RoundResultFactory(table=stage.tables.first(), stage=stage)
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "1 round result already entered will be discarded" in page
    refused = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "2"}, follow=True
    )
    assert "already has 1 round result(s)" in refused.content.decode()
    assert RoundResult.objects.filter(stage=stage).exists()
    organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "2", "force": "on"}
    )
    assert not RoundResult.objects.filter(stage=stage).exists()


def test_bad_seed_is_reported_and_nothing_is_seated(organiser_client, tournament, stage):
    add_players(tournament, 6)
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "-3"}, follow=True
    )
    assert "greater than or equal to 0" in response.content.decode()
    assert not stage.tables.exists()


def test_late_player_and_withdrawal_from_the_pages(organiser_client, tournament, stage):
    players = add_players(tournament, 7)
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "1"})
    latecomer = factories.PlayerFactory(tournament=tournament, number=80, name="Late Lucy")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "#80 Late Lucy" in page
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/late/", {"player": latecomer.pk}, follow=True
    )
    assert "#80 Late Lucy sits at table 2, seat 4, from round 1." in response.content.decode()
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/{players[0].pk}/withdraw/", follow=True
    )
    assert f"#1 {players[0].name} is withdrawn." in response.content.decode()
    players[0].refresh_from_db()
    assert players[0].status == "withdrawn"
    again = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/late/", {"player": latecomer.pk}, follow=True
    )
    assert "Choose a player who is not seated" in again.content.decode()


def test_a_seated_playoff_offers_no_late_player(organiser_client, tournament):
    final = factories.StageFactory(
        tournament=tournament, order=1, kind="playoff", status="seated", name="Final"
    )
    factories.TableFactory(stage=final, number=1)
    factories.PlayerFactory(tournament=tournament, number=5, name="Knocked Out")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "Add a late player" not in page
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/late/",
        {"player": tournament.players.get().pk},
        follow=True,
    )
    assert "Final is a playoff: it seats only the players who advanced to it" in (
        response.content.decode()
    )
    assert not Seat.objects.exists()


def test_a_later_playoffs_page_says_how_it_is_seated_and_offers_no_seating(
    organiser_client, tournament, stage
):
    factories.StageFactory(tournament=tournament, order=2, kind="playoff", name="Final")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/2/").content.decode()
    assert "seated with the advancers of the stage before it, when that stage closes" in page
    assert "Seat players" not in page
    first = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "Seat players" in first


def test_a_withdrawn_player_is_reinstated_from_the_console(organiser_client, tournament):
    player = factories.PlayerFactory(
        tournament=tournament, number=7, name="Ann Smith", status="withdrawn"
    )
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    url = f"/t/{tournament.slug}/manage/players/{player.pk}/reinstate/"
    assert url in console and "Reinstate…" in console
    page = organiser_client.get(url).content.decode()
    assert "Reinstate #7 Ann Smith?" in page  # asks first, changes nothing
    player.refresh_from_db()
    assert player.status == "withdrawn"
    done = organiser_client.post(url, follow=True).content.decode()
    assert "#7 Ann Smith is back in." in done
    player.refresh_from_db()
    assert player.status == "registered"  # as before the withdrawal: never checked in


def test_reinstating_a_player_before_seating_leaves_everyone_to_be_seated(
    organiser_client, tournament, stage
):
    players = add_players(tournament, 8)  # imported: registered, nobody checked in yet
    base = f"/t/{tournament.slug}/manage/players/{players[1].pk}"
    organiser_client.post(f"{base}/withdraw/")
    organiser_client.post(f"{base}/reinstate/")
    players[1].refresh_from_db()
    assert players[1].status == "registered"
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "3"})
    assert Seat.objects.filter(stage=stage).count() == 8  # not just the one reinstated
    # One who had checked in comes back checked in.
    checked = players[2]
    organiser_client.post(f"/t/{tournament.slug}/manage/players/{checked.pk}/check-in/")
    organiser_client.post(f"/t/{tournament.slug}/manage/players/{checked.pk}/withdraw/")
    organiser_client.post(f"/t/{tournament.slug}/manage/players/{checked.pk}/reinstate/")
    checked.refresh_from_db()
    assert checked.status == "checked_in"


def test_a_typo_in_a_players_entry_is_corrected_from_the_console_and_shows_on_the_standings(
    organiser_client, tournament, django_capture_on_commit_callbacks
):
    stage = factories.StageFactory(tournament=tournament, order=1, rounds=2, status="seated")
    ((ann, bob),) = seat_tables(stage, [["Ann Smiht", "Bob Ortiz"]])
    play(stage, [ann, bob], 1, [0, 12])
    public = Client()
    before = public.get(f"/t/{tournament.slug}/")
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
    after = public.get(f"/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=before["ETag"])
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


def test_new_tournament_from_a_preset(client, db):
    user = factories.OrganiserAccountFactory()
    client.force_login(user)
    response = client.post(
        "/new/",
        {"name": "Spring Rally", "slug": "spring-rally", "preset": "samboree", "domino_set": "12"},
        follow=True,
    )
    assert "Spring Rally is ready" in response.content.decode()

    tournament = Tournament.objects.get(slug="spring-rally")
    assert [(s.kind, s.rounds) for s in tournament.stages.all()] == [
        ("qualifying", 4),
        ("playoff", 4),
    ]
    bad = client.post(
        "/new/", {"name": "X", "slug": "spring-rally", "preset": "samboree", "domino_set": "9"}
    )
    assert bad.status_code == 400
    assert "deals only with double-12" in bad.content.decode()


def test_day_of_play_settings_from_the_stage_page(organiser_client, tournament, stage):
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/day-of-play/",
        {"starting_double": "9", "rounds": "3"},
        follow=True,
    )
    assert "Qualifying: 3 rounds, engines 9, 8, 7." in response.content.decode()
    bad = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/day-of-play/",
        {"starting_double": "2", "rounds": "5"},
        follow=True,
    )
    assert "at most 3 rounds" in bad.content.decode()
    stage.refresh_from_db()
    assert (stage.starting_double, stage.rounds) == (9, 3)


def test_table_sizes_of_a_stage_not_seated_yet_from_its_page(
    organiser_client, tournament, stage, client, official
):
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url).content.decode()
    assert "Table sizes" in page and 'name="table_size_min"' in page
    done = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "5", "table_size_max": "6"}, follow=True
    )
    assert "Qualifying: tables of 5 to 6 players." in done.content.decode()
    stage.refresh_from_db()
    assert (stage.table_size_min, stage.table_size_max) == (5, 6)
    # Bad sizes are refused with the reason, and change nothing.
    for body, reason in [
        (
            {"table_size_min": "6", "table_size_max": "5"},
            "The largest table size cannot be smaller than the smallest.",
        ),
        ({"table_size_min": "", "table_size_max": "5"}, "This field is required."),
        ({"table_size_min": "2", "table_size_max": "40"}, "less than or equal to 19"),
    ]:
        refused = organiser_client.post(f"{url}table-sizes/", body, follow=True)
        assert reason in refused.content.decode(), body
    stage.refresh_from_db()
    assert (stage.table_size_min, stage.table_size_max) == (5, 6)
    # Once seated, the sizes are fixed and the page no longer offers them.
    add_players(tournament, 10)
    organiser_client.post(f"{url}seat/", {"seed": "1"})
    stage.refresh_from_db()
    assert stage.status == "seated"
    assert 'name="table_size_min"' not in organiser_client.get(url).content.decode()
    refused = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "4", "table_size_max": "6"}, follow=True
    )
    assert "is seated: only its name" in refused.content.decode()
    # Officials do not set them.
    client.force_login(official)
    assert client.post(f"{url}table-sizes/", {"table_size_min": "4"}).status_code == 403


def test_a_stage_is_added_from_the_console_like_the_last_playoff_level(
    organiser_client, tournament, stage
):
    factories.StageFactory(
        tournament=tournament, order=2, name="Semi", kind="playoff", rounds=3,
        starting_double=9, table_size_min=4, table_size_max=6,
    )  # fmt: skip
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    # The form starts from the last playoff level's settings, with no name.
    assert 'name="starting_double" value="9"' in console
    assert 'name="table_size_max" value="6"' in console
    assert 'name="name" maxlength="120" required id="stage-name"' in console
    assert console.count('id="stage-name"') == 1 and console.count('id="id_name"') == 1
    body = new_stage(late_entry_rule="zero")
    done = organiser_client.post(f"/t/{tournament.slug}/manage/stages/add/", body, follow=True)
    assert "Added Final as stage 3." in done.content.decode()
    assert done.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/stages/3/"
    final = Stage.objects.get(tournament=tournament, order=3)
    assert (final.name, final.kind, final.status) == ("Final", "playoff", "pending")
    assert (final.starting_double, final.rounds, final.table_size_min) == (9, 2, 2)
    assert (final.table_size_max, final.late_entry_rule) == (8, "zero")
    assert not final.requires_second_person and not final.carry_forward


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [
        ({"name": ""}, "name", "This field is required."),
        ({"starting_double": "13"}, "starting_double", "A double-12 set has no double-13"),
        ({"rounds": "12"}, "rounds", "at most 10 rounds can be played"),
        ({"table_size_min": "6", "table_size_max": "5"}, "table_size_max", "cannot be smaller"),
        ({"table_size_max": "12"}, "table_size_max", "deals for at most 10 players"),
        ({"advance_per_table": "0"}, "advance_per_table", "greater than or equal to 1"),
        ({"kind": "knockout"}, "kind", "Select a valid choice."),
        ({"wildcards": "-1"}, "wildcards", "greater than or equal to 0"),
    ],
)
def test_a_bad_new_stage_is_refused_next_to_its_field_and_adds_nothing(
    organiser_client, tournament, stage, changes, field, reason
):
    body = new_stage(**changes)
    refused = organiser_client.post(f"/t/{tournament.slug}/manage/stages/add/", body)
    assert refused.status_code == 400
    page = refused.content.decode()
    error = page.index(f'id="stage-{field}_error"')
    assert reason in page[error : page.index("</div>", error)]
    # The field names its error (and help) for screen readers, and both are on the page.
    widget = page.split(f'id="stage-{field}"', 1)[0].rsplit("<", 1)[1]
    described = widget.split('aria-describedby="', 1)[1].split('"', 1)[0].split()
    assert f"stage-{field}_error" in described and 'aria-invalid="true"' in widget
    assert all(f'id="{ref}"' in page for ref in described)
    assert '<details id="add-stage" open>' in page  # what was typed is kept, shown open
    if body["name"]:
        assert 'value="Final"' in page
    assert list(tournament.stages.values_list("order", flat=True)) == [1]


def test_only_organisers_add_stages(client, tournament, official):
    client.force_login(official)
    response = client.post(f"/t/{tournament.slug}/manage/stages/add/", {"name": "Final"})
    assert response.status_code == 403
    assert not tournament.stages.exists()


def test_the_last_stage_is_removed_from_its_page_until_it_is_seated(
    organiser_client, tournament, stage, official
):
    final = factories.StageFactory(tournament=tournament, order=2, name="Final", kind="playoff")
    manage = f"/t/{tournament.slug}/manage/stages"
    assert "Remove this stage" not in organiser_client.get(f"{manage}/1/").content.decode()
    assert "Remove this stage" in organiser_client.get(f"{manage}/2/").content.decode()
    # Each refusal says why and removes nothing.
    unticked = organiser_client.post(f"{manage}/2/remove/", follow=True).content.decode()
    assert "Tick the box to remove Final." in unticked
    not_last = organiser_client.post(f"{manage}/1/remove/", {"confirm": "on"}, follow=True)
    assert "Only the last stage can be removed: remove Final first." in not_last.content.decode()
    official_client = Client()
    official_client.force_login(official)
    assert official_client.post(f"{manage}/2/remove/", {"confirm": "on"}).status_code == 403
    assert list(tournament.stages.values_list("name", flat=True)) == ["Qualifying", "Final"]
    done = organiser_client.post(f"{manage}/2/remove/", {"confirm": "on"}, follow=True)
    assert "Removed Final." in done.content.decode()
    assert done.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/"
    assert not Stage.objects.filter(pk=final.pk).exists()
    # Seated, the last stage stays.
    add_players(tournament, 8)
    organiser_client.post(f"{manage}/1/seat/", {"seed": "1"})
    assert "Remove this stage" not in organiser_client.get(f"{manage}/1/").content.decode()
    refused = organiser_client.post(f"{manage}/1/remove/", {"confirm": "on"}, follow=True)
    assert "Qualifying has been seated: only a stage not seated yet" in refused.content.decode()
    assert tournament.stages.count() == 1


def test_a_new_level_after_qualifying_carries_nothing_of_the_qualifying_rules(
    organiser_client, tournament
):
    # The first playoff level is made like the qualifying stage's deal only: no wildcards, no
    # totals carried, one per table, the rule for late entries as by default.
    factories.StageFactory(
        tournament=tournament, order=1, carry_forward=True, wildcards=3, advance_per_table=2,
        late_entry_rule="zero", starting_double=9, rounds=3, table_size_min=4, table_size_max=6,
    )  # fmt: skip
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    form = console.split('id="add-stage"', 1)[1].split("</form>", 1)[0]
    assert '<option value="playoff" selected>' in form
    offered = {"starting_double": 9, "rounds": 3, "table_size_min": 4, "table_size_max": 6,
               "advance_per_table": 1, "wildcards": 0}  # fmt: skip
    for name, value in offered.items():
        assert f'name="{name}" value="{value}"' in form, name
    assert '<option value="table_high" selected>' in form
    carry = form.split('name="carry_forward"', 1)[1].split(">", 1)[0]
    assert "checked" not in carry


def test_the_first_stage_of_a_tournament_is_offered_as_a_qualifying_stage_the_preset_deals(
    organiser_client, tournament
):
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    form = console.split('id="add-stage"', 1)[1].split("</form>", 1)[0]
    assert '<option value="qualifying" selected>' in form
    # The Samboree preset deals for 2 to 10 players with a double-12 set.
    assert 'name="table_size_min" value="2"' in form
    assert 'name="table_size_max" value="10"' in form
    assert 'name="starting_double" value="12"' in form


def test_no_stage_is_added_once_the_placings_are_decided(
    organiser_client, as_organiser, tournament
):
    final = factories.StageFactory(tournament=tournament, order=1, name="Final", kind="playoff")
    seat_tables(final, [["A", "B", "C"]])
    Stage.objects.filter(pk=final.pk).update(status="closed")
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Final decided the placings: no stage follows." in console
    assert 'id="add-stage"' not in console
    body = new_stage(name="Encore")
    reason = "Final has decided the placings: the tournament is over, so no stage follows."
    add = f"/t/{tournament.slug}/manage/stages/add/"
    api = f"/api/v1/tournaments/{tournament.slug}/stages/"
    # The state is said first, whatever else is wrong with the stage (from a stale tab).
    for sent in (body, new_stage(name="", table_size_max="40")):
        refused = organiser_client.post(add, sent, follow=True)
        assert reason in refused.content.decode()
        answer = as_organiser.post(api, sent)
        assert answer.status_code == 409 and answer.json()["detail"] == reason
    assert list(tournament.stages.values_list("name", flat=True)) == ["Final"]


def test_a_refused_stage_setting_is_shown_beside_its_field_with_what_was_typed(
    organiser_client, tournament
):
    factories.StageFactory(tournament=tournament, order=1, advance_per_table=2)
    url = f"/t/{tournament.slug}/manage/stages/1/"
    refused = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "6", "table_size_max": "5"}
    )
    assert refused.status_code == 400
    page = refused.content.decode()
    sizes = page.split('id="sizes-h"', 1)[1].split("</form>", 1)[0]
    error = sizes.split('id="id_table_size_max_error"', 1)[1].split("</div>", 1)[0]
    assert "The largest table size cannot be smaller than the smallest." in error
    assert 'name="table_size_min" value="6"' in sizes  # as typed, to be corrected
    # A check across settings the form does not show is said above its fields.
    refused = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "2", "table_size_max": "3"}
    )
    sizes = refused.content.decode().split('id="sizes-h"', 1)[1].split("</form>", 1)[0]
    above = sizes.split('name="table_size_min"', 1)[0]
    assert "With tables of 2, at most 1 player per table can advance." in above
    stage = tournament.stages.get()
    assert (stage.table_size_min, stage.table_size_max) == (3, 4)  # unchanged


def test_check_in_everyone_still_registered_asks_first_then_records_each(
    organiser_client, organiser, tournament
):
    for number, status in ((1, "registered"), (2, "registered"), (3, "checked_in")):
        factories.PlayerFactory(tournament=tournament, number=number, status=status)
    factories.PlayerFactory(tournament=tournament, number=4, status="withdrawn")
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    url = f"/t/{tournament.slug}/manage/players/check-in-everyone/"
    assert f'href="{url}"' in console and "Check in the 2 registered…" in console
    asked = organiser_client.get(url).content.decode()
    assert "Check in the 2 players still registered?" in asked
    assert tournament.players.filter(status="registered").count() == 2  # asking changed nothing
    done = organiser_client.post(url, follow=True).content.decode()
    assert "2 players are checked in." in done
    statuses = dict(tournament.players.values_list("number", "status"))
    assert statuses == {1: "checked_in", 2: "checked_in", 3: "checked_in", 4: "withdrawn"}
    entry = tournament.players.get(number=1).history.first()
    assert (entry.history_change_reason, entry.history_user) == ("checked_in", organiser)
    again = organiser_client.get(url).content.decode()
    assert "Nobody is still registered" in again


def test_an_official_may_not_close_a_stage_or_check_in_everyone(client, tournament, official):
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    factories.PlayerFactory(tournament=tournament, number=1, status="registered")
    client.force_login(official)
    for path in (
        f"/t/{tournament.slug}/manage/stages/1/close/",
        f"/t/{tournament.slug}/manage/players/check-in-everyone/",
    ):
        assert client.get(path).status_code == 403
        assert client.post(path).status_code == 403
    stage.refresh_from_db()
    assert stage.status == "seated"
    assert tournament.players.get().status == "registered"
    client.logout()
    asked = client.get(f"/t/{tournament.slug}/manage/stages/1/close/")
    assert asked.status_code == 302 and "/accounts/login/" in asked["Location"]
