"""The API's answers to a whole event, compared with a recording
(tests/recorded_event.<database>.json): moving code between modules changes no answer (each JSON
answer compared as a value, every CSV byte for byte). The event: a preset's stages, 12
players imported, seated, every round entered (a replay, a missing and a stale If-Match, a reused
key, a bad body, a correction), confirmed, the standings, a refused and a good close, the
playoff, the placings and every export.

ROUNDHOUSE_RECORD=1 writes the recording anew (only when an answer is meant to change)."""

import json
import os
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from tests import factories
from tests.conftest import client_for


def recording() -> Path:
    """One recording per database: PostgreSQL's sequences skip the ids of rolled-back rows (the
    close's trial seating), SQLite hands them out again."""
    return Path(__file__).with_name(f"recorded_event.{connection.vendor}.json")


# Times differ from run to run; everything else is the same.
TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
# ... and so do the tables' codes (random, shown to the staff).
TABLE_CODE = re.compile(r'"table_code": "[A-Z0-9]+"')
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]


class Recorder:
    def __init__(self) -> None:
        self.answers: list[dict] = []

    def __call__(self, label: str, response) -> object:
        if response.streaming:
            body = b"".join(response.streaming_content).decode("utf-8-sig")
        elif response["Content-Type"].startswith("application/json"):
            # As a value: a replayed answer comes back from a JSON column, whose key order is
            # the database's (PostgreSQL sorts them).
            body = json.dumps(response.json(), ensure_ascii=False, sort_keys=True)
        else:
            body = f"<{response['Content-Type']}, {len(response.content) > 0}>"
        headers = {h: response[h] for h in ("ETag", "Content-Type") if response.has_header(h)}
        self.answers.append(
            {
                "call": label,
                "status": response.status_code,
                "headers": headers,
                "body": TABLE_CODE.sub('"table_code": "<code>"', TIME.sub("<time>", body)),
            }
        )
        return response.json() if "json" in headers.get("Content-Type", "") else None


def play_round(official, record, table: dict, round_no: int, *, correct: bool = False) -> None:
    url = f"/api/v1/tables/{table['id']}/rounds/{round_no}/"
    scores = [
        {
            "player": seat["player"]["id"],
            "pips": 0 if seat["position"] == 1 else seat["player"]["number"] + round_no,
            "went_out": seat["position"] == 1,
        }
        for seat in table["seats"]
    ]
    body = {"blocked": False, "scores": scores}
    key = f"t{table['id']}-r{round_no}"
    put = official.put(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    record(f"PUT round {table['number']}/{round_no}", put)
    assert put.status_code == 201, put.content
    confirm = official.post(f"{url}confirm/", HTTP_IF_MATCH=put["ETag"])
    record(f"confirm {table['number']}/{round_no}", confirm)
    if correct:
        record(
            "replay", official.put(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
        )  # the same key and body: the stored answer
        other = {"blocked": True, "scores": [{**s, "went_out": False} for s in scores]}
        record("reused key", official.put(url, other, format="json", HTTP_IDEMPOTENCY_KEY=key))
        record("no If-Match", official.put(url, other, format="json"))
        record("stale If-Match", official.put(url, other, format="json", HTTP_IF_MATCH='"0-0"'))
        record(
            "no reason",
            official.put(url, other, format="json", HTTP_IF_MATCH=confirm["ETag"]),
        )
        bad = {"blocked": False, "scores": scores[:-1]}
        record("a seat missing", official.put(url, bad, format="json", HTTP_IF_MATCH="*"))
        corrected = official.put(
            url,
            {**other, "reason": "Everyone was still holding tiles"},
            format="json",
            HTTP_IF_MATCH=confirm["ETag"],
        )
        record("correction", corrected)
        record("confirm again", official.post(f"{url}confirm/", HTTP_IF_MATCH=corrected["ETag"]))
        record("history", official.get(f"{url}history/"))


@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_the_api_answers_an_event_as_recorded():
    record = Recorder()
    organiser = client_for(factories.OrganiserAccountFactory(username="desk"))
    anyone = client_for(None)
    made = organiser.post(
        "/api/v1/tournaments/",
        {"name": "Recorded Rally", "slug": "recorded", "preset": "samboree", "with_stages": True},
        format="json",
    )
    record("create", made)
    record(
        "staff",
        organiser.post(
            "/api/v1/tournaments/recorded/staff/",
            # A new account, as a script provisioning a tablet makes one (an existing account
            # joins only by an invitation).
            {"username": "tablet", "role": "official", "password": "tablet-password-1"},
            format="json",
        ),
    )
    official = client_for(get_user_model().objects.get(username="tablet"))
    players = "number,name,household\n" + "".join(
        f"{n},{name},{'Smith' if n in (1, 2) else ''}\n" for n, name in enumerate(NAMES, 1)
    )
    record(
        "import",
        organiser.post(
            "/api/v1/tournaments/recorded/players/import/",
            {"file": SimpleUploadedFile("p.csv", players.encode())},
            format="multipart",
        ),
    )
    qualifying, playoff = record("stages", anyone.get("/api/v1/tournaments/recorded/stages/"))
    record("seat", organiser.post(f"/api/v1/stages/{qualifying['id']}/seat/", {"seed": 5}, "json"))
    tables = record("tables", anyone.get(f"/api/v1/stages/{qualifying['id']}/tables/"))
    record("close too early", organiser.post(f"/api/v1/stages/{qualifying['id']}/close/"))
    for table in tables:
        for round_no in range(1, qualifying["rounds"] + 1):
            play_round(
                official, record, table, round_no, correct=(table["number"], round_no) == (1, 2)
            )
    record("standings", anyone.get(f"/api/v1/stages/{qualifying['id']}/standings/"))
    record("tournament standings", anyone.get("/api/v1/tournaments/recorded/standings/"))
    record("close", organiser.post(f"/api/v1/stages/{qualifying['id']}/close/"))
    record("close twice", organiser.post(f"/api/v1/stages/{qualifying['id']}/close/"))
    record(
        "day of play",
        official.patch(f"/api/v1/stages/{playoff['id']}/", {"starting_double": 9, "rounds": 2}),
    )
    (final,) = record("final tables", anyone.get(f"/api/v1/stages/{playoff['id']}/tables/"))
    for round_no in (1, 2):
        play_round(official, record, final, round_no)
    record("final close", organiser.post(f"/api/v1/stages/{playoff['id']}/close/"))
    record("placings", anyone.get("/api/v1/tournaments/recorded/placings/"))
    record("final standings", anyone.get(f"/api/v1/stages/{playoff['id']}/standings/"))
    for name in ("players", "seating", "scores", "standings", "bracket", "placings"):
        record(name, organiser.get(f"/api/v1/tournaments/recorded/exports/{name}.csv"))
    record("cards", official.get(f"/api/v1/stages/{qualifying['id']}/cards.pdf"))
    record("tournament", anyone.get("/api/v1/tournaments/recorded/"))

    answers = json.dumps(record.answers, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("ROUNDHOUSE_RECORD") == "1":
        recording().write_text(answers, encoding="utf-8")
    recorded = json.loads(recording().read_text(encoding="utf-8"))
    for expected, got in zip(recorded, record.answers, strict=True):
        assert got == expected, got["call"]
