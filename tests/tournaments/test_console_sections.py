"""The organiser's console arranged for the day: a section per task, each at its own address
with the tab bar marking it; check-in at the desk by a badge number or a name, answered in place
(HTMX) or, without script, at the top of the console; refusals that change nothing; destructive
actions after the routine ones, behind a second step."""

import html as markup
import re

import pytest

from tests import factories
from tournaments.models import Player, PlayerChange

SECTIONS = {  # a tab's short name, one line on a phone at 200% text; the section's heading
    "": ("Players", "Players and check-in"),
    "entries/": ("Entries", "Entries"),
    "fees/": ("Fees", "Fees"),
    "divisions/": ("Divisions", "Divisions"),
    "stages/": ("Stages", "Stages and seating"),
    "progress/": ("Progress", "Progress"),
    "results/": ("Results", "Results and corrections"),
    "prizes/": ("Prizes", "Prizes"),
    "messages/": ("Messages", "Write to the players"),
    "downloads/": ("Downloads", "Downloads"),
}
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def desk(client, organiser, tournament):
    """The organiser's client, and three players: two Anns and a Bob, all registered."""
    client.force_login(organiser)
    for number, name in [(7, "Ann Smith"), (8, "Ann Lee"), (12, "Bob Jones")]:
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    return client


def status_of(tournament, number: int) -> str:
    return tournament.players.get(number=number).status


def checked_in_entries(tournament, number: int | None = None) -> int:
    """The entries of the players' history saying they were checked in."""
    entries = Player.history.filter(
        tournament=tournament, history_change_reason=PlayerChange.CHECKED_IN
    )
    return entries.filter(number=number).count() if number else entries.count()


def check_in(desk, tournament, typed: str, **headers):
    return desk.post(f"/t/{tournament.slug}/manage/players/check-in/", {"find": typed}, **headers)


@pytest.mark.django_db
def test_each_section_has_its_address_and_the_tab_bar_marks_it(desk, tournament):
    factories.StageFactory(tournament=tournament, order=1, name="Qualifying")
    for path, (tab, heading) in SECTIONS.items():
        page = desk.get(f"/t/{tournament.slug}/manage/{path}").content.decode()
        tabs, section = page.split('class="console-tabs"', 1)[1].split("</nav>", 1)
        current = re.findall(r'aria-current="page">([^<]+)</a>', tabs)
        assert current == [tab], path
        assert f">{heading}</h2>" in section, path
        # The tabs are in the order of the day's work.
        assert re.findall(r">([^<]+)</a>", tabs) == [tab for tab, _ in SECTIONS.values()]
    players = desk.get(f"/t/{tournament.slug}/manage/").content.decode()
    stages = desk.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    files = desk.get(f"/t/{tournament.slug}/manage/downloads/").content.decode()
    files = files.split('class="console-tabs"', 1)[1].split("</nav>", 1)[1]  # below the tabs
    # Each section holds its own task, not the others'.
    assert "Ann Smith" in players and 'id="add-stage"' not in players
    assert 'id="add-stage"' in stages and "Ann Smith" not in stages
    assert "players.csv" in files and "Ann Smith" not in files and 'id="add-stage"' not in files
    # Files only among the downloads; the pages to go to are elsewhere.
    assert "Score entry" not in files and "Organisers and officials" not in files


@pytest.mark.django_db
def test_a_section_is_only_for_the_tournaments_organisers(client, official, tournament):
    client.force_login(official)
    for path in SECTIONS:
        assert client.get(f"/t/{tournament.slug}/manage/{path}").status_code == 403, path


