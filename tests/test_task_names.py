"""The tasks sent by name (config/task_names.py) are sent to the task that does the work: a name
that drifted from its task (a task renamed or moved) would be queued for no worker, and nothing
would rebuild the standings, advance a stage, close a game, rate a club or send a mail."""

import pytest
from celery import current_app

from clubs import tasks as clubs_tasks
from config import task_names
from entries import tasks as entries_tasks
from scoring import tasks as scoring_tasks

SENT_BY_NAME = {
    task_names.REBUILD_STANDINGS: scoring_tasks.rebuild_standings,
    task_names.ADVANCE_FROM_STAGE: scoring_tasks.advance_from_stage,
    task_names.CLOSE_GAME: scoring_tasks.close_game,
    task_names.RATE_CLUB: clubs_tasks.rate_club,
    task_names.REBUILD_LADDER: clubs_tasks.rebuild_ladder,
    task_names.SEND_DELIVERY: entries_tasks.send_delivery,
}


def test_every_name_is_listed():
    names = {value for key, value in vars(task_names).items() if key.isupper()}
    assert names == set(SENT_BY_NAME)


@pytest.mark.parametrize("name", SENT_BY_NAME)
def test_each_name_is_its_tasks(name):
    assert SENT_BY_NAME[name].name == name
    assert current_app.tasks[name] is SENT_BY_NAME[name]._get_current_object()
