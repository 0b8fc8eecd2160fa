"""Through nginx (deploy/nginx.conf through deploy/stack.sh), what one client gets depends on
that client alone: its own address's limits on signing in (nginx passes the address on in
X-Forwarded-For; every client on loopback reaches Django from nginx's 127.0.0.1), the language
its Accept-Language asks for, its session however it spells the cookie, and gzip only when it
takes gzip."""

import json
import re
import urllib.request

import pytest

from tests.integration.test_proxy import STANDINGS, Answer, fetch
from tests.integration.test_stack import PASSWORD, Stack, play_round, started_stack, wait_for

pytestmark = pytest.mark.services

SIGN_IN = "/accounts/login/"


@pytest.fixture(scope="module")
def stack(module_redis, tmp_path_factory):
    """A stack whose public answers stay fresh in nginx for a minute: a copy kept by one
    client is the one the next client gets, however slow the test. The module's tests share it
    (each signs in from loopback addresses of its own)."""
    yield from started_stack(module_redis, tmp_path_factory.mktemp("stack"), PUBLIC_MAX_AGE="60")


def sign_in(stack: Stack, login: str, password: str, *, source: str) -> Answer:
    """The sign-in page's form, filled in and sent from the loopback address `source`."""
    form = fetch(stack, SIGN_IN, headers={"Accept": "text/html"}, source=source)
    assert form.status == 200, form.body[:300]
    hidden = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', form.body)
    assert hidden, form.body[:500]
    return fetch(
        stack,
        SIGN_IN,
        method="POST",
        headers={
            "Accept": "text/html",
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={form.cookies()['csrftoken']}",
            "Origin": stack.base,
        },
        body=f"csrfmiddlewaretoken={hidden[1].decode()}&login={login}&password={password}".encode(),
        source=source,
    )


def ask_for_token(stack: Stack, login: str, password: str, *, source: str) -> Answer:
    return fetch(
        stack,
        "/api/v1/auth/token/",
        method="POST",
        headers={"Content-Type": "application/json"},
        body=json.dumps({"username": login, "password": password}).encode(),
        source=source,
    )


def test_one_address_exhausting_the_sign_in_limit_locks_out_that_address_alone(stack):
    stack.make_organiser()

    # One client guesses 30 accounts a minute (allauth's "login" rate), then is turned away, on
    # the sign-in page and at the API's token endpoint alike: one allowance for both doors.
    for n in range(30):
        guess = sign_in(stack, f"nobody{n}", "wrong-password", source="127.0.0.2")
        assert guess.status == 200, (n, guess.status, guess.body[:300])  # the form, refused
    assert sign_in(stack, "desk", PASSWORD, source="127.0.0.2").status == 429
    assert ask_for_token(stack, "desk", PASSWORD, source="127.0.0.2").status == 429

    # The organiser, at another address, signs in: by the page, and for a token.
    signed = sign_in(stack, "desk", PASSWORD, source="127.0.0.3")
    assert signed.status == 302 and signed.cookies().get("sessionid"), signed.body[:500]
    token = ask_for_token(stack, "desk", PASSWORD, source="127.0.0.3")
    assert token.status == 200 and json.loads(token.body)["token"], token.body


def in_language(answer: Answer) -> str:
    """The language the answer says it is in, checked against its ETag's."""
    language = answer.headers["Content-Language"]
    assert answer.headers["ETag"].endswith(f'-{language}"'), answer.headers
    return language


