"""Every API answer that is not public data says `Cache-Control: private, no-store`: a club's
roster with contact details, invitations with live links, a round not confirmed yet are kept by
no cache in front and no browser's disk. The public standings keep their shared headers."""

import pytest
from rest_framework.test import APIClient

from tests import factories
from tests.scoring.conftest import round_body

pytestmark = pytest.mark.django_db


def directives(response) -> set[str]:
    return {d.strip() for d in response.get("Cache-Control", "").split(",") if d.strip()}


def test_private_api_answers_say_private_no_store_and_keep_their_etag(
    anon, as_official, as_organiser, tournament, table, players
):
    club = factories.ClubFactory(slug="pine-valley")
    factories.MemberFactory(club=club, name="Ann Lee", email="ann@x.org")
    club_organiser = APIClient()
    club_organiser.force_authenticate(factories.ClubOrganiserFactory(club=club).user)
    roster = club_organiser.get("/api/v1/clubs/pine-valley/members/")
    invitation = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/invitations/", {"role": "official"}, format="json"
    )
    invitations = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/invitations/")
    path = f"/api/v1/tables/{table.pk}/rounds/1/"
    submitted = as_official.put(path, round_body(players), format="json")
    unconfirmed = as_official.get(path)

    assert "ann@x.org" in roster.content.decode()
    assert "/join/" in invitations.content.decode()
    assert unconfirmed.json()["status"] == "submitted"
    for answer in (roster, invitation, invitations, submitted, unconfirmed):
        assert directives(answer) == {"private", "no-store"}, answer.wsgi_request.path
    # A tablet confirms with If-Match on the ETag it read: no-store keeps no copy, not no tag.
    assert unconfirmed["ETag"] == submitted["ETag"]
    confirmed = as_official.post(f"{path}confirm/", HTTP_IF_MATCH=unconfirmed["ETag"])
    assert confirmed.status_code == 200 and directives(confirmed) == {"private", "no-store"}

    # Public data keeps what a shared cache needs.
    standings = anon.get(f"/api/v1/stages/{table.stage_id}/standings/")
    assert {"public", "max-age=1", "stale-while-revalidate=30"} <= directives(standings)
    assert not directives(standings) & {"private", "no-store"}
