"""What scoring tells the apps above it (clubs), which it never imports."""

from django.dispatch import Signal

# A tournament's placings were decided, or decided again after a correction (scoring.closing):
# sent once the placings are committed, with `tournament`.
placings_decided = Signal()

# A stage's confirmed results changed (a result confirmed, corrected or voided): sent once the
# stage's standings rebuild is committed, with `stage`.
results_changed = Signal()
