"""tables' custom signal: seating changes, so that standings (in scoring) follow without tables
importing it.

- seating_changed(stage): sent by services.py seat_stage, clear_seating, add_late_player,
  withdraw_player and reinstate_player, in the seating's transaction. Listeners:
  scoring/receivers.py seats_changed (connected in scoring/apps.py), and entries/receivers.py
  seats_to_tell (entries/apps.py). A receiver may ask for a rebuild of the stage's standings
  (request_rebuild), or register work for after the commit (entries mails the seats not told
  yet, robust=True), nothing more; its exception fails the seating.

tables also takes a hook from above that is not a signal: the strengths provider
(tables/strengths.py), registered by clubs/apps.py."""

from django.dispatch import Signal

# Sent with `stage` after seats of the stage changed: seated, reseated, a late player, a withdrawal.
seating_changed = Signal()
