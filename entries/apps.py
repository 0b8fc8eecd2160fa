from django.apps import AppConfig


class EntriesConfig(AppConfig):
    name = "entries"
    verbose_name = "Entries"

    def ready(self) -> None:
        from entries import tasks  # noqa: F401 (registers the tasks in every process)

        # tables and scoring tell of seats and placings by signals: neither imports entries.
        from entries.receivers import entries_settings_changed, results_to_tell, seats_to_tell
        from scoring.signals import placings_decided
        from tables.signals import seating_changed
        from tournaments.signals import tournament_changed

        seating_changed.connect(seats_to_tell, dispatch_uid="entries-tell-seats")
        placings_decided.connect(results_to_tell, dispatch_uid="entries-tell-results")
        # A tournament's entries' settings changed: the places freed are offered at once.
        tournament_changed.connect(
            entries_settings_changed, dispatch_uid="entries-settings-changed"
        )
