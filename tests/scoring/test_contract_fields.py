"""A round's body is defined once (RoundResultInput, scoring/services/bodies.py): the serializer
the schema, and so the generated client, shows is what reads the body of the API, the entry page
and the CSV import. The answer's serializers name the fields its renderer answers: a field added
to one and not the other fails here before a client finds it."""

import pytest

from scoring.api_serializers import RoundResultInput, RoundResultOutput, ScoreInput, ScoreOutput
from scoring.services.bodies import (
    ANSWER_FIELDS,
    SCORE_ANSWER_FIELDS,
    SCORE_FIELDS,
    SUBMISSION_FIELDS,
    WORKED_OUT_FIELDS,
)
from tests.conftest import client_for
from tests.scoring.conftest import round_body


def test_what_the_schema_says_a_request_holds_is_what_is_read():
    assert set(RoundResultInput().fields) == set(SUBMISSION_FIELDS)
    assert set(ScoreInput().fields) == set(SCORE_FIELDS)


def test_what_the_schema_says_an_answer_holds_is_what_is_answered():
    assert set(RoundResultOutput().fields) == {
        *ANSWER_FIELDS,
        *WORKED_OUT_FIELDS,
        "blocked",
        "scores",
    }
    assert set(ScoreOutput().fields) == {*SCORE_FIELDS, *SCORE_ANSWER_FIELDS}


@pytest.mark.django_db
def test_a_real_answer_has_exactly_the_schemas_fields(official, table, players):
    answer = client_for(official).put(
        f"/api/v1/tables/{table.pk}/rounds/1/", round_body(players), format="json"
    )
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) == set(RoundResultOutput().fields)
    assert {key for score in body["scores"] for key in score} == set(ScoreOutput().fields)


# What a malformed body changes of a good one: the body's fields, or its first score's.
MALFORMED = {
    "blocked as a word": ({"blocked": "yes"}, {}),
    "blocked null": ({"blocked": None}, {}),
    "blocked as a number": ({"blocked": 1}, {}),
    "reason as a number": ({"reason": 7}, {}),
    "reason too long": ({"reason": "x" * 1001}, {}),
    "reason with a NUL": ({"reason": "a\x00b"}, {}),
    "scores as text": ({"scores": "all zero"}, {}),
    "no scores": ({"scores": []}, {}),
    "a score without its player": ({}, {"player": None}),
    "a player id as text": ({}, {"player": "1"}),
    "a misspelt field": ({}, {"wentout": True}),
    "checked as a word": ({}, {"checked": "no"}),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", MALFORMED)
def test_the_schemas_round_body_is_what_refuses_a_malformed_one(official, table, players, name):
    """The serializer the schema shows is the one that validates: a client validating with the
    schema's RoundResultInput is refused what the API refuses, in the same words."""
    body_change, score_change = MALFORMED[name]
    body = round_body(players) | body_change
    if score_change:
        body["scores"][0] |= score_change
    answer = client_for(official).put(f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json")
    assert answer.status_code == 400
    serializer = RoundResultInput(data=body)
    assert not serializer.is_valid()
    said = {key: [str(m) for m in messages] for key, messages in serializer.errors.items()}
    assert said == answer.json()
