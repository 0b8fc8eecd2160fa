from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # The tasks are registered in every process (the web's too): scoring.queue sends them
        # by name.
        from config.release import release
        from scoring import receivers, tasks  # noqa: F401

        release()  # at start: every process of one deploy names the same (config/release.py)
        from tables.signals import seating_changed
        from tournaments.signals import player_changed, stages_changed, tournament_changed

        seating_changed.connect(receivers.seats_changed, dispatch_uid="scoring-standings-seating")
        # Live push: the worker draws a new snapshot's tables before announcing it.
        from scoring import signals, standings_html

        signals.snapshot_announcing.connect(
            standings_html.draw_standings_tables, dispatch_uid="scoring-public-draw-tables"
        )
        player_changed.connect(receivers.player_edited, dispatch_uid="scoring-standings-player")
        tournament_changed.connect(
            receivers.tournament_edited, dispatch_uid="scoring-standings-tournament"
        )
        stages_changed.connect(receivers.stages_edited, dispatch_uid="scoring-standings-stages")