@pytest.mark.django_db
def test_check_in_by_badge_number_answers_in_place_with_the_players_row(desk, tournament):
    answer = check_in(desk, tournament, "#12", **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "<!doctype" not in html.lower()  # a fragment, not the page again
    assert "#12 Bob Jones is checked in." in html
    # The player's row, swapped in out of band, now says so; the counts above the table too.
    row = html.split('<tr id="player-', 1)[1].split("</tr>", 1)[0]
    assert 'hx-swap-oob="true"' in row and "Checked in" in row and "Bob Jones" in row
    assert "3 entered: 1 checked in, 2 not checked in, 0 withdrawn." in html
    assert status_of(tournament, 12) == Player.Status.CHECKED_IN
    assert checked_in_entries(tournament, 12) == 1


@pytest.mark.django_db
def test_check_in_by_a_name_that_matches_one_player(desk, tournament):
    html = check_in(desk, tournament, "  bob  ", **HTMX).content.decode()
    assert "#12 Bob Jones is checked in." in html
    assert status_of(tournament, 12) == Player.Status.CHECKED_IN
    # A name typed in full is that player, though another name contains it.
    factories.PlayerFactory(tournament=tournament, number=20, name="Bob")
    html = check_in(desk, tournament, "BOB", **HTMX).content.decode()
    assert "#20 Bob is checked in." in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("typed", "who"),
    [
        ("Garcia", "#30 José García"),
        ("NUNEZ", "#31 Iñaki Núñez"),
        ("lukasz", "#32 Łukasz Wróbel"),  # Ł has no accent to strip: its own letter, folded
        ("wrobel lukasz", "#32 Łukasz Wróbel"),  # words in any order, as the public search
    ],
)
def test_check_in_by_name_ignores_case_and_accents(desk, tournament, typed, who):
    factories.PlayerFactory(tournament=tournament, number=30, name="José García")
    factories.PlayerFactory(tournament=tournament, number=31, name="Iñaki Núñez")
    factories.PlayerFactory(tournament=tournament, number=32, name="Łukasz Wróbel")
    html = check_in(desk, tournament, typed, **HTMX).content.decode()
    assert f"{who} is checked in." in html
    number = int(who[1:3])
    assert status_of(tournament, number) == Player.Status.CHECKED_IN


@pytest.mark.django_db
def test_without_script_the_console_comes_back_with_the_answer_at_its_top(desk, tournament):
    done = check_in(desk, tournament, "12")
    assert done.status_code == 302 and done["Location"] == f"/t/{tournament.slug}/manage/"
    page = desk.get(done["Location"]).content.decode()
    top = page.split('class="console-tabs"', 1)[1].split('id="players"', 1)[0]
    assert "#12 Bob Jones is checked in." in top
    refused = check_in(desk, tournament, "99", follow=True).content.decode()
    assert "No player has badge number 99." in refused.split('id="players"', 1)[0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("99", "No player has badge number 99."),
        ("#99", "No player has badge number 99."),
        ("Zed", "No player's name contains “Zed”."),
        ("   ", "Type a name or a badge number."),
        (
            "ann",
            "2 players match “ann”: #7 Ann Smith, #8 Ann Lee. Choose one, or type the "
            "badge number.",
        ),
    ],
)
def test_what_names_no_one_player_is_refused_and_checks_nobody_in(desk, tournament, typed, message):
    html = markup.unescape(check_in(desk, tournament, typed, **HTMX).content.decode())
    assert message in html and "Error:" in html
    assert not tournament.players.filter(status=Player.Status.CHECKED_IN).exists()
    assert checked_in_entries(tournament) == 0


@pytest.mark.django_db
def test_an_ambiguous_name_lists_the_matches_each_with_its_check_in(desk, tournament):
    html = check_in(desk, tournament, "Ann", **HTMX).content.decode()
    matches = html.split('class="matches"', 1)[1].split("</ul>", 1)[0]
    assert matches.count('name="find"') == 2
    assert 'value="#7"' in matches and 'value="#8"' in matches
    html = check_in(desk, tournament, "#8", **HTMX).content.decode()
    assert "#8 Ann Lee is checked in." in html and status_of(tournament, 7) == "registered"


@pytest.mark.django_db
def test_checked_in_already_or_withdrawn_is_said_and_changes_nothing(desk, tournament):
    check_in(desk, tournament, "12")
    again = check_in(desk, tournament, "12", **HTMX).content.decode()
    assert "#12 Bob Jones is already checked in." in again and "Error:" in again
    assert checked_in_entries(tournament, 12) == 1
    tournament.players.filter(number=7).update(status=Player.Status.WITHDRAWN)
    withdrawn = check_in(desk, tournament, "7", **HTMX).content.decode()
    assert "Ann Smith has withdrawn and cannot be checked in." in withdrawn
    assert status_of(tournament, 7) == Player.Status.WITHDRAWN


