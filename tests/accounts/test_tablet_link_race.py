"""One more tablet than a link has room for, all joining at the same moment on real PostgreSQL:
exactly as many as the link is for join, and the other is told the link is used up."""

import html
import threading

import pytest
from django.db import connection
from django.test import Client

from tests import factories
from tests.conftest import client_for
from tournaments.models import Invitation, Staff, StaffEvent

DEVICES = 4


@pytest.mark.django_db(transaction=True)
def test_of_one_tablet_too_many_joining_at_once_exactly_the_links_number_join(require_postgres):
    tournament = factories.TournamentFactory()
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    answer = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/invitations/",
        {"role": "official", "devices": DEVICES},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    link = answer.json()["url"].removeprefix("http://testserver")
    tablets = [Client() for _ in range(DEVICES + 1)]
    for tablet in tablets:
        assert tablet.get(link).status_code == 200  # each has the page open
    start = threading.Barrier(DEVICES + 1)
    answers: list = [None] * (DEVICES + 1)

    def join(number: int) -> None:
        try:
            start.wait()
            answers[number] = tablets[number].post(link, {"as": "tablet"})
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(n,)) for n in range(DEVICES + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    joined = [a for a in answers if a is not None and a.status_code == 302]
    refused = [a for a in answers if a is not None and a.status_code != 302]
    assert len(joined) == DEVICES and len(refused) == 1, [a and a.status_code for a in answers]
    assert refused[0].status_code == 409
    said = html.unescape(refused[0].content.decode())
    assert f"All {DEVICES} tablets this link was made for have joined" in said
    assert "Ask an organiser of" in said and "for a new link." in said
    invitation = Invitation.objects.get()
    assert (invitation.uses, invitation.status) == (DEVICES, Invitation.Status.ACCEPTED)
    staff = Staff.objects.filter(tournament=tournament, joined_via="tablet")
    assert staff.count() == DEVICES
    assert {member.invitation_id for member in staff} == {invitation.pk}
    assert StaffEvent.objects.filter(action="tablet", invitation=invitation).count() == DEVICES
