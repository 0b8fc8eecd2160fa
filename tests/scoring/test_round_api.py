"""Round results through the v1 API: every status of the contract, replays, versions, history."""

import pytest

from scoring.models import IdempotencyRecord, RoundResult, RoundResultVersion, Score
from tests import factories
from tests.conftest import client_for
from tests.scoring.conftest import round_body

pytestmark = pytest.mark.django_db


def url(table, round_no=1, suffix=""):
    return f"/api/v1/tables/{table.pk}/rounds/{round_no}/{suffix}"


def put(client, table, body, round_no=1, **headers):
    return client.put(url(table, round_no), body, format="json", **headers)


def test_submit_a_round_creates_the_result(as_official, table, players):
    response = put(as_official, table, round_body(players))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["table"], body["round_no"], body["engine"]) == (table.pk, 1, 12)
    assert (body["status"], body["version"]) == ("submitted", 1)
    assert [(s["name"], s["pips"], s["went_out"]) for s in body["scores"]] == [
        ("Ann", 0, True), ("Bob", 12, False), ("Cy", 30, False), ("Di", 7, False),
    ]  # fmt: skip
    result = RoundResult.objects.get()
    assert response["ETag"] == result.etag
    assert result.versions.get().action == "submitted"


def test_get_returns_the_result_with_its_etag(anon, as_official, table, players):
    put(as_official, table, round_body(players))
    response = as_official.get(url(table))
    assert response.status_code == 200
    assert response["ETag"] == RoundResult.objects.get().etag
    as_official.post(url(table, suffix="confirm/"))
    response = anon.get(url(table))
    assert response.status_code == 200
    assert response["ETag"] == RoundResult.objects.get().etag
    assert anon.get(url(table, 2)).status_code == 404


def test_a_round_not_yet_confirmed_is_read_by_the_tournaments_staff_only(
    anon, as_official, official, table, players
):
    """The public score sheet shows confirmed rounds only; the API did not (table ids are
    sequential, so anyone could read every tournament's unconfirmed pips). Anyone but this
    tournament's staff gets the answer a round with no result gets, with no pips in it."""
    put(as_official, table, round_body(players))
    outsider = client_for(factories.StaffFactory(role="official").user)
    other_organiser = client_for(factories.StaffFactory(role="organiser").user)
    nothing = anon.get(url(table, 2)).json()
    for client in (anon, outsider, other_organiser):
        response = client.get(url(table))
        assert response.status_code == 404
        assert response.json() == nothing
        assert "ETag" not in response and "pips" not in response.content.decode()
    assert as_official.get(url(table)).json()["status"] == "submitted"
    as_official.post(url(table, suffix="confirm/"))
    for client in (anon, outsider, other_organiser):
        assert client.get(url(table)).json()["status"] == "confirmed"


def test_only_the_tournaments_staff_see_which_officials_entered_and_confirmed(
    anon, as_official, official, table, players
):
    put(as_official, table, round_body(players))
    as_official.post(url(table, suffix="confirm/"))
    staff_view = as_official.get(url(table)).json()
    assert staff_view["submitted_by"] == staff_view["confirmed_by"] == official.username
    # Usernames are sign-in names: the public, and another tournament's officials, read the
    # result without them.
    outsider = client_for(factories.StaffFactory(role="official").user)
    for client in (anon, outsider):
        public = client.get(url(table)).json()
        assert (public["submitted_by"], public["confirmed_by"]) == (None, None)
        assert public["scores"] == staff_view["scores"]
        assert official.username not in str(public)


def test_engine_follows_the_round(as_official, table, players):
    response = put(as_official, table, round_body(players, pips=(0, 1, 2, 3)), round_no=4)
    assert response.json()["engine"] == 9


def test_same_key_and_body_replays_the_stored_answer_and_changes_nothing(
    as_official, table, players
):
    body = round_body(players)
    first = put(as_official, table, body, HTTP_IDEMPOTENCY_KEY="tablet-1-r1-a")
    again = put(as_official, table, body, HTTP_IDEMPOTENCY_KEY="tablet-1-r1-a")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["ETag"] == first["ETag"]
    assert RoundResult.objects.count() == 1
    assert Score.objects.count() == 4
    assert RoundResultVersion.objects.count() == 1


