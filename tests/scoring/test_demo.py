"""The demo event of `make run`: loaded once, kept on the next run, with working logins."""

import re

import pytest
from django.core.management import call_command

from scoring.demo import DEMO_PASSWORD, DEMO_SLUG, FINISHED_SLUG
from scoring.models import Placing, RoundResult
from tournaments.models import Staff, Tournament

pytestmark = pytest.mark.django_db(transaction=True)  # the demo's jobs run on commit


def test_load_demo_creates_a_samboree_with_37_players_and_logins(client, capsys):
    call_command("load_demo", port="8123")
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
    printed = capsys.readouterr().out
    assert f"http://127.0.0.1:8123/t/{DEMO_SLUG}/" in printed
    assert f"organiser / {DEMO_PASSWORD}" in printed
    # Where the demo's mails go, and an invitation to try that works.
    assert "Mail             printed in this console (set EMAIL_URL" in printed
    join = re.search(r"http://127.0.0.1:8123(/join/[\w-]+/)", printed)
    assert join and "Accept the invitation" not in client.get(join[1]).content.decode()
    assert "Continue without an account" in client.get(join[1]).content.decode()
    signed_in = client.post("/accounts/login/", {"login": "official", "password": DEMO_PASSWORD})
    assert signed_in.status_code == 302  # the demo password works
    assert client.get(f"/t/{DEMO_SLUG}/").status_code == 200
    assert "Accept the invitation" in client.get(join[1]).content.decode()


def test_load_demo_again_keeps_the_data(capsys):
    call_command("load_demo")
    tournament = Tournament.objects.get(slug=DEMO_SLUG)
    tournament.players.filter(number=1).update(name="Margaret Ellison-Hughes")
    call_command("load_demo")
    assert Tournament.objects.filter(slug=DEMO_SLUG).count() == 1
    assert tournament.players.get(number=1).name == "Margaret Ellison-Hughes"
    assert "Kept the demo tournament" in capsys.readouterr().out
