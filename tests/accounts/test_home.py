"""The signed-in home ("My tournaments") and the navigation bar, for each role."""

import re

import pytest

from tests import factories
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.django_db


def main_of(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


def staff_nav(html: str) -> str:
    found = re.search(r'<nav class="staff-nav".*?</nav>', html, re.S)
    return found[0] if found else ""


@pytest.fixture
def in_play(tournament):
    stage = factories.StageFactory(tournament=tournament, name="Qualifying", status="seated")
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 4, 8])
    play(stage, players, 2, [3, 0, 8], status="submitted")
    return tournament


def test_an_organiser_lands_on_my_tournaments_with_its_links(client, in_play, organiser):
    other = factories.TournamentFactory(name="Riverside Rally")
    client.force_login(organiser)
    page = client.get("/").content.decode()
    mine = main_of(page).split("Other tournaments")[0]
    slug = in_play.slug
    assert "<h1>My tournaments</h1>" in mine and in_play.name in mine
    assert "In play: Qualifying, round 2" in mine and "You are an organiser" in mine
    for link in (f"/t/{slug}/manage/", f"/t/{slug}/enter/", f"/en/t/{slug}/"):
        assert f'href="{link}"' in mine
    assert 'href="/new/"' in mine  # organisers may create tournaments
    assert other.name not in mine and other.name in main_of(page)


def test_an_official_sees_score_entry_but_not_manage(client, in_play, official):
    client.force_login(official)
    mine = main_of(client.get("/").content.decode())
    assert "You are an official" in mine
    assert f'href="/t/{in_play.slug}/enter/"' in mine
    assert f'href="/t/{in_play.slug}/manage/"' not in mine
    assert 'href="/new/"' not in mine


def test_signing_in_lands_on_my_tournaments(client, tournament):
    user = factories.StaffFactory(tournament=tournament, role="official").user
    user.set_password("a-long-test-password")
    user.save()
    response = client.post(
        "/accounts/login/", {"login": user.username, "password": "a-long-test-password"}
    )
    assert response["Location"] == "/"
    assert "<h1>My tournaments</h1>" in client.get("/").content.decode()


def test_a_tournament_not_started_or_finished_says_so(client, tournament, organiser):
    client.force_login(organiser)
    assert "Not started" in main_of(client.get("/").content.decode())


@pytest.mark.parametrize(
    ("role", "links"),
    [
        ("organiser", {"My tournaments", "Console", "Score entry", "Public page"}),
        ("official", {"My tournaments", "Score entry", "Public page"}),
        (None, {"My tournaments"}),
    ],
)
def test_the_navigation_bar_shows_a_signed_in_persons_pages(client, tournament, role, links):
    user = factories.UserFactory()
    if role:
        factories.StaffFactory(tournament=tournament, user=user, role=role)
    client.force_login(user)
    nav = staff_nav(client.get(f"/en/t/{tournament.slug}/").content.decode())
    assert set(re.findall(r">([^<]+)</a>", nav)) == links


def test_anonymous_readers_get_no_staff_navigation(client, tournament):
    page = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert staff_nav(page) == ""
    assert 'href="/accounts/login/?next=' in page


def test_the_home_page_speaks_spanish(client, in_play, official):
    client.force_login(official)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "<h1>Mis torneos</h1>" in page
    assert "En juego: Qualifying, ronda 2" in page
    assert "Anotar puntos" in page


def test_my_tournaments_lists_what_is_in_play_first(client, in_play, organiser):
    """An organiser of many events finds the one in play at the top, then those to come, then
    the finished ones, whatever order they were created in."""
    coming = factories.TournamentFactory(name="Autumn Social")
    over = factories.TournamentFactory(name="Summer Samboree")
    factories.StageFactory(tournament=over, name="Final", status="closed", decides_placings=True)
    for tournament in (coming, over):  # created after the one in play: newer, listed first
        factories.StaffFactory(tournament=tournament, user=organiser, role="organiser")
    client.force_login(organiser)
    mine = main_of(client.get("/").content.decode()).split("Other tournaments")[0]
    assert "Finished" in mine[mine.index("Summer Samboree") :]
    order = sorted((mine.index(t.name), t.name) for t in (in_play, coming, over))
    assert [name for _, name in order] == [in_play.name, "Autumn Social", "Summer Samboree"]


@pytest.mark.parametrize("path", ["manage/details/", "manage/staff/"])
def test_an_organisers_page_names_the_console_once(client, tournament, organiser, path):
    """The page's own link beside the bar's: "Console" twice in the phone's menu."""
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/{path}").content.decode()
    assert page.count(">Console</a>") == 1
    assert f'href="/t/{tournament.slug}/manage/"' in staff_nav(page)


@pytest.mark.parametrize("role", ["organiser", "official"])
def test_the_progress_board_names_each_of_the_bars_pages_once(client, in_play, role, request):
    """Its own Console (or, for an official, Score entry) link beside the bar's."""
    client.force_login(request.getfixturevalue(role))
    stage = in_play.stages.get()
    answer = client.get(f"/t/{in_play.slug}/manage/stages/{stage.order}/progress/")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert page.count(">Score entry</a>") == 1
    assert page.count(">Console</a>") == (1 if role == "organiser" else 0)