def test_each_client_gets_its_own_language_session_and_encoding_through_nginx(stack):
    stack.open_event("Client Night", "client-night", players=8)
    stage = stack.request(
        "POST",
        "/api/v1/tournaments/client-night/stages/",
        {"name": "Qualifying", "kind": "qualifying", "starting_double": 12, "rounds": 2,
         "table_size_min": 4, "table_size_max": 4},
    ).json()  # fmt: skip
    seated = stack.request("POST", f"/api/v1/stages/{stage['id']}/seat/", {"seed": 3})
    assert seated.status == 200, seated.body
    play_round(stack, seated.json()[0], 1)

    def origin(path: str, language: str) -> bytes:
        asked = urllib.request.Request(stack.origin + path, headers={"Accept-Language": language})
        return urllib.request.urlopen(asked, timeout=10).read()

    stage_path = STANDINGS.format(id=stage["id"])
    wait_for(
        lambda: json.loads(origin(stage_path, "en")),
        lambda body: body["stale"] is False and body["results_counted"] == 1,
        "the round's standings snapshot",
        timeout=30,
    )

    # The standings' two addresses, one in each order: a reader whose cookie says Spanish and
    # whose browser says English first, then a plain English reader; and the other way round.
    # The API's language is Accept-Language's (nginx's key, and the answer's Vary): English
    # for both, Spanish for a Spanish browser. (Each answer says its language in
    # Content-Language and its ETag, which nginx keeps with the body.)
    english_browser, spanish_cookie = {"Accept-Language": "en"}, {"Cookie": "django_language=es"}
    for path, cookie_first in ((stage_path, True), ("/api/v1/tournaments/client-night/standings/",
                                                     False)):  # fmt: skip
        english, spanish = origin(path, "en"), origin(path, "es")
        readers = [english_browser, {**english_browser, **spanish_cookie}]
        for headers in readers if cookie_first else readers[::-1]:
            answer = fetch(stack, path, headers=headers)
            assert answer.status == 200, answer.body[:300]
            assert (in_language(answer), answer.body) == ("en", english), (headers, answer.headers)
            assert "Accept-Language" in answer.headers["Vary"]
        cached = fetch(stack, path, headers=english_browser)
        assert cached.cache == "HIT" and cached.body == english, cached.headers
        answer = fetch(stack, path, headers={"Accept-Language": "es", **spanish_cookie})
        assert (in_language(answer), answer.body) == ("es", spanish), answer.headers

    # A session cookie however Django reads it (spaces around its name, after other cookies):
    # never from nginx's cache, never into it.
    signed = sign_in(stack, "desk", PASSWORD, source="127.0.0.1")
    key = signed.cookies()["sessionid"]
    page = "/en/t/client-night/"
    assert fetch(stack, page).status == 200
    assert fetch(stack, page).cache == "HIT"  # the public copy, kept
    spellings = (f"sessionid ={key}", f"other=1; sessionid ={key}",
                 f"other=1;  sessionid = {key}", f"sessionid= {key}")  # fmt: skip
    for cookie in spellings:
        staff_view = fetch(stack, page, headers={"Cookie": cookie})
        assert (staff_view.status, staff_view.cache) == (200, "BYPASS"), cookie
        assert "private" in staff_view.headers["Cache-Control"]  # Django read the session
    unseen = "/es/t/client-night/"
    assert fetch(stack, unseen, headers={"Cookie": f"sessionid ={key}"}).cache == "BYPASS"
    assert fetch(stack, unseen).cache == "MISS"  # the signed-in view was not kept

    # gzip for a browser that takes it, however it spells it; never for one that refuses it,
    # though a compressed copy of the page is kept.
    sheet = "/en/t/client-night/how-it-works/"
    for accepts in ("gzip, deflate, br", "gzip", "GZIP;q=0.5"):
        packed = fetch(stack, sheet, headers={"Accept": "text/html", "Accept-Encoding": accepts})
        assert packed.headers.get("Content-Encoding") == "gzip", (accepts, packed.headers)
    for refuses in ("gzip;q=0, identity", "identity, GZIP ; q=0.0"):
        plain = fetch(stack, sheet, headers={"Accept": "text/html", "Accept-Encoding": refuses})
        assert plain.status == 200 and "Content-Encoding" not in plain.headers, plain.headers
        assert "<html" in plain.body.decode()
