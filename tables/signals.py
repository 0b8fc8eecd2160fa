"""Signals of seating changes, so that standings (in scoring) follow without tables importing it."""

from django.dispatch import Signal

# Sent with `stage` after seats of the stage changed: seated, reseated, a late player, a withdrawal.
seating_changed = Signal()
