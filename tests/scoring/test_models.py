"""The database refuses a second result per table and round, and scores that break the rules."""

import pytest
from django.db import IntegrityError, transaction

from scoring.models import RoundResultVersion
from tests import factories

pytestmark = pytest.mark.django_db


def refused(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_one_round_result_per_table_and_round():
    result = factories.RoundResultFactory(round_no=1)
    refused(lambda: factories.RoundResultFactory(table=result.table, round_no=1))
    assert factories.RoundResultFactory(table=result.table, round_no=2).round_no == 2


@pytest.mark.parametrize(
    "fields",
    [{"round_no": 0}, {"version": 0}, {"status": "draft"}, {"status": "confirmed"}],
    ids=["round-zero", "version-zero", "unknown-status", "confirmed-without-confirmer"],
)
def test_round_result_bad_values_are_refused(fields):
    refused(lambda: factories.RoundResultFactory(**fields))


def test_one_score_per_player_per_result():
    score = factories.ScoreFactory()
    refused(lambda: factories.ScoreFactory(result=score.result, player=score.player))


def test_player_who_went_out_scores_zero():
    refused(lambda: factories.ScoreFactory(pips=5, went_out=True))
    assert factories.ScoreFactory(pips=0, went_out=True).went_out


def test_negative_pips_are_refused():
    refused(lambda: factories.ScoreFactory(pips=-1))


def test_version_numbers_unique_and_corrections_need_a_reason():
    result = factories.RoundResultFactory()
    user = result.submitted_by
    fields = {"result": result, "status": "submitted", "blocked": False, "scores": [], "by": user}
    RoundResultVersion.objects.create(version=1, action="submitted", **fields)
    refused(lambda: RoundResultVersion.objects.create(version=1, action="replaced", **fields))
    refused(lambda: RoundResultVersion.objects.create(version=2, action="corrected", **fields))
    assert RoundResultVersion.objects.create(
        version=2, action="corrected", reason="Ann's 15 was 51", **fields
    ).pk
