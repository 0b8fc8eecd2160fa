"""Every section of the organiser's console has a Help link, big enough to tap and named for its
section ("Help: Seating a stage"), to its part of the in-app help page, which answers in English
and in Spanish with that part's steps and the name of its full guide."""

import re

import pytest
from django.utils.html import escape
from django.utils.translation import override

from tests import factories
from tests.scoring.helpers import seat_tables
from tournaments import console
from tournaments.help import TOPIC_BY_ANCHOR, TOPICS

LINK = re.compile(
    r'<a class="help-link" href="(?P<href>[^"#]+)#(?P<anchor>[^"]+)" '
    r'aria-label="(?P<name>[^"]+)">(?P<text>[^<]+)</a>'
)


@pytest.fixture
def event(client, organiser, tournament):
    """A club's event with a seated, timed stage, signed in as its organiser."""
    owned = factories.ClubTournamentFactory(tournament=tournament)
    factories.ClubOrganiserFactory(club=owned.club, user=organiser)
    stage = factories.StageFactory(
        tournament=tournament, order=1, status="seated", time_limit_minutes=60
    )
    seat_tables(stage, [["Ann", "Bob", "Cy", "Di"], ["Eve", "Fay", "Gus", "Hal"]])
    client.force_login(organiser)
    return tournament


def pages(slug: str) -> dict[str, set[str]]:
    """Each page of the console, and the help topics its sections link to."""
    manage = f"/t/{slug}/manage"
    sections = {  # the console's tabs: every one of console.SECTIONS, and the divisions'
        f"{manage}/": {"players", "settings"},
        f"{manage}/divisions/": {"divisions", "flights"},
        f"{manage}/entries/": {"entries"},
        f"{manage}/stages/": {"stages", "players-report"},  # Add a stage: who enters its rounds
        f"{manage}/progress/": {"progress"},
        f"{manage}/results/": {"results"},
        f"{manage}/downloads/": {"downloads"},
        f"{manage}/fees/": {"fees"},
        f"{manage}/prizes/": {"prizes"},
        f"{manage}/messages/": {"messages"},
    }
    assert {f"{manage}/{s}/".replace("/players/", "/") for s in console.SECTIONS} | {
        f"{manage}/divisions/",
        f"{manage}/entries/",
        f"{manage}/fees/",
        f"{manage}/prizes/",
        f"{manage}/messages/",
    } == set(sections), "a console section without its help"
    return sections | {
        f"{manage}/stages/1/": {"seating", "players-report"},
        f"{manage}/stages/1/clock/": {"clock"},
        f"{manage}/stages/1/progress/": {"progress"},
        f"{manage}/stages/1/close/": {"closing"},
        f"{manage}/scores/import/": {"results"},
        f"{manage}/staff/": {"staff"},
        f"{manage}/details/": {"settings"},
        f"{manage}/members/": {"members"},
        f"{manage}/prizes/event/": {"prizes"},
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "name", "text", "heading"),
    [
        ("en", "Help: ", "Help", "Help for organisers"),
        ("es", "Ayuda: ", "Ayuda", "Ayuda para organizadores"),
    ],
)
def test_every_console_section_links_to_its_help_in_both_languages(
    client, event, language, name, text, heading
):
    client.cookies["django_language"] = language
    linked = set()
    for path, topics in pages(event.slug).items():
        response = client.get(path)
        assert response.status_code == 200, path
        links = [m.groupdict() for m in LINK.finditer(response.content.decode())]
        assert {link["anchor"] for link in links} == topics, path
        for link in links:
            topic = TOPIC_BY_ANCHOR[link["anchor"]]
            assert link["href"] == f"/{language}/help/", path
            assert link["text"] == text
            with override(language):
                assert link["name"] == escape(f"{name}{topic.title}"), path
            linked.add((link["href"], link["anchor"]))
    assert {anchor for _href, anchor in linked} == set(TOPIC_BY_ANCHOR), "a topic no page links to"
    for href, anchor in linked:
        response = client.get(href)
        assert response.status_code == 200, href
        page = response.content.decode()
        assert f'<html lang="{language}">' in page
        assert f">{heading}</h1>" in page
        section = page.split(f'<section id="{anchor}"', 1)[1].split("</section>", 1)[0]
        topic = TOPIC_BY_ANCHOR[anchor]
        with override(language):
            assert f">{escape(str(topic.title))}</h2>" in section
            assert all(escape(str(step)) in section for step in topic.steps), anchor
            assert escape(str(topic.guide_title)) in section


@pytest.mark.django_db
def test_the_spanish_help_has_every_topic_and_step_in_spanish(client):
    """Every title and step is in the catalogue: none reads in English on the Spanish page."""
    spanish = client.get("/es/help/").content.decode()
    english = client.get("/en/help/").content.decode()
    with override("en"):
        words = [escape(str(w)) for topic in TOPICS for w in (topic.title, *topic.steps)]
    assert all(w in english for w in words)
    assert [w for w in words if w in spanish] == []
    with override("es"):
        assert all(escape(str(w)) in spanish for t in TOPICS for w in (t.title, *t.steps))
