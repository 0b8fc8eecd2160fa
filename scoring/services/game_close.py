"""A game closes itself when its last table confirms its last round, if the next game is seated
from it (Stage.movement): a worker closes it, as the organiser's close does, and the close's
follow-up seats the next game (scoring.services.games)."""

import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import translation

from config import task_names
from scoring import queue
from scoring.services import games
from scoring.services.closing import close_stage, missing_results, record_advance_problem
from tournaments.exceptions import StateConflict
from tournaments.models import Stage

logger = logging.getLogger(__name__)


def after_confirm(stage: Stage) -> None:
    """Called where a result is confirmed: once the transaction commits, if the stage's every
    round is confirmed and the next game is seated from it, ask a worker to close it. Checked
    after the commit, so that of two tables confirming their last rounds together the later
    one sees both."""
    transaction.on_commit(lambda: _send_if_finished(stage.pk))


def _send_if_finished(stage_id: int) -> None:
    # One query after each confirmation for an event whose games are not seated from each other.
    stage = _seated_on().filter(pk=stage_id).first()
    if stage is None or missing_results(stage):
        return
    try:
        queue.send(task_names.CLOSE_GAME, stage_id=stage_id)
    except Exception:  # the broker is down: the organiser closes the game by hand
        logger.warning("games: could not send the close of stage %s", stage_id, exc_info=True)


def games_awaiting_close() -> list[int]:
    """Seated games whose every round is confirmed and whose next game is seated from them, with
    no refusal kept on them: the close a broker outage lost (the sweeper sends it again). A game
    whose close was refused waits for the organiser, who sees why on the console."""
    candidates = _seated_on().filter(advance_problem="")
    return [stage.pk for stage in candidates if not missing_results(stage)]


def _seated_on() -> QuerySet[Stage]:
    """Seated games whose next game is seated from them and not seated yet (games.next_game, in
    SQL)."""
    seated_from = Stage.objects.filter(
        tournament=OuterRef("tournament"),
        order=OuterRef("order") + 1,
        kind=Stage.Kind.QUALIFYING,
        status=Stage.Status.PENDING,
    ).exclude(movement="")
    return Stage.objects.filter(Exists(seated_from), status=Stage.Status.SEATED)


def close_finished_game(*, stage: Stage) -> Stage | None:
    """Close a game whose every round is confirmed, when the next game is seated from it; its
    follow-up seats that game. What refuses the close (a tie that decides something, players
    who do not fit the next game's tables) is kept on the game for the console, in the site's
    language, and the game stays open for the organiser. Sent twice, it closes once."""
    if stage.status != Stage.Status.SEATED or games.next_game(stage) is None:
        return None
    with translation.override(settings.LANGUAGE_CODE):
        try:
            closed = close_stage(stage=stage, by=None)
        except StateConflict as problem:
            record_advance_problem(stage, str(problem))
            logger.warning("games: stage %s did not close itself: %s", stage.pk, problem)
            return None
    record_advance_problem(stage, "")
    return closed
