"""The clubs' v1 API writes: a club started and read, members added and imported, its
tournaments and seasons; each bad input answered by field with nothing changed, each write for
the club's organisers only (a stranger learns nothing of the roster), and the rules the pages
keep (the same services)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from clubs.models import Club, ClubOrganiser, ClubTournament, Member, Season
from tests import factories
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}


@pytest.fixture
def club():
    return factories.ClubFactory(name="Pine Valley", slug="pine-valley")


@pytest.fixture
def organiser(club):
    """Organises the club and two of its tournaments."""
    user = factories.OrganiserAccountFactory(username="secretary")
    ClubOrganiser.objects.create(club=club, user=user)
    return user


@pytest.fixture
def api(organiser):
    return client_for(organiser)


@pytest.fixture
def nights(club, organiser):
    """Two club nights the club owns, organised by its organiser."""
    made = []
    for night in (1, 2):
        tournament = factories.TournamentFactory(name=f"Night {night}", slug=f"night-{night}")
        factories.StaffFactory(tournament=tournament, user=organiser, role="organiser")
        factories.ClubTournamentFactory(club=club, tournament=tournament)
        made.append(tournament)
    return made


def stranger() -> APIClient:
    """An organiser of another club (and of tournaments): no organiser of this one."""
    user = factories.OrganiserAccountFactory()
    factories.ClubOrganiserFactory(user=user)
    return client_for(user)


def upload(content: bytes) -> dict:
    return {"file": SimpleUploadedFile("members.csv", content, content_type="text/csv")}


# ---- a club -------------------------------------------------------------------------------------


def test_an_organiser_starts_a_club_and_is_its_organiser():
    founder = factories.OrganiserAccountFactory(username="founder")
    api = client_for(founder)

    made = api.post("/api/v1/clubs/", {"name": "Elks Dominoes", "slug": "elks"}, format="json")

    assert made.status_code == 201, made.content
    assert made.json() == {"name": "Elks Dominoes", "slug": "elks", "organisers": ["founder"]}
    assert Club.objects.get(slug="elks").organisers.get().user == founder
    assert api.get("/api/v1/clubs/elks/").json() == made.json()
    # Anyone reads the club's name and address (its public page shows them), not who runs it.
    public = {"name": "Elks Dominoes", "slug": "elks"}
    assert APIClient().get("/api/v1/clubs/elks/").json() == public
    assert stranger().get("/api/v1/clubs/elks/").json() == public


def test_a_club_without_a_slug_gets_one_from_its_name():
    api = client_for(factories.OrganiserAccountFactory())

    made = api.post("/api/v1/clubs/", {"name": "Pine Valley Train Club"}, format="json")

    assert made.status_code == 201
    assert made.json()["slug"] == "pine-valley-train-club"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": "Elks", "slug": "pine-valley"}, "slug", "Another club has this web address."),
        ({"name": "   ", "slug": "elks"}, "name", "This field may not be blank."),
        ({"slug": "elks"}, "name", "This field is required."),
        ({"name": "Elks", "slug": "elks club"}, "slug", "Enter a valid"),
        ({"name": "Elks", "slug": "elks", "city": "Reno"}, "city", "Unknown field"),
        ({"name": "E" * 121, "slug": "elks"}, "name", "no more than 120 characters"),
    ],
)
def test_a_club_refused_by_field_starts_nothing(club, body, field, message):
    api = client_for(factories.OrganiserAccountFactory())

    refused = api.post("/api/v1/clubs/", body, format="json")

    assert refused.status_code == 400
    assert message in refused.json()[field][0]
    assert list(Club.objects.values_list("slug", flat=True)) == ["pine-valley"]
    assert not ClubOrganiser.objects.exists()


def test_only_organisers_start_a_club():
    official = factories.StaffFactory(role="official").user  # an official, nowhere an organiser
    body = {"name": "Elks", "slug": "elks"}

    anonymous = APIClient().post("/api/v1/clubs/", body, format="json")
    refused = client_for(official).post("/api/v1/clubs/", body, format="json")

    assert anonymous.status_code == 401
    assert refused.status_code == 403
    assert refused.json() == {"detail": "Only organisers may start a club."}
    assert not Club.objects.exists()


def test_a_club_that_is_not_there_is_named():
    answer = APIClient().get("/api/v1/clubs/nowhere/")

    assert answer.status_code == 404
    assert answer.json() == {"detail": "There is no club at this address."}


# ---- the roster ---------------------------------------------------------------------------------


def test_an_organiser_adds_a_member_with_contact_details(club, api):
    body = {"name": "Ann Lee", "member_number": "PV-1", "household": "Lee",
            "email": "ann@example.org", "phone": "+1 555 0100"}  # fmt: skip

    added = api.post("/api/v1/clubs/pine-valley/members/", body, format="json")

    assert added.status_code == 201, added.content
    member = Member.objects.get(club=club)
    assert added.json() == {"id": member.pk, **body, "erased": False, "rating": None}
    roster = api.get("/api/v1/clubs/pine-valley/members/").json()
    assert [(m["name"], m["email"]) for m in roster] == [("Ann Lee", "ann@example.org")]


def test_a_member_with_only_a_name_is_added(club, api):
    added = api.post("/api/v1/clubs/pine-valley/members/", {"name": "Bob"}, format="json")

    assert added.status_code == 201
    assert (added.json()["member_number"], added.json()["email"]) == ("", "")


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": "Bob", "member_number": "PV-1"}, "member_number",
         "Member number PV-1 is already Ann Lee's."),
        ({"name": "Bob", "email": "bob at home"}, "email", "Enter a valid email address."),
        ({"name": "  "}, "name", "This field may not be blank."),
        ({"member_number": "PV-2"}, "name", "This field is required."),
        ({"name": "Bob", "phone": "5" * 41}, "phone", "no more than 40 characters"),
        ({"name": "Bob", "rating": 1500}, "rating", "Unknown field"),
    ],
)  # fmt: skip
def test_a_member_refused_by_field_adds_nobody(club, api, body, field, message):
    factories.MemberFactory(club=club, name="Ann Lee", member_number="PV-1")

    refused = api.post("/api/v1/clubs/pine-valley/members/", body, format="json")

    assert refused.status_code == 400
    assert message in refused.json()[field][0]
    assert list(club.members.values_list("name", flat=True)) == ["Ann Lee"]


def test_a_stranger_adds_no_member_and_learns_nothing_of_the_roster(club):
    factories.MemberFactory(club=club, name="Ann Lee", member_number="PV-1", email="a@x.org")
    body = {"name": "Bob", "member_number": "PV-1"}  # a number taken: the stranger is not told

    anonymous = APIClient().post("/api/v1/clubs/pine-valley/members/", body, format="json")
    refused = stranger().post("/api/v1/clubs/pine-valley/members/", body, format="json")

    assert anonymous.status_code == 401
    assert refused.status_code == 403
    assert refused.json() == {"detail": "Only an organiser of Pine Valley may do this."}
    assert "Ann" not in refused.content.decode()
    assert club.members.count() == 1


def test_an_organiser_imports_members_from_the_pages_csv(club, api):
    content = (
        b"name,member_number,household,email,phone\n"
        b"Ann Lee,PV-1,Lee,ann@example.org,555 0100\n"
        b"Bob Ortiz,PV-2,,,\n"
        b"Cy Park,,,,\n"
    )

    imported = api.post("/api/v1/clubs/pine-valley/members/import/", upload(content))

    assert imported.status_code == 201, imported.content
    assert imported.json() == {"created": 3}
    assert sorted(club.members.values_list("name", "member_number", "email")) == [
        ("Ann Lee", "PV-1", "ann@example.org"),
        ("Bob Ortiz", "PV-2", ""),
        ("Cy Park", "", ""),
    ]


def test_an_import_with_bad_lines_lists_every_one_and_stores_nothing(club, api):
    factories.MemberFactory(club=club, name="Ann Lee", member_number="PV-1")
    content = (
        b"name,member_number,email\n"
        b"Bob Ortiz,PV-2,bob@example.org\n"
        b",PV-3,\n"
        b"Cy Park,PV-1,\n"
        b"Di Nash,PV-2,not an address\n"
    )

    refused = api.post("/api/v1/clubs/pine-valley/members/import/", upload(content))

    assert refused.status_code == 400
    body = refused.json()
    assert body["detail"] == "3 lines have errors; no member was imported."
    assert [row["line"] for row in body["rows"]] == [3, 4, 5]
    assert "name is empty" in body["rows"][0]["message"].lower()
    assert "already Ann Lee's" in body["rows"][1]["message"]
    assert "used twice (also on line 2)" in body["rows"][2]["message"]
    assert "is not an email address" in body["rows"][2]["message"]
    assert len(body["file"]) == 3
    assert list(club.members.values_list("name", flat=True)) == ["Ann Lee"]
    spanish = api.post("/api/v1/clubs/pine-valley/members/import/", upload(content), **SPANISH)
    assert spanish.json()["detail"] == "3 líneas tienen errores; no se importó ningún socio."


def test_an_import_without_a_file_or_by_a_stranger_stores_nothing(club, api):
    missing = api.post("/api/v1/clubs/pine-valley/members/import/", {}, format="multipart")
    refused = stranger().post(
        "/api/v1/clubs/pine-valley/members/import/", upload(b"name\nAnn Lee\n")
    )
    anonymous = APIClient().post(
        "/api/v1/clubs/pine-valley/members/import/", upload(b"name\nAnn Lee\n")
    )

    assert missing.status_code == 400
    assert missing.json() == {"file": ["Attach the CSV file as 'file'."]}
    assert (refused.status_code, anonymous.status_code) == (403, 401)
    assert not club.members.exists()


# ---- the club's tournaments ---------------------------------------------------------------------


def test_an_organiser_of_both_adds_a_tournament_to_the_club(club, organiser, api):
    rally = factories.TournamentFactory(name="Spring Rally", slug="spring-rally")
    factories.StaffFactory(tournament=rally, user=organiser, role="organiser")

    added = api.post("/api/v1/clubs/pine-valley/tournaments/", {"tournament": "spring-rally"})
    again = api.post("/api/v1/clubs/pine-valley/tournaments/", {"tournament": "spring-rally"})

    assert added.status_code == 201, added.content
    assert added.json() == {"tournament": "spring-rally", "name": "Spring Rally", "season": None}
    assert again.status_code == 200  # harmless twice
    assert ClubTournament.objects.get().club == club


def test_a_tournament_the_caller_does_not_organise_is_refused(club, api):
    factories.StaffFactory(
        tournament=factories.TournamentFactory(name="Their Rally", slug="their-rally"),
        role="official",
    )

    refused = api.post("/api/v1/clubs/pine-valley/tournaments/", {"tournament": "their-rally"})

    assert refused.status_code == 403
    assert refused.json() == {"detail": "Only an organiser of Their Rally may add it to a club."}
    assert not ClubTournament.objects.exists()


def test_a_tournament_of_another_club_or_none_at_all_is_a_400_by_field(club, organiser, api):
    rally = factories.TournamentFactory(name="Spring Rally", slug="spring-rally")
    factories.StaffFactory(tournament=rally, user=organiser, role="organiser")
    factories.ClubTournamentFactory(club=factories.ClubFactory(name="Elks"), tournament=rally)

    owned = api.post("/api/v1/clubs/pine-valley/tournaments/", {"tournament": "spring-rally"})
    unknown = api.post("/api/v1/clubs/pine-valley/tournaments/", {"tournament": "no-such"})
    empty = api.post("/api/v1/clubs/pine-valley/tournaments/", {}, format="json")

    assert owned.status_code == 400
    assert owned.json() == {"tournament": ["Spring Rally already belongs to Elks."]}
    assert unknown.status_code == 400
    assert unknown.json() == {"tournament": ["There is no tournament at the address no-such."]}
    assert empty.json() == {"tournament": ["This field is required."]}
    assert not ClubTournament.objects.filter(club=club).exists()


def test_a_stranger_to_the_club_adds_no_tournament(club):
    user = factories.OrganiserAccountFactory()
    factories.StaffFactory(
        tournament=factories.TournamentFactory(slug="their-rally"), user=user, role="organiser"
    )

    refused = client_for(user).post(
        "/api/v1/clubs/pine-valley/tournaments/", {"tournament": "their-rally"}
    )
    anonymous = APIClient().post(
        "/api/v1/clubs/pine-valley/tournaments/", {"tournament": "their-rally"}
    )

    assert (refused.status_code, anonymous.status_code) == (403, 401)
    assert not ClubTournament.objects.exists()


# ---- seasons ------------------------------------------------------------------------------------

SEASON = {"name": "Autumn 2026", "slug": "autumn", "rule": "points", "points": [10, 8, 6, 5],
          "tournaments": ["night-1", "night-2"]}  # fmt: skip


def test_an_organiser_starts_a_season_counting_the_clubs_nights(club, nights, api):
    made = api.post("/api/v1/clubs/pine-valley/seasons/", SEASON, format="json")

    assert made.status_code == 201, made.content
    assert made.json() == {**SEASON, "places": "members", "best_n": None, "min_rounds": 0}
    season = Season.objects.get(club=club)
    assert sorted(season.events.values_list("tournament__slug", flat=True)) == [
        "night-1",
        "night-2",
    ]
    ladder = APIClient().get("/api/v1/clubs/pine-valley/seasons/autumn/ladder/").json()
    assert ladder["rule"] == "points" and ladder["lines"] == []


def test_a_best_n_season_and_an_average_one(club, nights, api):
    best = {**SEASON, "rule": "best_n", "best_n": 1, "tournaments": ["night-1"]}
    average = {"name": "Winter", "rule": "average", "min_rounds": 6, "tournaments": ["night-2"]}

    first = api.post("/api/v1/clubs/pine-valley/seasons/", best, format="json")
    second = api.post("/api/v1/clubs/pine-valley/seasons/", average, format="json")

    assert first.status_code == 201 and first.json()["best_n"] == 1
    assert second.status_code == 201, second.content
    assert second.json() == {
        **average,
        "slug": "winter",
        "places": "members",
        "points": [],
        "best_n": None,
    }


BAD_SEASONS = [
    ({"rule": "most_wins"}, "rule", '"most_wins" is not a valid choice.'),
    ({"points": [5, 8, 1]}, "points",
     "A place cannot score more than the place above it: place 2 has 8 points, place 1 5."),
    ({"points": [10, -1]}, "points", "Points cannot be negative."),
    ({"points": []}, "points", "Give the points for each place"),
    ({"points": ["ten"]}, "points", "A valid integer is required."),
    ({"rule": "best_n"}, "best_n", "Say how many events count for each member"),
    ({"rule": "best_n", "best_n": 3}, "best_n", "N cannot be more than the season's 2 events."),
    ({"tournaments": []}, "tournaments", "The season counts no events yet"),
    ({"tournaments": ["night-1", "no-such"]}, "tournaments",
     "There is no tournament at the address no-such."),
    ({"tournaments": ["night-1", "night-1"]}, "tournaments", "night-1 is named twice."),
    ({"tournaments": ["elsewhere"]}, "tournaments", "Choose among the club's tournaments"),
    ({"tournaments": ["counted"]}, "tournaments", "Choose among the club's tournaments"),
    ({"slug": "spring"}, "slug", "The web address spring is taken in Pine Valley"),
    ({"slug": "new"}, "slug", "The web address new is taken in Pine Valley"),
    ({"name": " "}, "name", "This field may not be blank."),
    ({"min_rounds": -1}, "min_rounds", "The minimum number of rounds cannot be negative."),
    ({"ladder": []}, "ladder", "Unknown field"),
]  # fmt: skip


@pytest.fixture
def taken(club, organiser):
    """A tournament of no club's (though the organiser's), and one another season counts."""
    elsewhere = factories.TournamentFactory(slug="elsewhere")
    factories.StaffFactory(tournament=elsewhere, user=organiser, role="organiser")
    spring = Season.objects.create(club=club, name="Spring", slug="spring", points_table=[3, 2])
    factories.ClubTournamentFactory(
        club=club, tournament=factories.TournamentFactory(slug="counted"), season=spring
    )
    return spring


@pytest.mark.parametrize(("change", "field", "message"), BAD_SEASONS)
def test_a_season_refused_by_field_saves_nothing(club, nights, taken, api, change, field, message):
    refused = api.post("/api/v1/clubs/pine-valley/seasons/", SEASON | change, format="json")

    assert refused.status_code == 400
    assert message in str(refused.json()[field]), refused.json()
    assert list(Season.objects.values_list("slug", flat=True)) == ["spring"]
    assert not ClubTournament.objects.filter(tournament__in=nights, season__isnull=False).exists()


@pytest.fixture
def autumn(club, nights, api):
    made = api.post("/api/v1/clubs/pine-valley/seasons/", SEASON, format="json")
    assert made.status_code == 201
    return Season.objects.get(slug="autumn")


def test_a_patch_changes_what_it_sends_and_keeps_the_rest(autumn, api):
    url = "/api/v1/clubs/pine-valley/seasons/autumn/"

    renamed = api.patch(url, {"name": "Autumn league"}, format="json")
    best = api.patch(url, {"rule": "best_n", "best_n": 1, "tournaments": ["night-2"]},
                     format="json")  # fmt: skip

    assert renamed.status_code == 200, renamed.content
    assert renamed.json() == {**SEASON, "name": "Autumn league", "places": "members",
                              "best_n": None, "min_rounds": 0}  # fmt: skip
    assert best.status_code == 200, best.content
    assert best.json() == {**SEASON, "name": "Autumn league", "rule": "best_n", "best_n": 1,
                           "places": "members", "min_rounds": 0,
                           "tournaments": ["night-2"]}  # fmt: skip
    autumn.refresh_from_db()
    assert (autumn.rule, autumn.best_n, autumn.points_table) == ("best_n", 1, [10, 8, 6, 5])
    # The night it no longer counts is free for another season.
    assert ClubTournament.objects.get(tournament__slug="night-1").season is None


@pytest.mark.parametrize(("change", "field", "message"), BAD_SEASONS)
def test_a_patch_refused_by_field_changes_nothing(autumn, taken, api, change, field, message):
    refused = api.patch("/api/v1/clubs/pine-valley/seasons/autumn/", change, format="json")

    assert refused.status_code == 400
    assert message in str(refused.json()[field]), refused.json()
    autumn.refresh_from_db()
    assert (autumn.name, autumn.rule, autumn.points_table, autumn.best_n) == (
        "Autumn 2026", "points", [10, 8, 6, 5], None
    )  # fmt: skip
    assert sorted(autumn.events.values_list("tournament__slug", flat=True)) == [
        "night-1",
        "night-2",
    ]


def test_whom_places_count_among_is_set_and_kept_by_a_patch(autumn, api):
    url = "/api/v1/clubs/pine-valley/seasons/autumn/"

    everyone = api.patch(url, {"places": "everyone"}, format="json")
    renamed = api.patch(url, {"name": "Autumn league"}, format="json")
    wrong = api.patch(url, {"places": "guests"}, format="json")

    assert everyone.json()["places"] == "everyone"
    assert renamed.json()["places"] == "everyone"
    assert wrong.status_code == 400 and "places" in wrong.json()
    autumn.refresh_from_db()
    assert (autumn.name, autumn.places) == ("Autumn league", "everyone")


def test_a_patch_that_leaves_a_best_n_season_above_its_events_is_refused(autumn, api):
    url = "/api/v1/clubs/pine-valley/seasons/autumn/"
    assert api.patch(url, {"rule": "best_n", "best_n": 2}, format="json").status_code == 200

    refused = api.patch(url, {"tournaments": ["night-1"]}, format="json")

    assert refused.status_code == 400
    assert "N cannot be more than the season's 1 event." in refused.json()["best_n"][0]
    assert autumn.events.count() == 2


def test_seasons_are_written_by_the_clubs_organisers_only(autumn, nights):
    url = "/api/v1/clubs/pine-valley/seasons/"
    for client, expected in ((APIClient(), 401), (stranger(), 403)):
        assert client.post(url, SEASON | {"slug": "x"}, format="json").status_code == expected
        assert client.patch(f"{url}autumn/", {"name": "Mine"}, format="json").status_code == (
            expected
        )
    autumn.refresh_from_db()
    assert (autumn.name, Season.objects.count()) == ("Autumn 2026", 1)


def test_a_season_that_is_not_there_is_named(autumn, api):
    missing = api.patch("/api/v1/clubs/pine-valley/seasons/spring/", {"name": "X"}, format="json")

    assert missing.status_code == 404
    assert missing.json() == {"detail": "There is no season at this address in this club."}


def test_a_refusal_is_said_in_the_callers_language(autumn, api):
    refused = api.patch(
        "/api/v1/clubs/pine-valley/seasons/autumn/", {"points": [5, 8]}, format="json", **SPANISH
    )
    unknown = api.post(
        "/api/v1/clubs/pine-valley/tournaments/", {"tournament": "no-such"}, **SPANISH
    )

    assert refused.json()["points"][0].startswith("Un puesto no puede sumar más puntos")
    assert unknown.json()["tournament"] == ["No hay ningún torneo en la dirección no-such."]
