import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse

from clubs.demo import SEASON_SLUG, load_club_demo
from config.lan import ALL_INTERFACES, lan_address
from entries.demo import demo_entry, load_entries_demo
from scoring.demo import DEMO_OFFICIAL, DEMO_ORGANISER, DEMO_PASSWORD, load_demo, pending_invitation
from scoring.demo_club_night import CLUB_NIGHT_SLUG, demo_seat_link
from tournaments.models import Tournament

# Celery logs every task it runs inline at INFO ("Task ... succeeded in 0.01s"): loading the demo
# runs hundreds. kombu warns that the inline broker (memory://) names no host. Neither says
# anything to someone trying the demo; a task that fails still logs its error.
QUIET_WHILE_LOADING = {"celery.app.trace": logging.WARNING, "kombu.connection": logging.ERROR}


@contextmanager
def quiet_task_log() -> Iterator[None]:
    loggers = {logging.getLogger(name): level for name, level in QUIET_WHILE_LOADING.items()}
    before = {logger: logger.level for logger in loggers}
    for logger, level in loggers.items():
        logger.setLevel(level)
    try:
        yield
    finally:
        for logger, level in before.items():
            logger.setLevel(level)


def where_mail_goes() -> str:
    """Where the site's mails (invitations, password resets) go, as make run says it."""
    if not settings.EMAIL_URL:
        return "printed in this console (set EMAIL_URL, e.g. smtp://127.0.0.1:2525, to send it)"
    return f"sent through {settings.EMAIL_HOST}:{settings.EMAIL_PORT} (EMAIL_URL)"


class Command(BaseCommand):
    help = (
        "Load the demo tournaments and club once (running it again keeps the data) and print "
        "the addresses and the logins, last."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", default="8000")
        parser.add_argument(
            "--host",
            default="127.0.0.1",
            help="where the server will listen; 0.0.0.0 also prints the machine's LAN address",
        )

    def handle(self, *args, port: str, host: str, **options) -> None:
        with quiet_task_log():
            tournament, created = load_demo()
            users = get_user_model().objects
            club = load_club_demo(
                users.get(username=DEMO_ORGANISER), users.get(username=DEMO_OFFICIAL)
            )
            entries_event = load_entries_demo(
                users.get(username=DEMO_ORGANISER), users.get(username=DEMO_OFFICIAL)
            )
            invitation = pending_invitation(tournament)
        local = "127.0.0.1" if host in ALL_INTERFACES else host
        base = f"http://{local}:{port}"
        lan = lan_address() if host in ALL_INTERFACES else None
        lan_base = f"http://{lan}:{port}" if lan else None
        join = (lan_base or base) + reverse("join", kwargs={"key": invitation.key})
        if host in ALL_INTERFACES:
            network = (
                f"  On the network   {lan_base}/ (a tablet or phone on the same Wi-Fi)\n"
                if lan
                else "  On the network   no LAN address found: is this machine on a network?\n"
            )
        else:
            network = "  On the network   HOST=0.0.0.0 make run, for a tablet on the same Wi-Fi\n"
        entry = demo_entry(entries_event)
        seat = demo_seat_link(Tournament.objects.get(slug=CLUB_NIGHT_SLUG))
        club_night = (
            f"  Club night       {base}/t/{CLUB_NIGHT_SLUG}/ (its players enter their rounds:\n"
            f"                   {base}/seat/{seat[0]}/ with badge {seat[1]})\n"
            if seat
            else ""
        )
        own_page = (
            f"  An entry's page  {base}/t/{entries_event.slug}/entry/{entry.manage_key}/\n"
            if entry
            else ""
        )
        self.stdout.write(
            ("Loaded" if created else "Kept") + f" the demo tournament {tournament.name!r}.\n"
            f"  Mail             {where_mail_goes()}\n"
            f"  An invitation to try (official of {tournament.name}, works once):\n"
            f"                   {join}\n\n"
            f"  Tournaments      {base}/\n"
            f"  Demo event       {base}/t/{tournament.slug}/\n"
            f"  Demo club        {base}/c/{club.slug}/ (its ladder: {base}/c/{club.slug}/seasons/"
            f"{SEASON_SLUG}/)\n"
            f"  Entries open     {base}/t/{entries_event.slug}/register/ ({entries_event.name})\n"
            f"{own_page}"
            f"{club_night}"
            f"  API docs         {base}/api/v1/docs/\n"
            f"  Admin            {base}/admin/\n"
            f"  Sign up          {base}/accounts/signup/"
            f" (ROUNDHOUSE_SIGNUP={settings.ROUNDHOUSE_SIGNUP})\n"
            f"{network}\n"
            f"  Organiser login  {DEMO_ORGANISER} / {DEMO_PASSWORD}\n"
            f"  Official login   {DEMO_OFFICIAL} / {DEMO_PASSWORD}\n"
            f"  Superuser        admin / {DEMO_PASSWORD}\n"
        )
