from django.apps import AppConfig


class EntriesConfig(AppConfig):
    name = "entries"
    verbose_name = "Entries"

    def ready(self) -> None:
        from entries import tasks  # noqa: F401 (registers the tasks in every process)
