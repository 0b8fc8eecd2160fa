from django.core.management.base import BaseCommand

from scoring.demo import DEMO_OFFICIAL, DEMO_ORGANISER, DEMO_PASSWORD, load_demo


class Command(BaseCommand):
    help = "Load the demo tournament once (running it again keeps the data) and print the logins."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", default="8000")

    def handle(self, *args, port: str, **options) -> None:
        tournament, created = load_demo()
        base = f"http://127.0.0.1:{port}"
        self.stdout.write(
            ("Loaded" if created else "Kept") + f" the demo tournament {tournament.name!r}.\n\n"
            f"  Tournaments      {base}/\n"
            f"  Demo event       {base}/t/{tournament.slug}/\n"
            f"  API docs         {base}/api/v1/docs/\n"
            f"  Admin            {base}/admin/\n\n"
            f"  Organiser login  {DEMO_ORGANISER} / {DEMO_PASSWORD}\n"
            f"  Official login   {DEMO_OFFICIAL} / {DEMO_PASSWORD}\n"
            f"  Superuser        admin / {DEMO_PASSWORD}\n"
        )
