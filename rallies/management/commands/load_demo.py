"""make run's demo (clubs' load_demo) with the demo rally added, and its address said among the
others. rallies comes before clubs in INSTALLED_APPS, so `manage.py load_demo` is this one:
clubs, below rallies, cannot load it itself (pyproject.toml, the import rule)."""

from io import StringIO

from django.contrib.auth import get_user_model
from django.core.management.base import OutputWrapper

from clubs.management.commands import load_demo
from config.lan import ALL_INTERFACES
from rallies.demo import load_rally_demo
from scoring.demo import DEMO_OFFICIAL, DEMO_ORGANISER

# The rally's line goes just above this one of clubs' list of addresses.
BEFORE = "  API docs "


class Command(load_demo.Command):
    def handle(self, *args, port: str, host: str, **options) -> None:
        said, screen = StringIO(), self.stdout
        self.stdout = OutputWrapper(said)
        try:
            super().handle(*args, port=port, host=host, **options)
        finally:
            self.stdout = screen
        users = get_user_model().objects
        with load_demo.quiet_task_log():
            rally = load_rally_demo(
                users.get(username=DEMO_ORGANISER), users.get(username=DEMO_OFFICIAL)
            )
        local = "127.0.0.1" if host in ALL_INTERFACES else host
        base = f"http://{local}:{port}"
        line = f"  Rally            {base}/rallies/{rally.slug}/ (chapter standings, live)\n"
        text = said.getvalue()
        text = text.replace(BEFORE, line + BEFORE, 1) if BEFORE in text else text + line
        self.stdout.write(text, ending="")
