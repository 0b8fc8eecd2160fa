"""A right-to-left name (Hebrew, Arabic) sits in its own <bdi> wherever a page shows it, so it does
not take the punctuation and numbers beside it into its direction: "#12 כהן (Tel Aviv)" reads in
that order. Each page is rendered with Hebrew names and parsed: every text node holding one of
them must be inside a <bdi> (or an element with dir="auto")."""

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from tests import factories
from tests.scoring.helpers import play_stage, seat_tables
from tournaments.services.divisions import create_division

pytestmark = pytest.mark.django_db(transaction=True)

PLAYER = "כהן"
PLAYER_CLUB = "מכבי"  # Player.club, the club a player says they come from
TOURNAMENT = "אליפות חנוכה"
CLUB = "מועדון רכבת"
MEMBER = "לוי"
DIVISION = "ותיקים"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
NOT_SHOWN = {"title", "script", "style", "template"}


class Names(HTMLParser):
    """The text nodes holding any of `names`, each with whether it is isolated (inside <bdi> or
    an element with dir="auto") or shown as text at all (not in <title>, <script>...)."""

    def __init__(self, names: list[str]):
        super().__init__()
        self.names = names
        self.stack: list[tuple[str, bool]] = []  # (tag, isolates)
        self.found: list[tuple[str, bool, str]] = []  # (name, isolated, the text around it)

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.stack.append((tag, tag == "bdi" or dict(attrs).get("dir") == "auto"))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if any(tag in NOT_SHOWN for tag, _ in self.stack):
            return
        isolated = any(isolates for _, isolates in self.stack)
        for name in self.names:
            if name in data:
                self.found.append((name, isolated, data.strip()))


def shown(html: str, *names: str) -> list[tuple[str, bool, str]]:
    parser = Names(list(names))
    parser.feed(html)
    parser.close()
    return parser.found


def assert_isolated(client: Client, url: str, *names: str) -> None:
    response = client.get(url)
    assert response.status_code == 200, url
    found = shown(response.content.decode(), *names)
    assert {name for name, _, _ in found} == set(names), f"{url} shows {found}"
    bare = [(name, text) for name, isolated, text in found if not isolated]
    assert bare == [], f"{url}: names shown outside a <bdi>: {bare}"


@pytest.fixture
def event():
    """A tournament with a Hebrew name, a club's, a division, and a Hebrew player seated and
    played at table 1."""
    tournament = factories.TournamentFactory(name=TOURNAMENT)
    owned = factories.ClubTournamentFactory(tournament=tournament, club__name=CLUB)
    stage = factories.StageFactory(tournament=tournament, rounds=2, status="seated", order=1)
    (hebrew, *_), *_ = seat_tables(stage, [[PLAYER, "Bob Ortiz", "Cy Young"]], first_number=12)
    hebrew.club = PLAYER_CLUB
    hebrew.division = create_division(tournament=tournament, name=DIVISION)
    hebrew.save(update_fields=["club", "division"])
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    play_stage(stage)
    return tournament, owned.club, hebrew, organiser


def test_the_public_pages_isolate_the_names(client, event):
    tournament, _club, hebrew, _organiser = event
    slug = tournament.slug
    assert_isolated(client, f"/en/t/{slug}/", PLAYER, TOURNAMENT, DIVISION)
    assert_isolated(client, f"/en/t/{slug}/tables/1/1/", PLAYER, TOURNAMENT)
    player_page = reverse("player-page", args=[slug, hebrew.number])
    assert_isolated(client, player_page, PLAYER, PLAYER_CLUB, TOURNAMENT)
    assert_isolated(client, reverse("screen", args=[slug]), PLAYER, TOURNAMENT)


def test_the_console_and_the_clubs_pages_isolate_the_names(client, event):
    tournament, club, _hebrew, organiser = event
    client.force_login(organiser)
    assert_isolated(client, reverse("manage", args=[tournament.slug]), PLAYER, TOURNAMENT)
    club_organiser = factories.ClubOrganiserFactory(club=club).user
    factories.MemberFactory(club=club, name=MEMBER, household=PLAYER_CLUB)
    client.force_login(club_organiser)
    assert_isolated(client, reverse("club", args=[club.slug]), CLUB, MEMBER, PLAYER_CLUB)
    members = reverse("tournament-members", args=[tournament.slug])
    assert_isolated(client, members, PLAYER, TOURNAMENT, CLUB)


def test_a_name_in_an_attribute_or_the_title_is_left_as_text():
    html = (
        f"<title>{PLAYER}</title><p>#12 <bdi>{PLAYER}</bdi> (Tel Aviv)</p>"
        f'<button aria-label="{PLAYER}">x</button><p dir="auto">{PLAYER}</p><p>{PLAYER}!</p>'
    )
    isolated = [(PLAYER, True, PLAYER), (PLAYER, True, PLAYER)]
    assert shown(html, PLAYER) == [*isolated, (PLAYER, False, f"{PLAYER}!")]
