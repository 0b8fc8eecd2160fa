from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubsConfig(AppConfig):
    name = "clubs"
    verbose_name = _("Clubs")

    def ready(self) -> None:
        # tournaments tells of imported players by a signal: it never imports clubs.
        from clubs.receivers import link_imported_players
        from tournaments.signals import players_imported

        players_imported.connect(link_imported_players, dispatch_uid="clubs-link-imported")
