from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from config import checks  # noqa: F401 (registers the deployment checks)
        from tournaments import signals  # noqa: F401 (connects its receivers)
