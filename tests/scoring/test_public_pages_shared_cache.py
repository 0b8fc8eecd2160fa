"""The public pages are the same for every visitor who is not signed in, so a shared cache in
front (nginx, a CDN, a venue's proxy) may keep them: the language is in the address, the page
sets no cookie and varies on nothing personal, with `Cache-Control: public`, a short max-age,
stale-while-revalidate and a strong ETag. A signed-in person's view of them is private, and the
old addresses (before the language was in them) redirect."""

import gzip

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory

from config.http_cache import SharedCacheMiddleware, public_page
from config.release import release
from scoring import standings
from tables.services import add_late_player
from tests import factories
from tests.scoring.helpers import play, seat_tables
from tournaments.services.players import update_player

pytestmark = pytest.mark.django_db

SHARED = {"public", "max-age=1", "stale-while-revalidate=30"}


@pytest.fixture
def seated(tournament, stage):
    tables = seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Eve", "Fay"]])
    play(stage, tables[0], 1, [0, 5, 9])
    return stage, tables


def public_paths(stage) -> list[str]:
    slug = stage.tournament.slug
    number = stage.tournament.players.order_by("number").first().number
    return [
        f"t/{slug}/",
        f"t/{slug}/tables/{stage.order}/1/",
        f"t/{slug}/players/",
        f"t/{slug}/players/?q=ann",
        f"t/{slug}/players/{number}/",
        f"t/{slug}/find-your-table/",
        f"t/{slug}/screen/",
        f"t/{slug}/how-it-works/",
        f"t/{slug}/bracket/",
    ]


def directives(response) -> set[str]:
    return {d.strip() for d in response.get("Cache-Control", "").split(",") if d.strip()}


def vary(response) -> set[str]:
    return {v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()}


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_public_page_is_shared_with_no_cookie_and_a_strong_etag(seated, language):
    stage, _ = seated
    for path in public_paths(stage):
        visitor = Client()
        response = visitor.get(f"/{language}/{path}")
        assert response.status_code == 200, path
        assert not response.cookies, path  # no CSRF token, no session, no language cookie
        assert directives(response) >= SHARED, path
        assert "private" not in directives(response) and "no-cache" not in directives(response)
        assert vary(response) <= {"hx-request", "accept-encoding"}, path
        etag = response["ETag"]
        assert etag.startswith('"') and etag.endswith('"'), path  # strong: not W/"..."
        assert f'lang="{language}"' in response.content.decode()
        # The cache in front revalidates: the same version costs a 304 with the same headers.
        again = visitor.get(f"/{language}/{path}", HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304 and again.content == b"", path
        assert again["ETag"] == etag and directives(again) >= SHARED, path


def test_the_live_fragment_varies_on_htmx_alone_and_has_its_own_version(anon, seated):
    stage, _ = seated
    url = f"/en/t/{stage.tournament.slug}/"
    page = Client().get(url)
    fragment = Client().get(url, HTTP_HX_REQUEST="true")
    assert vary(page) == vary(fragment) == {"hx-request", "accept-encoding"}
    assert fragment["ETag"] != page["ETag"]
    assert "<html" not in fragment.content.decode() and "<html" in page.content.decode()
    assert directives(fragment) >= SHARED


@pytest.mark.parametrize("accepts", ["gzip, deflate, br, zstd", "gzip"])
def test_a_browser_that_takes_gzip_gets_the_page_compressed_with_its_own_strong_etag(
    seated, accepts
):
    """Compressed once at the origin, so that nginx keeps and serves the compressed copy."""
    stage, _ = seated
    url = f"/en/t/{stage.tournament.slug}/"
    plain = Client().get(url, HTTP_HX_REQUEST="true")
    packed = Client().get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING=accepts)
    assert "Content-Encoding" not in plain and packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    assert len(packed.content) < len(plain.content) / 3
    assert packed["ETag"] == plain["ETag"][:-1] + '+gzip"'  # strong, and not the plain one's
    assert directives(packed) >= SHARED and "accept-encoding" in vary(packed)
    # Revalidated with either copy's tag: a 304 naming the copy held.
    for held in (packed["ETag"], plain["ETag"]):
        again = Client().get(
            url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING=accepts, HTTP_IF_NONE_MATCH=held
        )
        assert again.status_code == 304 and again["ETag"] == held
        assert directives(again) >= SHARED and "accept-encoding" in vary(again)


