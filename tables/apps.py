from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and seating"

    def ready(self) -> None:
        from tables import checks  # noqa: F401  (registers the system checks)
