"""Signals of changes to players, so that standings (in scoring) follow without tournaments
importing it; and what a deleted tournament takes along."""

from django.db.models.signals import post_delete
from django.dispatch import Signal, receiver

from tournaments.models import Player, Tournament

# Sent with `player` after what the pages show of a player changed: their name, number, club.
player_changed = Signal()

# Sent with `tournament` after something all its played stages' public pages show changed, not
# a stage's results or seats: its divisions (one added, renamed, moved or removed: the division
# switch), its time zone (the standings' "Updated" time) or its address (every link).
tournament_changed = Signal()

# Sent with `tournament` after its stages' settings or sequence changed (a stage added, removed or
# changed, here or in the admin): a seated stage's rounds and engines, and who advances from it
# (what follows it); in the stage switch, an earlier stage's name.
stages_changed = Signal()

# Sent by import_players, inside its transaction, with `tournament` and `numbers` ({player id:
# member number} for the rows that gave one), so that clubs links them. A receiver returns a
# list of sentences for the organiser (the numbers it could not link).
players_imported = Signal()


@receiver(post_delete, sender=Tournament)
def forget_players_history(sender: type[Tournament], instance: Tournament, **kwargs) -> None:
    """A deleted tournament leaves none of its players' entries behind in their history (the
    "Deleted" entries its players' own deletion just wrote included)."""
    Player.history.filter(tournament_id=instance.pk).delete()