@pytest.mark.parametrize(
    "accepts", ["gzip;q=0, identity", "identity, GZIP ; q=0.000", "deflate, x-gzip;q=0", "br"]
)
def test_a_browser_that_refuses_gzip_gets_the_page_uncompressed(seated, accepts):
    stage, _ = seated
    url = f"/en/t/{stage.tournament.slug}/"
    plain = Client().get(url, HTTP_HX_REQUEST="true")
    refused = Client().get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING=accepts)
    assert "Content-Encoding" not in refused and refused.content == plain.content
    assert refused["ETag"] == plain["ETag"]


@pytest.mark.parametrize("accepts", ["GZIP;q=0.5", "identity;q=0, gzip;q=1", "deflate, gzip"])
def test_a_browser_that_weighs_gzip_above_zero_still_gets_it(seated, accepts):
    stage, _ = seated
    url = f"/en/t/{stage.tournament.slug}/"
    packed = Client().get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING=accepts)
    assert packed["Content-Encoding"] == "gzip"


def test_a_page_without_a_version_of_its_own_is_compressed_too(seated):
    stage, _ = seated
    url = f"/en/t/{stage.tournament.slug}/how-it-works/"
    plain = Client().get(url)
    packed = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert gzip.decompress(packed.content) == plain.content
    again = Client().get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=packed["ETag"])
    assert again.status_code == 304


def test_the_english_and_spanish_pages_are_two_versions(seated):
    stage, _ = seated
    english = Client().get(f"/en/t/{stage.tournament.slug}/")
    spanish = Client().get(f"/es/t/{stage.tournament.slug}/", HTTP_IF_NONE_MATCH=english["ETag"])
    assert spanish.status_code == 200 and spanish["ETag"] != english["ETag"]
    assert "Clasificación" in spanish.content.decode()


def test_an_announced_version_is_the_same_page_kept_longer(seated):
    """?v=<version> (live push): the page as at its plain address, kept by the cache in front
    for PUBLIC_VERSIONED_MAX_AGE, as a later version has an address of its own."""
    stage, _ = seated
    url = f"/en/t/{stage.tournament.slug}/"
    plain = Client().get(url, HTTP_HX_REQUEST="true")
    versioned = Client().get(f"{url}?v=7-3", HTTP_HX_REQUEST="true")
    assert versioned.content == plain.content and versioned["ETag"] == plain["ETag"]
    assert {"public", "max-age=30", "stale-while-revalidate=30"} == directives(versioned)
    again = Client().get(f"{url}?v=7-3", HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=plain["ETag"])
    assert again.status_code == 304 and "max-age=30" in directives(again)


def test_a_new_result_is_a_new_version(seated):
    stage, tables = seated
    url = f"/en/t/{stage.tournament.slug}/"
    before = Client().get(url)
    play(stage, tables[1], 1, [3, 0, 8])
    standings.rebuild_standings(stage=stage)  # the worker's rebuild: a new snapshot
    after = Client().get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert "2 of 8 results in." in after.content.decode()


def test_a_signed_in_persons_view_of_a_public_page_is_private(seated, organiser):
    stage, _ = seated
    signed_in = Client()
    signed_in.force_login(organiser)
    for path in public_paths(stage):
        response = signed_in.get(f"/en/{path}")
        assert response.status_code == 200, path
        assert directives(response) == {"private", "no-cache"}, path
        assert "cookie" in vary(response), path


