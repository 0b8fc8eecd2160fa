"""tournaments' custom signals: what it tells the apps above it (scoring, clubs), which it never
imports; and what a deleted tournament takes along.

The contract, for each signal: who sends it, with what; who listens (every `connect` is in an
AppConfig.ready, named here); and what a receiver may do. A receiver runs synchronously, in the
sender's process and transaction: its exception fails the sender's change.

- player_changed(player): sent by services/players.py update_player and
  update_players_from_csv, and admin.py PlayerAdmin.save_model. Listener: scoring/receivers.py
  player_edited (connected in scoring/apps.py). A receiver may ask for rebuilds
  (request_rebuild), nothing more.
- tournament_changed(tournament): sent by services/divisions.py (a division created, changed,
  moved or removed), services/tournaments.py update_details and update_visibility, and
  admin.py TournamentAdmin.save_related. Listeners: scoring/receivers.py tournament_edited
  (scoring/apps.py), which may ask for rebuilds, nothing more; entries/receivers.py
  entries_settings_changed (entries/apps.py), which offers the places a change freed to the
  waitlist (entering.apply_expiry), nothing more.
- stages_changed(tournament): sent by services/stage_changes.py create_stage, remove_stage and
  update_stage, the admin (TournamentAdmin.save_related, StageAdmin.save_model),
  scoring/services/reopen.py reopen_locked and scoring/services/practice.py reset_practice.
  Listener: scoring/receivers.py stages_edited (scoring/apps.py). A receiver may ask for
  rebuilds, nothing more.
- reporting_changed(stage): sent by services/stage_changes.py update_stage, in its transaction,
  when who enters the stage's rounds (Stage.reporting) changed. Listener: tables/receivers.py
  reporting_changed (tables/apps.py), which ends the seats' claims (back to the officials) or
  gives every table back to its players; nothing more.
- players_imported(tournament, numbers, by): sent by services/players.py import_players inside
  its transaction. Listener: clubs/receivers.py link_imported_players (clubs/apps.py). A
  receiver may write its own app's rows (links to members) and returns an ImportLinks (the
  sentences for the organiser, the numbers no member has); its exception fails the import.

Django's post_delete of a Tournament: forget_players_history, below."""

from typing import NamedTuple

from django.db.models.signals import post_delete
from django.dispatch import Signal, receiver

from tournaments.models import Player, Tournament

# Sent with `player` after what the pages show of a player changed: their name, number, club.
player_changed = Signal()

# Sent with `tournament` after something all its played stages' public pages show changed, not
# a stage's results or seats: its divisions (one added, renamed, moved or removed: the division
# switch), its time zone (the standings' "Updated" time), its address (every link) or how it
# takes entries (the "Enter" link; the places a raised cap freed).
tournament_changed = Signal()

# Sent with `tournament` after its stages' settings or sequence changed (a stage added, removed or
# changed, here or in the admin): a seated stage's rounds and engines, and who advances from it
# (what follows it); in the stage switch, an earlier stage's name.
stages_changed = Signal()

# Sent with `stage` after who enters its rounds changed (officials or players).
reporting_changed = Signal()

# Sent by import_players, inside its transaction, with `tournament` and `numbers` ({player id:
# member number} for the rows that gave one), so that clubs links them. A receiver returns an
# ImportLinks.
players_imported = Signal()


class ImportLinks(NamedTuple):
    """What a players_imported receiver answers: sentences for the organiser, and the member
    numbers of the file that no member has (the API names them)."""

    notes: list[str]
    unknown_numbers: list[str]


@receiver(post_delete, sender=Tournament)
def forget_players_history(sender: type[Tournament], instance: Tournament, **kwargs) -> None:
    """A deleted tournament leaves none of its players' entries behind in their history (the
    "Deleted" entries its players' own deletion just wrote included)."""
    Player.history.filter(tournament_id=instance.pk).delete()