def test_replay_still_answers_after_the_result_moved_on(as_official, table, players):
    body = round_body(players)
    first = put(as_official, table, body, HTTP_IDEMPOTENCY_KEY="k1")
    as_official.post(url(table, suffix="confirm/"))
    again = put(as_official, table, body, HTTP_IDEMPOTENCY_KEY="k1")
    assert again.json() == first.json()  # the stored answer, not the current state
    assert RoundResult.objects.get().status == "confirmed"


def test_same_key_with_another_body_is_422(as_official, table, players):
    put(as_official, table, round_body(players), HTTP_IDEMPOTENCY_KEY="k1")
    response = put(
        as_official, table, round_body(players, pips=(0, 13, 30, 7)), HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert response.status_code == 422
    assert "already used for a different request" in response.json()["detail"]
    assert [s.pips for s in Score.objects.order_by("player__number")] == [0, 12, 30, 7]


def test_a_rejected_request_does_not_use_up_its_key(as_official, table, players):
    bad = put(
        as_official, table, round_body(players, pips=(0, -1, 30, 7)), HTTP_IDEMPOTENCY_KEY="k"
    )
    assert bad.status_code == 400
    assert not IdempotencyRecord.objects.exists()
    good = put(as_official, table, round_body(players), HTTP_IDEMPOTENCY_KEY="k")
    assert good.status_code == 201


def test_replacing_needs_if_match_428_then_412_when_stale(as_official, table, players):
    first = put(as_official, table, round_body(players))
    etag = first["ETag"]
    changed = round_body(players, pips=(0, 15, 30, 7))
    missing = put(as_official, table, changed)
    assert missing.status_code == 428
    assert "Send If-Match" in missing.json()["detail"]
    replaced = put(as_official, table, changed, HTTP_IF_MATCH=etag)
    assert replaced.status_code == 200
    assert replaced.json()["version"] == 2
    assert replaced["ETag"] != etag
    stale = put(as_official, table, round_body(players, pips=(0, 99, 30, 7)), HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert "changed since you loaded it" in stale.json()["detail"]
    assert stale.json()["current"]["scores"][1]["pips"] == 15  # shows what changed
    assert stale["ETag"] == replaced["ETag"]
    assert [s.pips for s in Score.objects.order_by("player__number")] == [0, 15, 30, 7]


def test_checks_run_in_the_contract_order(as_official, table, players):
    put(as_official, table, round_body(players), HTTP_IDEMPOTENCY_KEY="k1")
    invalid = round_body(players, pips=(0, -5, 30, 7))
    # a stale precondition is reported before the body's own errors
    assert put(as_official, table, invalid, HTTP_IF_MATCH='"0-0"').status_code == 412
    assert put(as_official, table, invalid).status_code == 428
    # and the replay before the precondition
    replay = put(as_official, table, round_body(players), HTTP_IDEMPOTENCY_KEY="k1")
    assert replay.status_code == 201


def test_correcting_a_confirmed_result_needs_a_reason_and_keeps_history(
    as_official, as_organiser, table, players
):
    put(as_official, table, round_body(players))
    confirmed = as_official.post(url(table, suffix="confirm/"))
    assert confirmed.json()["status"] == "confirmed"
    etag = confirmed["ETag"]
    corrected = round_body(players, pips=(0, 21, 30, 7))
    no_reason = put(as_organiser, table, corrected, HTTP_IF_MATCH=etag)
    assert no_reason.status_code == 400
    assert "say why" in no_reason.json()["reason"][0]
    response = put(
        as_organiser, table, {**corrected, "reason": "Bob's 12 was really 21"}, HTTP_IF_MATCH=etag
    )
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["version"]) == ("submitted", 3)
    history = as_organiser.get(url(table, suffix="history/")).json()
    assert [(v["version"], v["action"], v["status"]) for v in history] == [
        (1, "submitted", "submitted"), (2, "confirmed", "confirmed"), (3, "corrected", "submitted"),
    ]  # fmt: skip
    assert history[0]["scores"][1]["pips"] == 12
    assert history[2]["scores"][1]["pips"] == 21
    assert history[2]["reason"] == "Bob's 12 was really 21"
    assert history[2]["by"] != history[0]["by"]
    assert history[0]["ip_address"] == "127.0.0.1"


def test_confirming_twice_is_harmless_and_gives_a_new_etag_once(as_official, table, players):
    submitted = put(as_official, table, round_body(players))
    first = as_official.post(url(table, suffix="confirm/"))
    second = as_official.post(url(table, suffix="confirm/"))
    assert first.status_code == second.status_code == 200
    assert first["ETag"] != submitted["ETag"]
    assert second["ETag"] == first["ETag"]
    assert RoundResultVersion.objects.filter(action="confirmed").count() == 1


def test_confirm_with_a_stale_if_match_is_412(as_official, table, players):
    first = put(as_official, table, round_body(players))
    put(as_official, table, round_body(players, pips=(0, 1, 2, 3)), HTTP_IF_MATCH=first["ETag"])
    response = as_official.post(url(table, suffix="confirm/"), headers={"If-Match": first["ETag"]})
    assert response.status_code == 412
    assert RoundResult.objects.get().status == "submitted"


def test_second_person_rule_is_enforced_on_the_server(as_official, tournament, table, players):
    table.stage.requires_second_person = True
    table.stage.save()
    put(as_official, table, round_body(players))
    refused = as_official.post(url(table, suffix="confirm/"))
    assert refused.status_code == 400
    assert "Another official must confirm" in refused.json()["non_field_errors"][0]
    assert RoundResult.objects.get().status == "submitted"
    colleague = factories.StaffFactory(tournament=tournament, role="official").user
    assert client_for(colleague).post(url(table, suffix="confirm/")).status_code == 200


def test_confirm_without_a_result_is_404_and_says_so(as_official, table):
    refused = as_official.post(url(table, suffix="confirm/"))
    assert refused.status_code == 404
    assert refused.json()["detail"] == (
        "This round has no result at this table yet (or there is no such table)."
    )
    assert not RoundResult.objects.exists()


def test_closed_stage_refuses_entry_and_confirmation(as_official, table, players):
    put(as_official, table, round_body(players))
    table.stage.status = "closed"
    table.stage.save()
    response = put(as_official, table, round_body(players), round_no=2)
    assert response.status_code == 409
    # An official cannot change a closed stage's results: the answer says who can, and what
    # that correction undoes.
    assert response.json()["detail"] == (
        "Qualifying is closed: only an organiser can correct its results. Correcting one reopens "
        "the stage and undoes what its close did (the next stage's seats, the placings): ask an "
        "organiser."
    )
    assert as_official.post(url(table, suffix="confirm/")).status_code == 409
    assert RoundResult.objects.count() == 1


@pytest.mark.parametrize(("client", "status"), [("anon", 401), ("as_other_organiser", 403)])
def test_entry_needs_staff_of_this_tournament(request, table, players, client, status):
    as_client = request.getfixturevalue(client)
    assert put(as_client, table, round_body(players)).status_code == status
    assert not RoundResult.objects.exists()
    factories.RoundResultFactory(table=table, stage=table.stage)
    assert as_client.post(url(table, suffix="confirm/")).status_code == status
    assert as_client.get(url(table, suffix="history/")).status_code == status
    assert RoundResult.objects.get().status == "submitted"


def test_another_tournaments_official_cannot_enter(table, players):
    stranger = factories.StaffFactory(role="official").user
    assert put(client_for(stranger), table, round_body(players)).status_code == 403


def test_unknown_table_is_404(as_official, players):
    assert as_official.put("/api/v1/tables/999999/rounds/1/", {}, format="json").status_code == 404


def test_overlong_idempotency_key_is_400(as_official, table, players):
    response = put(as_official, table, round_body(players), HTTP_IDEMPOTENCY_KEY="k" * 201)
    assert response.status_code == 400
    assert not RoundResult.objects.exists()


def test_entering_and_confirming_a_round_take_a_bounded_number_of_queries(
    official, table, players, django_assert_max_num_queries
):
    # Each request is an official waiting at a table: the answer and the history are built from
    # what the request has already read or written, not read again.
    client = client_for(official)
    # 13, and one for the tournament's time zone on a table's first request in a process in
    # 30 s (config.middleware; the confirmation below finds it kept).
    with django_assert_max_num_queries(14):
        response = put(client, table, round_body(players), HTTP_IDEMPOTENCY_KEY="tablet-1-r1")
    assert response.status_code == 201
    # 10, and the stage's row locked before the result's (a close waits for the confirmation):
    # the result and its scores are read once, under the locks, for the history and the answer.
    with django_assert_max_num_queries(11):
        confirmed = client.post(url(table, 1, "confirm/"), HTTP_IF_MATCH=response["ETag"])
    assert confirmed.status_code == 200
    history = RoundResultVersion.objects.filter(result__table=table).order_by("version")
    assert [[s["name"] for s in v.scores] for v in history] == [["Ann", "Bob", "Cy", "Di"]] * 2
    assert [s["name"] for s in confirmed.json()["scores"]] == ["Ann", "Bob", "Cy", "Di"]


def test_a_field_the_round_would_not_use_is_named_not_dropped(as_official, table, players):
    body = round_body(players)
    body["notes"] = "Bob arrived late"
    body["scores"][1] = {"player": players[1].pk, "pips": 0, "wentout": True}  # misspelt
    response = put(as_official, table, body)
    assert response.status_code == 400
    errors = response.json()
    assert errors["notes"] == ["Unknown field: the fields are blocked, scores, reason."]
    assert (
        "Score 2 has the unknown field 'wentout': a score has player, pips, went_out, checked."
        in errors["scores"]
    )
    assert not RoundResult.objects.exists()


def test_a_body_that_is_not_json_is_said_so_in_the_readers_language(as_official, table, players):
    for language, expected in (
        ("en", "The body is not valid JSON: look near line 1, column 2."),
        ("es", "El cuerpo no es JSON válido: mire cerca de la línea 1, columna 2."),
    ):
        response = as_official.put(
            url(table),
            "{blocked: false}",
            content_type="application/json",
            HTTP_ACCEPT_LANGUAGE=language,
        )
        assert response.status_code == 400
        assert response.json() == {"detail": expected}
    assert not RoundResult.objects.exists()


def test_what_was_read_can_be_sent_back_with_a_change(as_official, table, players):
    first = put(as_official, table, round_body(players))
    read = as_official.get(url(table)).json()
    read["scores"][1]["pips"] = 21  # Bob's 12 was 21
    # The same moment, its offset written as a client's JSON library may write it.
    assert read["updated_at"].endswith("+00:00")
    read["updated_at"] = read["updated_at"].replace("+00:00", "Z")
    again = put(as_official, table, read, HTTP_IF_MATCH=first["ETag"])
    assert again.status_code == 200, again.json()
    assert [s["pips"] for s in again.json()["scores"]] == [0, 21, 30, 7]
    # What was read before that change is no longer this round: it says so, and saves nothing.
    read["scores"][1]["pips"] = 20
    stale = put(as_official, table, read, HTTP_IF_MATCH=again["ETag"])
    assert stale.status_code == 400
    assert stale.json()["version"] == [
        "This round's version is 2, not 1: Roundhouse sets it. Read the round again, or leave "
        "the field out."
    ]
    assert RoundResult.objects.get().version == 2


def test_what_was_read_is_refused_when_sent_to_another_round_or_table(
    as_official, stage, table, players
):
    first = put(as_official, table, round_body(players))
    read = as_official.get(url(table)).json()
    # Round 1's answer sent to round 2's address: saved there, it would be round 2's scores.
    moved = put(as_official, table, read, round_no=2)
    assert moved.status_code == 400
    assert moved.json()["round_no"] == [
        "This round's round_no is 2, not 1: Roundhouse sets it. Check that you are sending to "
        "the right table and round, or leave the field out."
    ]
    assert moved.json()["engine"][0].startswith("This round's engine is 11, not 12")
    # A round with no result has no status, version or authors.
    assert moved.json()["version"] == [
        "This round has no result yet, so it has no version: Roundhouse sets it. Leave the "
        "field out."
    ]
    assert RoundResult.objects.filter(round_no=2).count() == 0
    other = factories.TableFactory(stage=stage, number=2)
    others = []
    for position, name in enumerate(["Eve", "Flo", "Gus", "Hal"], start=1):
        player = factories.PlayerFactory(
            tournament=stage.tournament, number=4 + position, name=name
        )
        factories.SeatFactory(table=other, player=player, position=position)
        others.append(player)
    # Table 1's round, its scores put right for table 2's players, sent to table 2's address.
    elsewhere = put(as_official, other, {**read, "scores": round_body(others)["scores"]})
    assert elsewhere.status_code == 400
    assert elsewhere.json()["table"][0].startswith(
        f"This round's table is {other.pk}, not {table.pk}"
    )
    assert not RoundResult.objects.filter(table=other).exists()
    assert RoundResult.objects.get().version == 1 and first.status_code == 201


def test_a_status_sent_back_changed_is_refused_not_taken_as_a_confirmation(
    as_official, table, players
):
    first = put(as_official, table, round_body(players))
    read = as_official.get(url(table)).json()
    read["status"] = "confirmed"
    refused = put(as_official, table, read, HTTP_IF_MATCH=first["ETag"])
    assert refused.status_code == 400
    assert refused.json()["status"] == [
        'This round\'s status is "submitted", not "confirmed": Roundhouse sets it. A result is '
        "confirmed with its confirm address, once it is saved."
    ]
    result = RoundResult.objects.get()
    assert (result.status, result.version) == ("submitted", 1)


def test_a_score_naming_another_player_than_its_id_is_refused(as_official, table, players):
    body = round_body(players)
    ann, bob = players[0], players[1]
    # The tablet swapped two ids: Bob's 12 pips would go to Ann's line.
    body["scores"][0].update(player=bob.pk, number=ann.number, name=ann.name)
    body["scores"][1].update(player=ann.pk, number=bob.number, name=bob.name)
    response = put(as_official, table, body)
    assert response.status_code == 400
    assert (
        f"Score 1 is for player {bob.pk}, who is #{bob.number} Bob, not {ann.number}, "
        '"Ann": check which player this score is for.'
    ) in response.json()["scores"]
    assert len(response.json()["scores"]) == 2
    assert not RoundResult.objects.exists()
    # The name alone, or the number alone, is checked as well; the right ones pass.
    body = round_body(players)
    body["scores"][2]["name"] = "Cyrus"
    assert put(as_official, table, body).status_code == 400
    body["scores"][2].update(name="Cy", number=players[2].number)
    assert put(as_official, table, body).status_code == 201


def test_the_history_says_where_each_version_came_from(official, table, players):
    """The tablet's entry page sends its rounds to this API, signed in by the session: its
    versions come from the web pages, like a confirmation there. A script's token: the API."""
    tablet = client_for(None)
    tablet.force_login(official)
    first = put(tablet, table, round_body(players), HTTP_IDEMPOTENCY_KEY="tablet-t1-r1")
    assert first.status_code == 201
    script = client_for(None)
    token = script.post(
        "/api/v1/auth/token/",
        {"username": official.username, "password": "a-long-test-password"},
        format="json",
    ).json()["token"]
    script.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    body = round_body(players, pips=(0, 13, 30, 7))
    assert put(script, table, body, HTTP_IF_MATCH=first["ETag"]).status_code == 200
    history = tablet.get(url(table, suffix="history/")).json()
    assert [(v["version"], v["source"]) for v in history] == [(1, "web"), (2, "api")]