def test_signing_in_or_out_never_revalidates_the_other_copy(seated, organiser):
    # A browser keeps the page it was given before signing in: revalidated after, it must get
    # the page drawn for the signed-in person (their name, their links), not a 304 for the
    # public copy; and the signed-in copy has no validator a signed-out browser could send.
    stage, _ = seated
    browser = Client()
    for path in public_paths(stage):
        browser.logout()
        public = browser.get(f"/en/{path}")
        assert "Sign in" in public.content.decode(), path
        browser.force_login(organiser)
        mine = browser.get(f"/en/{path}", HTTP_IF_NONE_MATCH=public["ETag"])
        assert mine.status_code == 200 and "Sign out" in mine.content.decode(), path
        assert "ETag" not in mine, path


def test_a_visitor_with_a_session_gets_a_private_copy(seated):
    """An anonymous session (an official's invitation held before signing in): the cache in
    front passes such requests by; the origin marks the answer private all the same."""
    stage, _ = seated
    visitor = Client()
    visitor.cookies["sessionid"] = "not-a-real-session"
    response = visitor.get(f"/en/t/{stage.tournament.slug}/")
    assert response.status_code == 200 and directives(response) == {"private", "no-cache"}


def test_an_answer_that_sets_a_cookie_is_never_shared():
    def sets_a_cookie(request):
        response = HttpResponse("hello")
        response.set_cookie("flavour", "oatmeal")
        return response

    middleware = SharedCacheMiddleware(public_page(sets_a_cookie))
    response = middleware(RequestFactory().get("/en/t/x/"))
    assert directives(response) == {"private", "no-cache"} and "ETag" not in response


def test_pages_for_those_who_run_the_event_keep_their_addresses(seated, organiser):
    stage, _ = seated
    slug = stage.tournament.slug
    client = Client()
    client.force_login(organiser)
    assert client.get(f"/t/{slug}/manage/").status_code == 200
    assert client.get(f"/en/t/{slug}/manage/").status_code == 404
    assert client.get(f"/es/t/{slug}/enter/").status_code == 404


