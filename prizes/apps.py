from django.apps import AppConfig


class PrizesConfig(AppConfig):
    name = "prizes"
    verbose_name = "Prizes"

    def ready(self) -> None:
        # The results page, its PDF and the certificates are scoring's, which imports nothing of
        # prizes: they ask scoring.awards, where this app puts the announced prizes.
        from prizes.selectors import put_awards
        from scoring import awards

        awards.register(put_awards)
