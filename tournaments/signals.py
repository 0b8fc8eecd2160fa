"""Signals of changes to players, so that standings (in scoring) follow without tournaments
importing it; and what a deleted tournament takes along."""

from django.db.models.signals import post_delete
from django.dispatch import Signal, receiver

from tournaments.models import Player, Tournament

# Sent with `player` after what the pages show of a player changed: their name, number, club.
player_changed = Signal()

# Sent with `tournament` after its divisions changed (one added, renamed, moved or removed): the
# standings pages list them in their division switch.
divisions_changed = Signal()

# Sent by import_players, inside its transaction, with `tournament` and `numbers` ({player id:
# member number} for the rows that gave one), so that clubs links them. A receiver returns a
# list of sentences for the organiser (the numbers it could not link).
players_imported = Signal()


@receiver(post_delete, sender=Tournament)
def forget_players_history(sender: type[Tournament], instance: Tournament, **kwargs) -> None:
    """A deleted tournament leaves none of its players' entries behind in their history (the
    "Deleted" entries its players' own deletion just wrote included)."""
    Player.history.filter(tournament_id=instance.pk).delete()