@pytest.mark.parametrize(
    ("old", "accept", "new"),
    [
        ("t/{slug}/", "es-MX,es;q=0.9", "/es/t/{slug}/"),
        ("t/{slug}/", "en-GB,en;q=0.8", "/en/t/{slug}/"),
        ("t/{slug}/", "fr", "/en/t/{slug}/"),  # a language the site does not have: its own
        ("t/{slug}/screen/?page=2", "es", "/es/t/{slug}/screen/?page=2"),
        ("t/{slug}/tables/1/2/", "es", "/es/t/{slug}/tables/1/2/"),
        ("t/{slug}/players/?q=pe%C3%B1a", "en", "/en/t/{slug}/players/?q=pe%C3%B1a"),
    ],
)
def test_an_old_address_redirects_to_the_browsers_language(seated, old, accept, new):
    slug = seated[0].tournament.slug
    response = Client().get("/" + old.format(slug=slug), HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 302
    assert response["Location"] == new.format(slug=slug)
    assert "accept-language" in vary(response)  # a cache must not give it to another language
    assert not response.cookies


def test_an_unknown_tournament_is_not_found_in_either_form(seated):
    assert Client().get("/t/no-such-event/").status_code == 302  # the address could exist
    assert Client().get("/en/t/no-such-event/").status_code == 404


def test_a_sheet_renamed_or_with_a_stage_added_after_is_a_new_version(seated):
    # What a sheet's header and menu show is part of its version: a cache in front (or the
    # browser) revalidating must get the page anew, not a 304 for the old one.
    stage, _ = seated
    tournament = stage.tournament
    url = f"/en/t/{tournament.slug}/tables/{stage.order}/1/"
    visitor = Client()
    first = visitor.get(url)
    assert visitor.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    tournament.name = "Renamed Rally"
    tournament.save(update_fields=["name"])
    renamed = visitor.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert renamed.status_code == 200 and "Renamed Rally" in renamed.content.decode()
    factories.StageFactory(tournament=tournament, order=stage.order + 1, decides_placings=True)
    placed = visitor.get(url, HTTP_IF_NONE_MATCH=renamed["ETag"])
    link = f'<a href="/en/t/{tournament.slug}/bracket/">Final placings</a>'
    assert placed.status_code == 200 and link in placed.content.decode()


def test_a_sheet_whose_players_change_is_a_new_version(seated, organiser):
    # The sheet's columns are its players: a late player seated at the table or a name corrected
    # must reach a phone holding the old sheet (its poll, or the cache in front revalidating),
    # not a 304 for the seats as they were until the table's next result.
    stage, tables = seated
    url = f"/en/t/{stage.tournament.slug}/tables/{stage.order}/1/"
    visitor = Client()
    etag = visitor.get(url)["ETag"]
    late = factories.PlayerFactory(tournament=stage.tournament, number=99, name="Zed Late")
    add_late_player(stage=stage, player=late, by=organiser)
    seated_late = visitor.get(url, HTTP_IF_NONE_MATCH=etag)
    assert seated_late.status_code == 200 and "Zed Late" in seated_late.content.decode()
    ann = tables[0][0]
    update_player(player=ann, number=ann.number, name="Annabel Ash", by=organiser)
    renamed = visitor.get(url, HTTP_IF_NONE_MATCH=seated_late["ETag"])
    assert renamed.status_code == 200 and "Annabel Ash" in renamed.content.decode()
    assert visitor.get(url, HTTP_IF_NONE_MATCH=renamed["ETag"]).status_code == 304


@pytest.fixture
def next_release(monkeypatch):
    """Deploy another release (ROUNDHOUSE_RELEASE) when called."""

    def deploy() -> None:
        monkeypatch.setenv("ROUNDHOUSE_RELEASE", "the next release")
        release.cache_clear()

    yield deploy
    release.cache_clear()


def test_a_new_release_draws_every_kept_page_anew(seated, next_release):
    # After a deploy nothing the old release drew is served as current: not the copy the cache
    # in front (or a phone) revalidates, nor the standings rows kept in Redis. The old copy
    # may name static files the new release no longer has.
    stage, _ = seated
    slug = stage.tournament.slug
    urls = [f"/en/t/{slug}/", f"/es/t/{slug}/", f"/en/t/{slug}/tables/{stage.order}/1/"]
    visitor = Client()
    held = {url: visitor.get(url)["ETag"] for url in urls}
    for url in urls:
        assert visitor.get(url, HTTP_IF_NONE_MATCH=held[url]).status_code == 304
    assert ROWS not in templates_of(visitor.get(urls[0]))  # kept, as drawn once
    next_release()
    for url in urls:
        again = visitor.get(url, HTTP_IF_NONE_MATCH=held[url])
        assert again.status_code == 200 and again["ETag"] != held[url], url
        if "/tables/" not in url:
            assert ROWS in templates_of(again), url  # the rows drawn again


ROWS = "scoring/_standings_table.html"


def templates_of(response) -> set[str]:
    return {template.name for template in response.templates}


def test_a_sheet_unchanged_costs_one_query_to_revalidate_and_a_result_makes_it_new(
    seated, django_assert_num_queries
):
    # The phones' 60 s safety polls revalidate each sheet watched through the cache in front:
    # the table, its stage and tournament and its latest result are read at once, nothing more.
    stage, tables = seated
    url = f"/en/t/{stage.tournament.slug}/tables/{stage.order}/1/"
    visitor = Client()
    first = visitor.get(url)
    with django_assert_num_queries(1):
        assert visitor.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    play(stage, tables[0], 2, [7, 0, 12])
    with django_assert_num_queries(4):  # and the seats, the rounds and their scores
        again = visitor.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]
    assert ">12<" in again.content.decode().replace(" ", "")
