"""A whole Samboree through the API, with a real Celery worker seating the playoff and placing
everyone: 37 players, four qualifying rounds at ten tables, the table winners' final."""

import time

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests import factories

NAMES = [f"Player {n:02d}" for n in range(1, 38)]


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def wait_for(fetch, predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fetch()
        if predicate(value):
            return value
        time.sleep(0.2)
    raise AssertionError(f"not reached within {timeout} s: {value!r}")


def play_table(client, table: dict, round_no: int, pips_of) -> None:
    seats = table["seats"]
    body = {
        "blocked": False,
        "scores": [
            {
                "player": s["player"]["id"],
                "pips": pips_of(s, round_no),
                "went_out": s["position"] == 1,
            }
            for s in seats
        ],
    }
    url = f"/api/v1/tables/{table['id']}/rounds/{round_no}/"
    put = client.put(url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"t{table['id']}-r{round_no}")
    assert put.status_code == 201, put.json()
    confirm = client.post(f"{url}confirm/", HTTP_IF_MATCH=put["ETag"])
    assert confirm.status_code == 200, confirm.json()


def test_a_whole_samboree_through_the_api(live_worker):
    organiser = token_client(factories.OrganiserAccountFactory(username="desk"))
    made = organiser.post(
        "/api/v1/tournaments/",
        {
            "name": "Desert Samboree",
            "slug": "desert",
            "domino_set": 12,
            "preset": "samboree",
            "with_stages": True,
        },
        format="json",
    )
    assert made.status_code == 201, made.json()
    staff = organiser.post(
        "/api/v1/tournaments/desert/staff/",
        {"username": "tablet", "role": "official", "password": "tablet-pass-1"},
        format="json",
    )
    assert staff.status_code == 201
    official = token_client(factories.UserFactory(username="tablet"))
    csv_text = "number,name\n" + "".join(f"{n},{name}\n" for n, name in enumerate(NAMES, 1))
    imported = organiser.post(
        "/api/v1/tournaments/desert/players/import/",
        {"file": SimpleUploadedFile("p.csv", csv_text.encode())},
        format="multipart",
    )
    assert imported.json() == {"created": 37}
    qualifying, playoff = organiser.get("/api/v1/tournaments/desert/stages/").json()
    tables = organiser.post(
        f"/api/v1/stages/{qualifying['id']}/seat/", {"seed": 37}, format="json"
    ).json()
    assert sorted(len(t["seats"]) for t in tables) == [3, 3, 3] + [4] * 7

    # seat 1 goes out every round; the others score their badge number plus the round
    for table in tables:
        for round_no in range(1, 5):
            play_table(
                official,
                table,
                round_no,
                lambda s, n: 0 if s["position"] == 1 else s["player"]["number"] + n,
            )
    standings = wait_for(
        lambda: official.get(f"/api/v1/stages/{qualifying['id']}/standings/").json(),
        lambda body: body["results_counted"] == 40,
    )
    winners = {s["player"]["id"] for t in tables for s in t["seats"] if s["position"] == 1}
    assert {r["player"]["id"] for r in standings["rows"] if r["advances"]} == winners

    closed = organiser.post(f"/api/v1/stages/{qualifying['id']}/close/")
    assert closed.status_code == 202, closed.json()
    final_tables = wait_for(
        lambda: official.get(f"/api/v1/stages/{playoff['id']}/tables/").json(),
        lambda body: len(body) == 1,
    )  # the worker seated the final
    assert {s["player"]["id"] for s in final_tables[0]["seats"]} == winners
    announced = official.patch(
        f"/api/v1/stages/{playoff['id']}/", {"starting_double": 9, "rounds": 2}, format="json"
    )
    assert announced.json()["engines"] == [9, 8]

    for round_no in (1, 2):
        play_table(
            official,
            final_tables[0],
            round_no,
            lambda s, n: 0 if s["position"] == 1 else s["position"] * 3 + n,
        )
    assert organiser.post(f"/api/v1/stages/{playoff['id']}/close/").status_code == 202
    placings = wait_for(
        lambda: official.get("/api/v1/tournaments/desert/placings/").json(),
        lambda body: len(body) == 37,
    )
    champion = next(s for s in final_tables[0]["seats"] if s["position"] == 1)
    runner_up = next(s for s in final_tables[0]["seats"] if s["position"] == 2)
    assert placings[0] == {
        "place": 1,
        "player": champion["player"],
        "went_out_in": "Playoff",
        "division": None,  # no divisions: everyone one group, the champion its gold
        "division_place": 1,
        "medal": "gold",
    }
    assert placings[1]["player"] == runner_up["player"]
    assert [p["place"] for p in placings[:10]] == list(range(1, 11))
    assert {p["went_out_in"] for p in placings[10:]} == {"Qualifying"}
