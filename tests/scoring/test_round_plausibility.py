"""Unusual scores for the deal on every path: the API answers `warnings` and stores them, the
entry page asks before saving (without JavaScript here), the CSV import enters and says them; the
history and the console show the flag. The hard limit stays a refusal.

The table: Ann, Bob, Cy and Di at a Samboree double-12 table of 4, dealt 12 tiles each: a hand
holds 144 on average and at most 250 without drawing."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import RoundResult, RoundResultVersion
from tests.scoring.conftest import round_body

pytestmark = pytest.mark.django_db

STRICT = {"HTTP_PREFER": "handling=strict"}
BOB_250 = "Bob: 250 pips is more than a hand of 12 tiles usually holds (144 on average, at most "
BOB_250 += "250 without drawing)."


def url(table, round_no=1, suffix=""):
    return f"/api/v1/tables/{table.pk}/rounds/{round_no}/{suffix}"


def put(client, table, body, **headers):
    return client.put(url(table), body, format="json", **headers)


def bob_checked(players, pips=250):
    body = round_body(players, pips=(0, pips, 30, 7))
    body["scores"][1]["checked"] = True
    return body


# ---- the API ------------------------------------------------------------------------------------


def test_an_unusual_score_is_accepted_with_its_warning_and_stored_flagged(
    as_official, table, players
):
    response = put(as_official, table, round_body(players, pips=(0, 250, 30, 7)))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["warnings"] == [
        {
            "player": players[1].pk,
            "code": "more_than_a_hand",
            "pips": 250,
            "limit": 250,
            "tiles": 12,
            "average": 144,
            "checked": False,
            "message": BOB_250,
        }
    ]
    assert [s["checked"] for s in body["scores"]] == [False] * 4
    result = RoundResult.objects.get()
    assert [(w["player"], w["checked"]) for w in result.warnings] == [(players[1].pk, False)]
    assert RoundResultVersion.objects.get().warnings == result.warnings
    # Read again, and in the history: the same warning.
    assert as_official.get(url(table)).json()["warnings"] == body["warnings"]
    history = as_official.get(url(table, suffix="history/")).json()
    assert history[0]["warnings"][0]["pips"] == 250


def test_ordinary_scores_have_no_warnings(as_official, table, players):
    body = put(as_official, table, round_body(players, pips=(0, 200, 180, 144))).json()
    assert body["warnings"] == []
    assert RoundResult.objects.get().warnings == []


def test_a_score_the_official_checked_is_stored_checked_and_kept_when_sent_back(
    as_official, table, players
):
    answer = put(as_official, table, bob_checked(players)).json()
    assert [(w["pips"], w["checked"]) for w in answer["warnings"]] == [(250, True)]
    assert [s["checked"] for s in answer["scores"]] == [False, True, False, False]
    # The answer sent back with Di's score changed: Bob's stays checked, warnings are ignored.
    answer["scores"][3]["pips"] = 9
    etag = as_official.get(url(table))["ETag"]
    again = put(as_official, table, answer, HTTP_IF_MATCH=etag)
    assert again.status_code == 200, again.json()
    assert [(w["pips"], w["checked"]) for w in again.json()["warnings"]] == [(250, True)]
    assert RoundResult.objects.get().warnings[0]["checked"] is True


def test_asking_first_refuses_an_unchecked_unusual_score_and_stores_nothing(
    as_official, table, players
):
    body = round_body(players, pips=(0, 250, 30, 520))
    response = put(as_official, table, body, HTTP_IDEMPOTENCY_KEY="k-1", **STRICT)
    assert response.status_code == 400
    refused = response.json()
    assert [(w["player"], w["pips"], w["checked"]) for w in refused["warnings"]] == [
        (players[1].pk, 250, False),
        (players[3].pk, 520, False),
    ]
    assert refused["warnings"][0]["message"] == BOB_250
    assert '"checked": true' in refused["detail"]
    assert not RoundResult.objects.exists()
    # Both checked, with the same key (the refusal did not use it up): stored.
    body["scores"][1]["checked"] = body["scores"][3]["checked"] = True
    saved = put(as_official, table, body, HTTP_IDEMPOTENCY_KEY="k-1", **STRICT)
    assert saved.status_code == 201, saved.json()
    assert [w["checked"] for w in RoundResult.objects.get().warnings] == [True, True]


def test_checking_one_score_is_not_checking_the_other(as_official, table, players):
    body = round_body(players, pips=(0, 250, 30, 520))
    body["scores"][1]["checked"] = True
    refused = put(as_official, table, body, **STRICT).json()
    assert [(w["pips"], w["checked"]) for w in refused["warnings"]] == [(250, True), (520, False)]
    assert not RoundResult.objects.exists()


def test_the_hard_limit_is_still_a_400_before_any_warning(as_official, table, players):
    for headers in ({}, STRICT):
        response = put(as_official, table, round_body(players, pips=(0, 1100, 30, 7)), **headers)
        assert response.status_code == 400
        errors = response.json()
        assert "warnings" not in errors
        assert errors[f"scores.{players[1].pk}"] == [
            "Bob's 1,100 is more than a double-12 set holds in a round with the 12 engine (1,068)"
        ]
    assert not RoundResult.objects.exists()


def test_checked_must_be_true_or_false(as_official, table, players):
    body = round_body(players, pips=(0, 250, 30, 7))
    body["scores"][1]["checked"] = "yes"
    response = put(as_official, table, body)
    assert response.status_code == 400
    assert response.json()["scores"] == [
        "Score 2: say whether the official checked it: true or false."
    ]
    assert not RoundResult.objects.exists()


def test_the_warning_is_said_in_spanish(as_official, table, players):
    body = put(
        as_official, table, round_body(players, pips=(0, 250, 30, 7)), HTTP_ACCEPT_LANGUAGE="es"
    ).json()
    assert body["warnings"][0]["message"] == (
        "Bob: 250 puntos son más de lo que suele tener una mano de 12 fichas (144 en promedio, "
        "250 como máximo sin robar)."
    )


# ---- the entry page, without JavaScript -----------------------------------------------------


@pytest.fixture
def official_client(client, official):
    client.force_login(official)
    return client


def entry_url(table, suffix=""):
    return f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/{suffix}"


def form(players, pips, **extra):
    data = {f"pips-{p.pk}": pip for p, pip in zip(players, pips, strict=True)}
    return {**data, "went_out": str(players[0].pk), "idempotency_key": "form-key", **extra}


def test_the_page_asks_then_the_confirmed_score_is_stored_flagged_and_shown(
    official_client, table, players
):
    bob = players[1].pk
    asked = official_client.post(entry_url(table), form(players, ("0", "250", "30", "7")))
    assert asked.status_code == 400
    assert not RoundResult.objects.exists()
    page = asked.content.decode()
    assert "Not saved yet: check the scores marked below with the players." in page
    assert f"Are you sure? {BOB_250}" in page
    # Bob's score is marked, described by the question, and has the focus; the box confirms 250.
    field = page[page.index(f'id="pips-{bob}"') :].split(">", 1)[0]
    assert 'value="250"' in field and 'aria-invalid="true"' in field and "autofocus" in field
    assert f"warning-{bob}" in field
    assert f'name="checked-{bob}" value="250"' in page

    confirmed = official_client.post(
        entry_url(table), form(players, ("0", "250", "30", "7"), **{f"checked-{bob}": "250"})
    )
    assert confirmed["Location"] == entry_url(table, "check/")
    result = RoundResult.objects.get()
    assert [(w["player"], w["pips"], w["checked"]) for w in result.warnings] == [(bob, 250, True)]
    flag = "Unusual score checked by the official: Bob 250 pips."
    assert flag in official_client.get(entry_url(table, "check/")).content.decode()
    assert flag in official_client.get(entry_url(table, "history/")).content.decode()


def test_a_corrected_score_is_saved_without_a_flag(official_client, table, players):
    bob = players[1].pk
    official_client.post(entry_url(table), form(players, ("0", "250", "30", "7")))
    # Corrected to 25; the box ticked for 250 does not confirm 25 (nor would it need to).
    corrected = official_client.post(
        entry_url(table), form(players, ("0", "25", "30", "7"), **{f"checked-{bob}": "250"})
    )
    assert corrected.status_code == 302
    assert RoundResult.objects.get().warnings == []
    history = official_client.get(entry_url(table, "history/")).content.decode()
    assert "Unusual score" not in history


def test_a_score_changed_after_the_question_is_asked_about_again(official_client, table, players):
    bob = players[1].pk
    again = official_client.post(
        entry_url(table), form(players, ("0", "520", "30", "7"), **{f"checked-{bob}": "250"})
    )
    assert again.status_code == 400
    assert "Bob: 520 pips is more than a hand of 12 tiles" in again.content.decode()
    assert not RoundResult.objects.exists()


def test_the_question_is_asked_together_with_the_errors(official_client, table, players):
    bob, cy, di = (p.pk for p in players[1:])
    response = official_client.post(entry_url(table), form(players, ("0", "250", "3x", "")))
    assert response.status_code == 400
    assert not RoundResult.objects.exists()
    page = response.content.decode()
    top = page[page.index('id="form-errors"') : page.index('id="round-form"')]
    # One message says both: what to correct and what to check (not two that each say "Not
    # saved").
    assert top.count('<p class="error">') == 1
    assert (
        "Not saved: correct what is marked below, and check the unusual scores with the players: "
        "correct them, or tick that they are right, then save again." in top
    )
    assert f'id="error-{cy}">Enter a whole number of pips, 0 or more<' in page
    assert f'id="error-{di}">Enter this player&#x27;s pips (0 if they went out)<' in page
    assert f"Are you sure? {BOB_250}" in page
    # Bob's row, the first marked, takes the focus; the box confirms 250.
    field = page[page.index(f'id="pips-{bob}"') :].split(">", 1)[0]
    assert 'aria-invalid="true"' in field and "autofocus" in field
    assert f'name="checked-{bob}" value="250"' in page
    # Corrected and ticked: saved, Bob's score flagged as checked.
    fixed = form(players, ("0", "250", "30", "7"), **{f"checked-{bob}": "250"})
    assert official_client.post(entry_url(table), fixed).status_code == 302
    assert [w["checked"] for w in RoundResult.objects.get().warnings] == [True]


def test_asking_first_answers_the_errors_and_the_warnings_together(as_official, table, players):
    body = round_body(players, pips=(0, 250, "3x", ""))
    strict = put(as_official, table, body, **STRICT)
    assert strict.status_code == 400
    answer = strict.json()
    assert answer[f"scores.{players[2].pk}"] == ["Enter a whole number of pips, 0 or more"]
    assert answer[f"scores.{players[3].pk}"] == ["Enter this player's pips (0 if they went out)"]
    assert [(w["player"], w["pips"]) for w in answer["warnings"]] == [(players[1].pk, 250)]
    # Without handling=strict an unusual score is stored with its warning: only the errors.
    plain = put(as_official, table, body)
    assert plain.status_code == 400 and "warnings" not in plain.json()
    assert not RoundResult.objects.exists()


def test_the_page_asks_in_spanish(official_client, table, players):
    response = official_client.post(
        entry_url(table), form(players, ("0", "250", "30", "7")), HTTP_ACCEPT_LANGUAGE="es"
    )
    page = response.content.decode()
    assert (
        "¿Está seguro? Bob: 250 puntos son más de lo que suele tener una mano de 12 fichas" in page
    )


def test_the_console_shows_unusual_scores_checked_or_not(
    client, organiser, as_official, table, players
):
    put(as_official, table, round_body(players, pips=(0, 250, 30, 7)))
    client.force_login(organiser)
    stage = table.stage
    board = client.get(
        f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/progress/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Unusual scores" in board
    assert "Unusual score, not checked by an official: Bob 250 pips." in board
    assert f"/enter/{table.pk}/1/history/" in board


# ---- the CSV import -----------------------------------------------------------------------------

HEADER = "stage,table,round,engine,number,name,pips,went_out,status"


def upload(client, tournament, lines: list[str]):
    text = "\n".join(lines) + "\n"
    return client.post(
        f"/api/v1/tournaments/{tournament.slug}/scores/import/",
        {"file": SimpleUploadedFile("scores.csv", text.encode())},
        format="multipart",
    )


def test_an_import_enters_unusual_scores_flagged_and_says_them(
    as_organiser, tournament, table, players
):
    response = upload(
        as_organiser,
        tournament,
        [
            HEADER,
            "Qualifying,1,1,12,1,Ann,0,yes,",
            "Qualifying,1,1,12,2,Bob,250,no,",
            "Qualifying,1,1,12,3,Cy,30,no,",
            "Qualifying,1,1,12,4,Di,7,no,",
        ],
    )
    assert response.status_code == 201, response.json()
    assert response.json() == {
        "created": 1,
        "warnings": [{"line": 3, "message": f"table 1, round 1: {BOB_250}"}],
    }
    assert [(w["pips"], w["checked"]) for w in RoundResult.objects.get().warnings] == [(250, False)]


def test_an_import_marks_a_score_checked_on_the_sheet(as_organiser, tournament, table, players):
    rows = ["0,yes,,,", "250,no,,,yes", "30,no,,,", "7,no,,,maybe"]
    lines = [f"{HEADER},blocked,checked"] + [
        f"Qualifying,1,1,12,{n},{p.name},{row}"
        for n, (p, row) in enumerate(zip(players, rows, strict=True), start=1)
    ]
    refused = upload(as_organiser, tournament, lines)
    assert refused.status_code == 400
    assert refused.json()["rows"] == [{"line": 5, "message": "Checked 'maybe' is not yes or no."}]
    assert not RoundResult.objects.exists()
    lines[-1] = lines[-1].replace("maybe", "")
    assert upload(as_organiser, tournament, lines).status_code == 201
    assert [(w["pips"], w["checked"]) for w in RoundResult.objects.get().warnings] == [(250, True)]
