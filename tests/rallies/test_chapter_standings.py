"""The chapters' standings from the events' placings, live: a close that decides the placings
gives the chapters their points at the next look, a reopen takes them away; the public page,
the projector and the API say the same; "most points" once the rally is finished."""

import pytest
from django.test import Client

from rallies import services
from scoring.services import reopen
from tests.rallies.helpers import play_to_placings, rally

pytestmark = pytest.mark.django_db

# Seat 1 goes out (0), seat 2 scores 5, seat 3 10, seat 4 15: the seats give the places.
PLAYERS = [
    ("Ann Abbott", "Roadrunners"),
    ("Bea Bell", "Wanderers"),
    ("Cy Cole", "roadrunners"),
    ("Di Dunn", ""),
]


def enter_all(made, events):
    client = Client()
    for name, chapter in PLAYERS:
        email = name.split()[0].lower() + "@example.org"
        data = {
            "events": [str(e.pk) for e in events],
            "chapter": chapter,
            "name": name,
            "email": email,
        }
        assert client.post(f"/en/rallies/{made.slug}/enter/", data).status_code == 302


def places(tournament) -> dict[str, int]:
    return {p.player.name: p.place for p in tournament.placings.select_related("player")}


def points_of(client, slug) -> dict[str, str]:
    body = client.get(f"/api/v1/rallies/{slug}/standings/").json()
    return {line["chapter"]: line["points"] for line in body["chapters"]}


def expected(tournament) -> dict[str, float]:
    """Points by the default table (10, 8, 6, 5) from the event's places: Ann and Cy for the
    Roadrunners ("roadrunners" is the same chapter), Bea for the Wanderers, Di a guest."""
    table = {1: 10, 2: 8, 3: 6, 4: 5}
    got = places(tournament)
    return {
        "Roadrunners": table[got["Ann Abbott"]] + table[got["Cy Cole"]],
        "Wanderers": table[got["Bea Bell"]],
    }


def test_a_decided_event_gives_the_chapters_their_points_and_a_reopen_takes_them_away():
    made, (samboree, _ladies, beginners), organiser = rally()
    enter_all(made, [samboree, beginners])
    client = Client()
    assert points_of(client, made.slug) == {"Roadrunners": "0.00", "Wanderers": "0.00"}
    page = client.get(f"/en/rallies/{made.slug}/")
    assert "Live: the points change" in page.content.decode()
    play_to_placings(samboree.tournament, organiser)
    want = expected(samboree.tournament)
    assert points_of(client, made.slug) == {k: f"{v}.00" for k, v in want.items()}
    assert (
        sum(want.values()) + {1: 10, 2: 8, 3: 6, 4: 5}[places(samboree.tournament)["Di Dunn"]] == 29
    )  # the guest's place's points go to nobody
    # The public page has changed version: the old ETag is no 304.
    etag = page["ETag"]
    again = client.get(f"/en/rallies/{made.slug}/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again["ETag"] != etag
    assert (
        client.get(f"/en/rallies/{made.slug}/", HTTP_IF_NONE_MATCH=again["ETag"]).status_code == 304
    )
    # The close undone: its placings go, and so do the points.
    reopen.reopen_stage(stage=samboree.tournament.stages.get(), by=organiser)
    assert points_of(client, made.slug) == {"Roadrunners": "0.00", "Wanderers": "0.00"}


def test_most_points_is_said_once_every_event_is_decided_or_the_rally_is_closed():
    made, (samboree, ladies, beginners), organiser = rally()
    services.remove_event(ladies)  # two events, both to be decided
    enter_all(made, [samboree, beginners])
    play_to_placings(samboree.tournament, organiser)
    client = Client()
    body = client.get(f"/api/v1/rallies/{made.slug}/standings/").json()
    assert body["finished"] is False and body["most_points"] == []
    assert [e["state"] for e in body["events"]] == ["decided", "upcoming"]
    services.close_rally(made)
    text = client.get(f"/en/rallies/{made.slug}/").content.decode()
    leader = max(expected(samboree.tournament).items(), key=lambda kv: kv[1])[0]
    assert "Most points" in text and f"<strong>{leader}</strong>" in text
    assert "The organisers have closed the rally" in text
    services.reopen_rally(made)
    assert "Most points" not in client.get(f"/en/rallies/{made.slug}/").content.decode()
    play_to_placings(beginners.tournament, organiser)
    body = client.get(f"/api/v1/rallies/{made.slug}/standings/").json()
    assert body["finished"] is True and body["most_points"] == [body["chapters"][0]["chapter"]]
    screen = client.get(f"/es/rallies/{made.slug}/screen/").content.decode()
    assert "Más puntos" in screen and body["chapters"][0]["chapter"] in screen


def test_the_schedule_says_where_to_sit_once_the_event_is_seated():
    made, (samboree, _ladies, beginners), organiser = rally()
    enter_all(made, [samboree, beginners])
    play_to_placings(samboree.tournament, organiser)
    from rallies.models import RallyEntry

    ann = RallyEntry.objects.get(name="Ann Abbott")
    seat = samboree.tournament.stages.get().seats.get(player__name="Ann Abbott")
    text = Client().get(f"/en/rallies/{made.slug}/schedule/{ann.manage_key}/").content.decode()
    assert f"table {seat.table.number}, seat {seat.position}" in text


def test_a_rally_page_at_no_address_is_a_404():
    assert Client().get("/en/rallies/nowhere/").status_code == 404
    assert Client().get("/api/v1/rallies/nowhere/standings/").status_code == 404
