from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # The tasks are registered in every process (the web's too): scoring.queue sends them
        # by name.
        from scoring import standings, tasks  # noqa: F401
        from tables.signals import seating_changed
        from tournaments.models import Stage
        from tournaments.signals import divisions_changed, player_changed

        def seats_changed(sender, *, stage, **kwargs) -> None:
            standings.request_rebuild(stage)

        def player_edited(sender, *, player, **kwargs) -> None:
            # The pages show the snapshot's version: a new one shows the player as corrected.
            for stage in Stage.objects.filter(seats__player=player):
                standings.request_rebuild(stage)

        def divisions_edited(sender, *, tournament, **kwargs) -> None:
            # The standings pages list the divisions: a new snapshot shows them as they are.
            for stage in tournament.stages.exclude(status=Stage.Status.PENDING):
                standings.request_rebuild(stage)

        seating_changed.connect(seats_changed, dispatch_uid="scoring-standings-seating")
        # Live push: the worker draws a new snapshot's tables before announcing it.
        from scoring import announce, standings_html

        announce.snapshot_announcing.connect(
            standings_html.draw_standings_tables, dispatch_uid="scoring-public-draw-tables"
        )
        player_changed.connect(player_edited, dispatch_uid="scoring-standings-player")
        divisions_changed.connect(divisions_edited, dispatch_uid="scoring-standings-divisions")
