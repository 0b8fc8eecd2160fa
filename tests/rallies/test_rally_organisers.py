"""The organisers' rally pages: a new rally, its events and their times, its chapters, its
points table and its close; every bad input said beside its field, changing nothing."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils.html import escape

from rallies.models import Chapter, Rally, RallyEntry, RallyEvent
from rallies.services import check_points_table
from tests import factories
from tests.rallies.helpers import START, event, rally

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def manage(client, slug, **data):
    return client.post(f"/rallies/{slug}/manage/", data)


def test_an_organiser_makes_a_rally_with_its_points_table():
    organiser = factories.OrganiserAccountFactory(username="host")
    client = signed_in(organiser)
    answer = client.post("/rallies/", {"name": "Fall Rally", "points_table": "12, 9; 7,5"})
    made = Rally.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/rallies/{made.slug}/manage/"
    assert made.points_table == [12, 9, 7, 5] and list(made.organisers.all()) == [organiser]
    assert "Fall Rally" in client.get("/rallies/").content.decode()


def test_a_points_table_that_is_not_numbers_is_refused_and_changes_nothing():
    made, _events, organiser = rally()
    client = signed_in(organiser)
    for typed, said in (
        ("10, eight, 6", "“eight” is not a whole number"),
        ("10, -2", "Points cannot be negative: -2."),
        ("", "Give the points for each place, 1st place first"),
    ):
        answer = manage(
            client, made.slug, action="details", name="Spring Rally", points_table=typed
        )
        assert answer.status_code == 400 and said in answer.content.decode(), typed
    made.refresh_from_db()
    assert made.points_table == [10, 8, 6, 5, 4, 3, 2, 1]
    assert client.post("/rallies/", {"name": "X", "points_table": "1.5"}).status_code == 400
    assert Rally.objects.count() == 1


def test_a_chapter_empty_or_named_twice_is_refused():
    made, _events, organiser = rally()
    client = signed_in(organiser)
    answer = manage(client, made.slug, action="chapter", chapter="  ")
    assert answer.status_code == 400 and "Give the chapter&#x27;s name." in answer.content.decode()
    answer = manage(client, made.slug, action="chapter", chapter="ROADRUNNERS")
    assert answer.status_code == 400
    assert "Spring Rally has a chapter ROADRUNNERS already." in answer.content.decode()
    assert manage(client, made.slug, action="chapter", chapter="Tumbleweeds").status_code == 302
    assert sorted(made.chapters.values_list("name", flat=True)) == [
        "Roadrunners",
        "Tumbleweeds",
        "Wanderers",
    ]


def test_a_chapter_an_entry_plays_for_is_not_taken_away_and_an_unused_one_is():
    made, (samboree, *_rest), organiser = rally()
    Client().post(
        f"/en/rallies/{made.slug}/enter/",
        {
            "events": [str(samboree.pk)],
            "chapter": "Wanderers",
            "name": "Ann Abbott",
            "email": "ann@example.org",
        },
    )
    client = signed_in(organiser)
    wanderers = made.chapters.get(name="Wanderers")
    answer = manage(client, made.slug, action="remove-chapter", chapter=str(wanderers.pk))
    assert "1 entries play for Wanderers" in client.get(answer["Location"]).content.decode()
    roadrunners = made.chapters.get(name="Roadrunners")
    manage(client, made.slug, action="remove-chapter", chapter=str(roadrunners.pk))
    assert list(Chapter.objects.values_list("name", flat=True)) == ["Wanderers"]


def test_an_event_is_added_with_its_times_and_bad_times_or_others_events_are_refused():
    made, _events, organiser = rally()
    client = signed_in(organiser)
    fourth = event(organiser, "Night Game")
    at = (START.replace(hour=20)).strftime("%Y-%m-%dT%H:%M")
    before = (START.replace(hour=19)).strftime("%Y-%m-%dT%H:%M")
    answer = manage(
        client, made.slug, action="event", tournament=str(fourth.pk), starts_at=at, ends_at=before
    )
    assert answer.status_code == 400
    assert "The event must end after it starts." in answer.content.decode()
    someone_elses = event(factories.OrganiserAccountFactory(username="other"), "Other Game")
    answer = manage(
        client,
        made.slug,
        action="event",
        tournament=str(someone_elses.pk),
        starts_at=before,
        ends_at=at,
    )
    assert answer.status_code == 400 and RallyEvent.objects.count() == 3
    answer = manage(
        client, made.slug, action="event", tournament=str(fourth.pk), starts_at=before, ends_at=at
    )
    assert answer.status_code == 302 and made.events.count() == 4


def test_each_event_leads_to_its_console_or_for_anothers_event_its_public_page():
    made, events, organiser = rally()
    partner = factories.OrganiserAccountFactory(username="partner")
    theirs = event(partner, "Partner Game")
    RallyEvent.objects.create(
        rally=made, tournament=theirs, starts_at=START.replace(hour=21),
        ends_at=START.replace(hour=22),
    )  # fmt: skip
    page = signed_in(organiser).get(f"/rallies/{made.slug}/manage/").content.decode()
    for own in events:
        tournament = own.tournament
        assert f'<a href="/t/{tournament.slug}/manage/">{escape(tournament.name)}</a>' in page
    assert f'<a href="/en/t/{theirs.slug}/">Partner Game</a>' in page


def test_an_event_taken_out_says_how_to_put_it_back_and_a_close_is_undone():
    made, (samboree, *_rest), organiser = rally()
    client = signed_in(organiser)
    answer = manage(client, made.slug, action="remove-event", event=str(samboree.pk))
    text = client.get(answer["Location"]).content.decode()
    assert "Add it again with its times." in text and made.events.count() == 2
    assert manage(client, made.slug, action="remove-event", event="nope").status_code == 404
    manage(client, made.slug, action="close")
    made.refresh_from_db()
    assert made.closed_at is not None
    manage(client, made.slug, action="reopen")
    made.refresh_from_db()
    assert made.closed_at is None


def test_only_the_rallys_organisers_open_its_page():
    made, _events, _organiser = rally()
    stranger = signed_in(factories.OrganiserAccountFactory(username="stranger"))
    assert stranger.get(f"/rallies/{made.slug}/manage/").status_code == 403
    assert Client().get(f"/rallies/{made.slug}/manage/").status_code == 302  # to sign in


def test_the_organisers_page_speaks_spanish():
    made, _events, organiser = rally()
    client = signed_in(organiser)
    client.cookies["django_language"] = "es"
    text = client.get(f"/rallies/{made.slug}/manage/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Cerrar el encuentro ahora" in text and "Añadir la sección" in text


def test_someone_who_may_not_create_tournaments_makes_no_rally():
    official = signed_in(factories.UserFactory(username="just-an-official"))
    answer = official.post("/rallies/", {"name": "Fall Rally", "points_table": "10, 8"})
    assert answer.status_code == 403 and Rally.objects.count() == 0


def test_the_rallys_admin_pages_open(client):
    made, _events, _organiser = rally()
    client.force_login(factories.UserFactory(username="root", is_staff=True, is_superuser=True))
    data = {"events": [str(made.events.first().pk)], "name": "Ann", "email": "ann@example.org"}
    Client().post(f"/en/rallies/{made.slug}/enter/", data)
    entry = RallyEntry.objects.get()
    for path in (
        "/admin/rallies/rally/", f"/admin/rallies/rally/{made.pk}/change/",
        "/admin/rallies/rallyentry/", f"/admin/rallies/rallyentry/{entry.pk}/change/",
    ):  # fmt: skip
        assert client.get(path).status_code == 200, path


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ([], "Give the points for each place"),
        (["10", 8], "Points are whole numbers of 0 or more"),
        ([10, True], "Points are whole numbers of 0 or more"),
        ([10, -1], "Points are whole numbers of 0 or more"),
        ([1] * 201, "Give points for 200 places at most."),
    ],
)
def test_the_service_refuses_a_points_table_that_is_not_whole_numbers(table, said):
    with pytest.raises(ValidationError) as refused:
        check_points_table(table)
    assert said in refused.value.message_dict["points_table"][0]
