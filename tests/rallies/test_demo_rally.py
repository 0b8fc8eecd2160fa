"""The demo's rally (make run): three events, two chapters, the standings live with two events
decided and one being played."""

import pytest
from django.test import Client

from rallies.demo import RALLY_SLUG
from tests.snapshots import demo_command

pytestmark = pytest.mark.django_db(transaction=True)  # the demo's jobs run on commit


def test_the_demo_has_a_rally_of_three_events_and_two_chapters_with_live_standings():
    demo_command()  # as load_demo left it (run once per test process: tests/snapshots.py)
    body = Client().get(f"/api/v1/rallies/{RALLY_SLUG}/standings/").json()
    assert [e["state"] for e in body["events"]] == ["decided", "decided", "playing"]
    chapters = {line["chapter"]: float(line["points"]) for line in body["chapters"]}
    assert set(chapters) == {"Desert Roadrunners", "Silver State Wanderers"}
    assert list(chapters.values()) == sorted(chapters.values(), reverse=True)
    assert all(float(line["points"]) > 0 for line in body["chapters"])
    assert body["finished"] is False and body["most_points"] == []
    page = Client().get(f"/en/rallies/{RALLY_SLUG}/")
    assert page.status_code == 200 and "Being played" in page.content.decode()
    assert Client().get(f"/es/rallies/{RALLY_SLUG}/screen/").status_code == 200