@pytest.mark.django_db
def test_a_rows_check_in_button_answers_in_its_row(desk, tournament):
    bob = tournament.players.get(number=12)
    url = f"/t/{tournament.slug}/manage/players/{bob.pk}/check-in/"
    page = desk.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert f'hx-post="{url}"' in page and f'hx-target="#player-{bob.pk}"' in page
    html = desk.post(url, **HTMX).content.decode()
    assert html.lstrip().startswith(f'<tr id="player-{bob.pk}"')
    assert "#12 Bob Jones is checked in." in html and "Checked in" in html
    assert status_of(tournament, 12) == Player.Status.CHECKED_IN
    # Without script, as before: back to the console, said at its top.
    ann = tournament.players.get(number=7)
    done = desk.post(f"/t/{tournament.slug}/manage/players/{ann.pk}/check-in/")
    assert done["Location"] == f"/t/{tournament.slug}/manage/"


@pytest.mark.django_db
def test_bulk_check_in_is_kept(desk, tournament):
    page = desk.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Check in the 3 not checked in…" in page


@pytest.mark.django_db
def test_reseat_and_remove_come_after_the_routine_panels_and_ask_twice(desk, tournament):
    stage = factories.StageFactory(tournament=tournament, order=1, name="Qualifying")
    for number in range(1, 6):
        factories.PlayerFactory(tournament=tournament, number=100 + number)
    page = desk.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    # Pending and last: removing it is the last panel, and a ticked box is asked for.
    assert page.index('id="remove-h"') > page.index('id="tables-h"')
    kept = desk.post(f"/t/{tournament.slug}/manage/stages/1/remove/", {})
    assert kept.status_code == 302 and tournament.stages.filter(pk=stage.pk).exists()
    desk.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "3"})
    page = desk.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    # Seated: the routine panel (a late player) first; reseating behind a closed <details>.
    assert page.index('id="late-h"') < page.index('id="tables-h"') < page.index('id="reseat"')
    reseat = (
        page.split('id="reseat"', 1)[0].rsplit("<details", 1)[1]
        + page.split('id="reseat"', 1)[1].split("</details>", 1)[0]
    )
    assert " open" not in reseat.split(">", 1)[0] and "Reseat players" in reseat
    assert "Shuffle number" in reseat and "Seed" not in page
    assert "shuffle number 3" in page


@pytest.mark.django_db
def test_the_api_documentation_link_is_for_the_signed_in(client, organiser, tournament):
    public = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert "API documentation" not in public
    client.force_login(organiser)
    assert "API documentation" in client.get(f"/t/{tournament.slug}/manage/").content.decode()


@pytest.mark.django_db
def test_adding_players_is_open_on_an_event_without_any_and_folded_once_there_are(
    client, organiser, tournament
):
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert '<details id="add-players" open>' in page  # the first thing to do: not folded away
    factories.PlayerFactory(tournament=tournament, number=1)
    page = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert '<details id="add-players">' in page


@pytest.mark.django_db
def test_a_player_checked_in_while_a_stage_is_played_is_pointed_to_its_late_player_form(
    desk, tournament
):
    stage = factories.StageFactory(tournament=tournament, status="seated", kind="qualifying")
    table = factories.TableFactory(stage=stage, number=1)
    for number in (7, 8):
        factories.SeatFactory(
            stage=stage, table=table, player=tournament.players.get(number=number)
        )
    html = markup.unescape(check_in(desk, tournament, "#12", **HTMX).content.decode())
    assert "#12 Bob Jones is checked in." in html
    link = f'href="/t/{tournament.slug}/manage/stages/{stage.order}/#late-h"'
    assert link in html and "Seat #12 Bob Jones as a late player in Qualifying" in html
    # One who has a seat already is told nothing more; without script, the console says it.
    Player.objects.filter(number=12, tournament=tournament).update(status="registered")
    done = check_in(desk, tournament, "#7", follow=True).content.decode()
    assert "#7 Ann Smith is checked in." in done and "as a late player" not in done
    done = check_in(desk, tournament, "#12", follow=True).content.decode()
    assert "Qualifying is being played: seat #12 Bob Jones as a late player on its page." in (
        markup.unescape(done)
    )
