"""What clubs does when tournaments tells it something (tournaments never imports clubs)."""

from typing import Any

from clubs import services
from tournaments.models import Tournament


def link_imported_players(
    sender: Any, *, tournament: Tournament, numbers: dict[int, str], by: Any = None, **kwargs: Any
) -> list[str]:
    """Players imported with member numbers: linked to the members with them; the sentences say
    which numbers were not."""
    return services.link_by_numbers(tournament=tournament, numbers=numbers, by=by)
