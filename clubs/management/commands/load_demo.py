from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse

from clubs.demo import SEASON_SLUG, load_club_demo
from scoring.demo import DEMO_OFFICIAL, DEMO_ORGANISER, DEMO_PASSWORD, load_demo, pending_invitation


def where_mail_goes() -> str:
    """Where the site's mails (invitations, password resets) go, as make run says it."""
    if not settings.EMAIL_URL:
        return "printed in this console (set EMAIL_URL, e.g. smtp://127.0.0.1:2525, to send it)"
    return f"sent through {settings.EMAIL_HOST}:{settings.EMAIL_PORT} (EMAIL_URL)"


class Command(BaseCommand):
    help = (
        "Load the demo tournaments and club once (running it again keeps the data) and print "
        "the logins."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", default="8000")

    def handle(self, *args, port: str, **options) -> None:
        tournament, created = load_demo()
        users = get_user_model().objects
        club = load_club_demo(users.get(username=DEMO_ORGANISER), users.get(username=DEMO_OFFICIAL))
        invitation = pending_invitation(tournament)
        base = f"http://127.0.0.1:{port}"
        join = base + reverse("join", kwargs={"key": invitation.key})
        self.stdout.write(
            ("Loaded" if created else "Kept") + f" the demo tournament {tournament.name!r}.\n\n"
            f"  Tournaments      {base}/\n"
            f"  Demo event       {base}/t/{tournament.slug}/\n"
            f"  Demo club        {base}/c/{club.slug}/ (its ladder: {base}/c/{club.slug}/seasons/"
            f"{SEASON_SLUG}/)\n"
            f"  API docs         {base}/api/v1/docs/\n"
            f"  Admin            {base}/admin/\n"
            f"  Sign up          {base}/accounts/signup/"
            f" (ROUNDHOUSE_SIGNUP={settings.ROUNDHOUSE_SIGNUP})\n\n"
            f"  Organiser login  {DEMO_ORGANISER} / {DEMO_PASSWORD}\n"
            f"  Official login   {DEMO_OFFICIAL} / {DEMO_PASSWORD}\n"
            f"  Superuser        admin / {DEMO_PASSWORD}\n\n"
            f"  An invitation to try (official of {tournament.name}, works once):\n"
            f"                   {join}\n"
            f"  Mail             {where_mail_goes()}\n"
        )
