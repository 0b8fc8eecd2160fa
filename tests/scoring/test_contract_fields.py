"""The API's round-result serializers (what the schema, and so the generated client, says) and the
one parser and renderer of a round result's body (scoring/services/bodies.py, which the API, the
entry page and the CSV import share, in the contract's order of checks) name the same fields: a
field added to one and not the other fails here before a client finds it."""

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
