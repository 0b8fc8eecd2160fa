"""Signals of changes to players, so that standings (in scoring) follow without tournaments
importing it."""

from django.dispatch import Signal

# Sent with `player` after what the pages show of a player changed: their name, number, club.
player_changed = Signal()
