"""A round's history: every version kept, with who made it, from where and why."""

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from scoring.models import RoundResult, RoundResultVersion, Score
from scoring.services.bodies import checked_players, score_body


@dataclass(frozen=True)
class RequestMeta:
    """Where a change came from, for the history."""

    source: str = "api"
    ip_address: str | None = None
    user_agent: str = ""


def record_version(
    result: RoundResult,
    *,
    scores: list[Score],
    action: str,
    by: AbstractBaseUser,
    meta: RequestMeta,
    reason: str = "",
) -> None:
    """Keep this version in the history; scores with their players, as _scores_of gives them."""
    RoundResultVersion.objects.create(
        result=result,
        version=result.version,
        action=action,
        status=result.status,
        blocked=result.blocked,
        scores=[
            score_body(s, s.player_id in checked_players(result))
            for s in sorted(scores, key=lambda s: s.player.number)
        ],
        by=by,
        source=meta.source,
        ip_address=meta.ip_address,
        user_agent=meta.user_agent[:300],
        reason=reason,
        warnings=result.warnings,
    )
