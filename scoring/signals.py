"""scoring's custom signals: what it tells the apps above it (clubs), which it never imports,
and what its worker asks of its own public pages before a new snapshot goes out.

The contract, for each signal: who sends it, with what; who listens (every `connect` is in an
AppConfig.ready, named here); and what a receiver may do. A receiver runs in the sender's
process; these are sent from `on_commit(..., robust=True)` or with `send_robust`, so a
receiver's exception is logged and never undoes the sender's work.

- placings_decided(tournament): sent by scoring/services/closing.py decide_placings and
  scoring/services/reopen.py reopen_locked once the placings are committed (or, after a
  reopen, removed). Listeners: clubs/receivers.py rebuild_ladders (connected in clubs/apps.py)
  and entries/receivers.py results_to_tell (entries/apps.py). A receiver may queue work (a
  ladder rebuild, the results mailed to the placed players); it must not write to scoring's
  models.
- results_changed(stage): sent by scoring/standings/rebuild.py _rebuild after every rebuild
  that changed the stage's standings is committed. Listener: clubs/receivers.py
  rate_after_results (clubs/apps.py). A receiver may queue work (a rating run); it must not
  write to scoring's models.
- snapshot_announcing(stage_id, languages; sender=None): sent by scoring/announce.py
  announce_rebuild (`send_robust`) in the worker before a new version is warmed and announced
  (live push). Listener: scoring/standings_html.py draw_standings_tables (scoring/apps.py). A
  receiver draws and keeps the snapshot's tables in those languages and returns how many pages
  of rows the home page's standings have (an int).

scoring/apps.py also connects tournaments' and tables' signals to scoring/receivers.py
(tournaments/signals.py and tables/signals.py name them)."""

from django.dispatch import Signal

placings_decided = Signal()
results_changed = Signal()
snapshot_announcing = Signal()
