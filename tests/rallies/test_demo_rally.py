"""The demo's rally (make run): four events, two chapters, the standings live with two events
decided, one being played, and one still taking entries for a visitor to try the form."""

import pytest
from django.test import Client

from entries.models import Entry
from rallies.demo import RALLY_SLUG
from rallies.models import RallyEvent
from tests.snapshots import demo_command

pytestmark = pytest.mark.django_db(transaction=True)  # the demo's jobs run on commit


def test_the_demo_has_a_rally_of_four_events_and_two_chapters_with_live_standings():
    demo_command()  # as load_demo left it (run once per test process: tests/snapshots.py)
    body = Client().get(f"/api/v1/rallies/{RALLY_SLUG}/standings/").json()
    assert [e["state"] for e in body["events"]] == ["decided", "decided", "playing", "upcoming"]
    chapters = {line["chapter"]: float(line["points"]) for line in body["chapters"]}
    assert set(chapters) == {"Desert Roadrunners", "Silver State Wanderers"}
    assert list(chapters.values()) == sorted(chapters.values(), reverse=True)
    assert all(float(line["points"]) > 0 for line in body["chapters"])
    assert body["finished"] is False and body["most_points"] == []
    page = Client().get(f"/en/rallies/{RALLY_SLUG}/")
    assert page.status_code == 200 and "Being played" in page.content.decode()
    assert Client().get(f"/es/rallies/{RALLY_SLUG}/screen/").status_code == 200


def test_a_visitor_can_try_the_demo_rallys_entry_form_on_its_one_open_event():
    demo_command()
    page = Client().get(f"/en/rallies/{RALLY_SLUG}/enter/").content.decode()
    events = list(RallyEvent.objects.filter(rally__slug=RALLY_SLUG).order_by("starts_at"))
    *played, newcomers = events
    assert page.count("Entries closed") == len(played) == 3
    assert f'value="{newcomers.pk}" id="id_events_3">' in page  # not disabled
    answer = Client().post(
        f"/en/rallies/{RALLY_SLUG}/enter/",
        {
            "events": [str(newcomers.pk)],
            "chapter": "Desert Roadrunners",
            "name": "Vera Visitor",
            "email": "vera@example.org",
        },
        follow=True,
    )
    assert "You are entered in 1 event." in answer.content.decode()
    entry = Entry.objects.get(name="Vera Visitor")
    assert entry.tournament == newcomers.tournament and entry.status == "entered"
