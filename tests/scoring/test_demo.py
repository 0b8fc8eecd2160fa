"""The demo event of `make run`: loaded once, kept on the next run, with working logins."""

import logging
import re

import pytest
from django.core.management import call_command

from config.lan import lan_address
from entries.demo import ENTRIES_SLUG
from scoring.demo import DEMO_PASSWORD, DEMO_SLUG, FINISHED_SLUG
from scoring.demo_events import SILVER_SLUG
from scoring.models import Placing, RoundResult
from tests.snapshots import demo_command
from tournaments.models import Player, Staff, StageClock, Tournament

pytestmark = pytest.mark.django_db(transaction=True)  # the demo's jobs run on commit


def test_load_demo_creates_a_samboree_with_37_players_and_logins_said_last(client, capsys, caplog):
    """make run's screen too: no "Task ... succeeded" per inline task, the logins at the
    bottom (one load for both: a fresh load is half a minute of the suite's 2 cores)."""
    caplog.set_level(logging.INFO)
    call_command("load_demo", port="8123")
    task_lines = [r.getMessage() for r in caplog.records if r.name.startswith(("celery", "kombu"))]
    assert task_lines == []
    printed = capsys.readouterr().out
    lines = printed.rstrip().splitlines()
    assert [line.split()[:2] for line in lines[-3:]] == [
        ["Organiser", "login"],
        ["Official", "login"],
        ["Superuser", "admin"],
    ]
    # The addresses in the screen's last lines, above the logins (a terminal's height).
    assert f"http://127.0.0.1:8123/t/{DEMO_SLUG}/" in "\n".join(lines[-16:])
    assert "HOST=0.0.0.0 make run" in printed  # how to reach it from a tablet
    tournament = Tournament.objects.get(slug=DEMO_SLUG)
    assert tournament.players.count() == 37
    assert {p.name for p in tournament.players.all()} >= {"José Ramírez", "Françoise Dubois"}
    assert [(s.kind, s.rounds, s.engines) for s in tournament.stages.all()] == [
        ("qualifying", 4, [12, 11, 10, 9]),
        ("playoff", 4, [12, 11, 10, 9]),
    ]
    qualifying = tournament.stages.get(order=1)
    assert qualifying.status == "seated" and qualifying.tables.count() == 10
    results = RoundResult.objects.filter(stage=qualifying)
    assert results.count() == 28
    assert results.filter(status="confirmed").count() == 26  # two tables still checking round 3
    finished = Tournament.objects.get(slug=FINISHED_SLUG)
    assert Placing.objects.filter(tournament=finished).count() == 12
    assert [s.status for s in finished.stages.all()] == ["closed", "closed"]
    roles = dict(Staff.objects.filter(tournament=tournament).values_list("user__username", "role"))
    assert roles == {"organiser": "organiser", "official": "official"}
    assert f"http://127.0.0.1:8123/t/{DEMO_SLUG}/" in printed
    assert f"organiser / {DEMO_PASSWORD}" in printed
    # The event taking entries, and an entrant's own page to open.
    assert f"http://127.0.0.1:8123/t/{ENTRIES_SLUG}/register/" in printed
    own = re.search(rf"http://127.0.0.1:8123(/t/{ENTRIES_SLUG}/entry/[\w-]+/)", printed)
    assert own and client.get(own[1], follow=True).status_code == 200
    assert Tournament.objects.get(slug=ENTRIES_SLUG).entries.count() == 29
    # Where the demo's mails go, and an invitation to try that works.
    assert "Mail             printed in this console (set EMAIL_URL" in printed
    join = re.search(r"http://127.0.0.1:8123(/join/[\w-]+/)", printed)
    assert join and "Accept the invitation" not in client.get(join[1]).content.decode()
    assert "Continue without an account" in client.get(join[1]).content.decode()
    signed_in = client.post("/accounts/login/", {"login": "official", "password": DEMO_PASSWORD})
    assert signed_in.status_code == 302  # the demo password works
    assert client.get(f"/en/t/{DEMO_SLUG}/").status_code == 200
    assert "Accept the invitation" in client.get(join[1]).content.decode()


def demo_rows() -> dict[str, int]:
    return {
        "tournaments": Tournament.objects.count(),
        "players": Player.objects.count(),
        "results": RoundResult.objects.count(),
        "placings": Placing.objects.count(),
        "clocks": StageClock.objects.count(),
    }


def test_load_demo_again_keeps_the_data(capsys):
    demo_command()  # as load_demo left it (run once per test process: tests/snapshots.py)
    tournament = Tournament.objects.get(slug=DEMO_SLUG)
    tournament.players.filter(number=1).update(name="Margaret Ellison-Hughes")
    loaded = demo_rows()
    call_command("load_demo")
    assert Tournament.objects.filter(slug=DEMO_SLUG).count() == 1
    assert tournament.players.get(number=1).name == "Margaret Ellison-Hughes"
    assert "Kept the demo tournament" in capsys.readouterr().out
    assert demo_rows() == loaded  # nothing new, the Silver Games included


def test_load_demo_adds_the_silver_games_to_a_demo_loaded_before_it():
    demo_command()
    lakeside = Tournament.objects.get(slug=DEMO_SLUG)
    Tournament.objects.filter(slug=SILVER_SLUG).update(slug="older-event")  # as before it
    before = Tournament.objects.count()
    call_command("load_demo")
    assert Tournament.objects.get(slug=DEMO_SLUG).pk == lakeside.pk  # kept
    assert Tournament.objects.count() == before + 1
    assert Tournament.objects.get(slug=SILVER_SLUG).stages.get().status == "closed"


def test_load_demo_a_task_that_fails_still_logs_after_the_demo(caplog):
    demo_command()  # loaded before (tests/snapshots.py): this load keeps it, quiet all the same
    call_command("load_demo")
    caplog.set_level(logging.INFO)
    logging.getLogger("celery.app.trace").info("Task after the demo succeeded")
    assert "Task after the demo succeeded" in caplog.text  # the quiet ends with the load


def test_load_demo_on_every_interface_prints_the_lan_address(capsys):
    lan = lan_address()
    if lan is None:
        pytest.skip("this machine has no LAN address to print")
    demo_command()  # loaded before (tests/snapshots.py): a load that keeps it prints the same
    call_command("load_demo", host="0.0.0.0", port="8123")
    printed = capsys.readouterr().out
    assert f"On the network   http://{lan}:8123/ (a tablet or phone on the same Wi-Fi)" in printed
    assert re.search(rf"http://{re.escape(lan)}:8123/join/[\w-]+/", printed)  # for the tablet
    assert "http://0.0.0.0" not in printed
