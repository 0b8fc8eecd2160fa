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

        # Seating asks tables.strengths for ratings: tables never imports clubs.
        from clubs.selectors import player_strengths
        from tables import strengths

        strengths.register(player_strengths)

        # scoring tells of committed results by a signal: it never imports clubs. The tasks are
        # registered in every process (the web's too): clubs.rating_store sends them by name.
        from clubs import tasks  # noqa: F401
        from clubs.receivers import rate_after_results
        from scoring.signals import results_changed

        results_changed.connect(rate_after_results, dispatch_uid="clubs-rate-after-results")

        # ... and of decided placings: a season's ladder counts them.
        from clubs.receivers import rebuild_ladders
        from scoring.signals import placings_decided

        placings_decided.connect(rebuild_ladders, dispatch_uid="clubs-rebuild-ladders")

        # A tournament that leaves the club (or is deleted) or whose date moves changes what
        # the ratings and the ladder count.
        from django.db.models.signals import post_delete, post_save

        from clubs.models import ClubTournament
        from clubs.receivers import forget_tournament, tournament_saved
        from tournaments.models import Tournament

        post_delete.connect(forget_tournament, sender=ClubTournament, dispatch_uid="clubs-forget")
        post_save.connect(tournament_saved, sender=Tournament, dispatch_uid="clubs-saved")
