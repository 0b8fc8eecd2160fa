from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and seating"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from tables import (
            checks,  # noqa: F401  (registers the system checks)
            receivers,
        )
        from tournaments.signals import reporting_changed

        reporting_changed.connect(receivers.reporting_changed, dispatch_uid="tables-reporting")
        user_logged_out.connect(receivers.seat_left, dispatch_uid="tables-seat-left")
