from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from scoring import standings
        from tables.signals import seating_changed

        def seats_changed(sender, *, stage, **kwargs) -> None:
            standings.request_rebuild(stage)

        seating_changed.connect(seats_changed, dispatch_uid="scoring-standings-seating")
