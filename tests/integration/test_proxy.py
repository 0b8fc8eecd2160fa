"""nginx in front of the stack (deploy/nginx.conf through deploy/stack.sh): anonymous GETs served
from its cache as the origin's Cache-Control allows, never a signed-in person's, a token's or a
POST; revalidated after a new snapshot; static files from disk, without gunicorn."""

import concurrent.futures
import gzip
import http.client
import json
import re
import threading
import time
import urllib.request
from http.cookies import SimpleCookie

import psycopg
import pytest

from tests.integration.test_stack import PASSWORD, Stack, play_round, wait_for
from tests.integration.test_stack import stack as stack  # the fixture: one stack per module

pytestmark = pytest.mark.services

STANDINGS = "/api/v1/stages/{id}/standings/"


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status, self.headers, self.body = response.status, response.headers, response.read()

    @property
    def cache(self) -> str | None:
        """nginx's $upstream_cache_status: HIT, MISS, BYPASS, EXPIRED, STALE, REVALIDATED..."""
        return self.headers.get("X-Cache-Status")

    def cookies(self) -> dict[str, str]:
        jar = SimpleCookie()
        for line in self.headers.get_all("Set-Cookie") or []:
            jar.load(line)
        return {name: morsel.value for name, morsel in jar.items()}


def fetch(
    stack: Stack,
    path: str,
    *,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    source: str = "127.0.0.1",
) -> Answer:
    """One request to nginx as a phone makes it: no token, no redirects followed, every header;
    from the loopback address `source` (127.0.0.2, ...: another client, as nginx sees it)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", stack.nginx_port, timeout=15, source_address=(source, 0)
    )
    try:
        connection.request(
            method, path, body=body, headers={"Accept": "application/json", **(headers or {})}
        )
        return Answer(connection.getresponse())
    finally:
        connection.close()


def text_of(answer: Answer) -> str:
    """The body as a browser reads it: decompressed when nginx passed it on compressed."""
    compressed = answer.headers.get("Content-Encoding") == "gzip"
    return (gzip.decompress(answer.body) if compressed else answer.body).decode()


def shared_max_age(answer: Answer) -> int:
    """How long a shared cache may keep the answer by its own headers: 0 unless it is public with
    a max-age, sets no cookie and says none of private, no-cache, no-store."""
    directives = {}
    for item in answer.headers.get("Cache-Control", "").split(","):
        name, _, value = item.strip().partition("=")
        directives[name.lower()] = value.strip('"')
    if "public" not in directives or answer.headers.get_all("Set-Cookie"):
        return 0
    if directives.keys() & {"private", "no-cache", "no-store"}:
        return 0
    age = directives.get("s-maxage") or directives.get("max-age") or "0"
    return int(age) if age.isdigit() else 0


def gunicorn_log(stack: Stack) -> str:
    return (stack.directory / "web.log").read_text(errors="replace")


def test_nginx_caches_public_answers_and_never_private_ones(stack):
    stack.open_event("Proxy Night", "proxy-night", players=8)
    stage = stack.request(
        "POST",
        "/api/v1/tournaments/proxy-night/stages/",
        {"name": "Qualifying", "kind": "qualifying", "starting_double": 12, "rounds": 2,
         "table_size_min": 4, "table_size_max": 4},
    ).json()  # fmt: skip
    seated = stack.request("POST", f"/api/v1/stages/{stage['id']}/seat/", {"seed": 3})
    assert seated.status == 200, seated.body
    path = STANDINGS.format(id=stage["id"])
    # The seating's snapshot built by a worker first (asked of gunicorn, not through nginx): a
    # rebuild landing between the requests below would change the ETag they revalidate with.
    wait_for(
        lambda: json.loads(urllib.request.urlopen(stack.origin + path, timeout=10).read()),
        lambda body: body["stale"] is False,
        "the seating's standings snapshot",
        timeout=30,
    )

    # An anonymous reader twice: from the cache the second time exactly when the origin allows
    # a shared cache to keep the answer.
    first, second = fetch(stack, path), fetch(stack, path)
    assert first.status == second.status == 200, first.body
    assert first.cache in {"MISS", "EXPIRED"}, first.headers
    max_age = shared_max_age(first)
    assert (second.cache == "HIT") == (max_age > 0), (first.headers, second.cache)
    assert second.body == first.body
    if max_age > 0 and first.headers.get("ETag"):
        # Once max-age has passed, nginx asks gunicorn with If-None-Match and gets a 304. nginx
        # counts whole seconds: kept at second t with max-age m, it is fresh through t + m.
        time.sleep(max_age + 1.2)
        fetch(stack, path)
        wait_for(
            lambda: gunicorn_log(stack),
            lambda log: f'"GET {path} HTTP/1.1" 304' in log,
            "nginx revalidating with the ETag (a 304 in gunicorn's log)",
            timeout=5,
        )

    # Never from the cache: a session cookie, a token, a POST, an answer that sets a cookie.
    signed_in = fetch(stack, path, headers={"Cookie": "theme=dark; sessionid=whatever"})
    assert signed_in.cache == "BYPASS", signed_in.headers
    with_token = fetch(stack, path, headers={"Authorization": f"Token {stack.token}"})
    assert with_token.cache == "BYPASS", with_token.headers
    for _ in range(2):
        posted = fetch(stack, path, method="POST", body=b"{}")
        assert posted.status == 405, posted.body  # gunicorn answered it, both times
        assert posted.cache in {None, "BYPASS"}, posted.headers
    login_page = [fetch(stack, "/accounts/login/", headers={"Accept": "text/html"})]
    login_page.append(fetch(stack, "/accounts/login/", headers={"Accept": "text/html"}))
    assert all(page.status == 200 for page in login_page)
    assert login_page[1].cookies().get("csrftoken"), login_page[1].headers
    assert login_page[1].cache != "HIT", login_page[1].headers

    # Signing in through nginx: Django sees the browser's Host and scheme, so CSRF passes.
    form = login_page[1]
    csrf = form.cookies()["csrftoken"]
    hidden = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', form.body)
    assert hidden, form.body[:500]
    signed = fetch(
        stack,
        "/accounts/login/",
        method="POST",
        headers={
            "Accept": "text/html",
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}",
            "Origin": stack.base,
            "Referer": f"{stack.base}/accounts/login/",
        },
        body=(f"csrfmiddlewaretoken={hidden[1].decode()}&login=desk&password={PASSWORD}").encode(),
    )
    assert signed.status == 302, (signed.status, signed.body[:800])
    session = signed.cookies().get("sessionid")
    assert session, signed.headers
    staff_view = fetch(stack, path, headers={"Cookie": f"csrftoken={csrf}; sessionid={session}"})
    assert (staff_view.status, staff_view.cache) == (200, "BYPASS"), staff_view.headers

    # A confirmed result and its rebuild: anonymous readers get the new snapshot once the
    # cached one's max-age is over (revalidated or fetched again: the body changes).
    table = seated.json()[0]
    play_round(stack, table, 1)
    wait_for(
        lambda: stack.get(path),  # with the token: never cached
        lambda body: body["results_counted"] == 1,
        "the rebuild of the standings",
        timeout=20,
    )
    fresh = wait_for(
        lambda: fetch(stack, path),
        lambda answer: answer.status == 200 and json.loads(answer.body)["results_counted"] == 1,
        "the new snapshot through nginx",
        timeout=max_age + 15,
    )
    assert fresh.body != first.body

    # Static files come from disk: no cache status (not proxied), kept a year when hashed, and
    # gunicorn never asked.
    page = fetch(stack, "/en/t/proxy-night/", headers={"Accept": "text/html"})
    assert page.status == 200, page.body[:500]
    found = re.search(rb'href="(/static/[^"]+\.css)"', page.body)
    assert found, page.body[:1000]
    css = found[1].decode()
    sheet = fetch(stack, css, headers={"Accept": "text/css"})
    assert sheet.status == 200 and sheet.body
    assert sheet.cache is None, sheet.headers
    if re.search(r"\.[0-9a-f]{12}\.css$", css):
        assert "immutable" in sheet.headers.get("Cache-Control", ""), sheet.headers
    assert css in (stack.directory / "nginx-access.log").read_text()
    assert css not in gunicorn_log(stack)

    # Every anonymous GET above is in nginx's log with its cache status and time.
    access = (stack.directory / "nginx-access.log").read_text()
    assert re.search(rf'"GET {re.escape(path)} HTTP/1.1" 200 \d+ cache=MISS rt=[\d.]+ ', access)

    # Two pools of gunicorn (deploy/README.md, "Two pools"): what may come from the cache went
    # to the public's (web.log), a signed-in person, a token and every write to the staff's
    # (staff.log), so an official's result never waits behind a public page's render.
    public_log, staff_log = gunicorn_log(stack), (stack.directory / "staff.log").read_text()
    for line in (f'"GET {path} HTTP/1.1" 304', f'"GET {path} HTTP/1.1" 200'):
        assert line in public_log, line
    assert f'"GET {path} HTTP/1.1" 200' in staff_log  # the token's and the session's GETs
    for write in ('"POST /accounts/login/ HTTP/1.1" 302', f'"POST {path} HTTP/1.1" 405'):
        assert write in staff_log and write not in public_log, write
    assert '"PUT /api/v1/tables/' in staff_log and '"PUT /api/v1/tables/' not in public_log

    # The public standings are cached, and revalidated with their ETag (this needs the API to
    # send a public Cache-Control with a max-age, and to answer If-None-Match with a 304).
    assert f'"GET {path} HTTP/1.1" 304' in gunicorn_log(stack), "nginx never revalidated"
    assert second.cache == "HIT", (
        f"the second anonymous GET of {path} was {second.cache}, not HIT: the origin said "
        f"Cache-Control: {first.headers.get('Cache-Control')!r}"
    )


def test_public_pages_through_nginx_one_copy_per_language_fragment_and_encoding(stack):
    """The public pages as phones get them through nginx: no cookie; compressed once at the
    origin and kept compressed, one copy for every browser's spelling of gzip; English and
    Spanish each at their own address; the live fragment apart from the page; the old address
    redirected by the browser's language."""
    stack.open_event("Page Night", "page-night", players=8)
    path = "/en/t/page-night/"
    chrome = {"Accept": "text/html", "Accept-Encoding": "gzip, deflate, br, zstd"}
    safari = {"Accept": "text/html", "Accept-Encoding": "gzip, deflate, br"}
    first, second = fetch(stack, path, headers=chrome), fetch(stack, path, headers=safari)
    assert first.status == second.status == 200, first.body[:300]
    assert not first.cookies() and "Set-Cookie" not in first.headers
    assert first.headers["Content-Encoding"] == "gzip" and first.headers["ETag"].endswith('+gzip"')
    assert (second.cache, second.body) == ("HIT", first.body), second.headers
    page = gzip.decompress(first.body).decode()
    assert '<html lang="en">' in page and 'href="/es/t/page-night/"' in page

    plain = fetch(stack, path, headers={"Accept": "text/html"})  # a client without gzip
    assert plain.status == 200 and "Content-Encoding" not in plain.headers
    assert plain.body.decode() == page

    fragment = fetch(stack, path, headers={**chrome, "HX-Request": "true"})
    assert fragment.status == 200 and fragment.cache != "HIT"  # a key of its own
    assert "<html" not in text_of(fragment)

    spanish = fetch(stack, "/es/t/page-night/", headers=chrome)
    assert spanish.status == 200 and '<html lang="es">' in text_of(spanish)

    old = fetch(stack, "/t/page-night/", headers={"Accept": "text/html", "Accept-Language": "es"})
    assert (old.status, old.headers["Location"]) == (302, "/es/t/page-night/")
    assert old.cache != "HIT"  # a redirect by language is never kept


def test_a_burst_for_a_new_version_waits_for_one_origin_request_however_slow_the_origin(stack):
    """Phones asking together for a version nginx has not kept yet (the worker's warm fetch
    failed, or the origin is slow under load) wait for the one request that fills the cache,
    even when the origin takes longer than 5 s: they must not all go to gunicorn, uncached,
    which under load would keep every later version from being cached too."""
    stack.open_event("Herd Night", "herd-night", players=8)
    path = "/en/t/herd-night/?v=herd-1"
    phone = {"Accept": "text/html", "Accept-Encoding": "gzip", "HX-Request": "true"}
    locked = threading.Event()

    def hold_the_origin(seconds: float) -> None:
        # Every public page reads its tournament: the origin answers none until this ends.
        with psycopg.connect(f"{stack.pg_url}/{stack.database}") as conn:
            conn.execute("LOCK TABLE tournaments_tournament IN ACCESS EXCLUSIVE MODE")
            locked.set()
            time.sleep(seconds)
            conn.rollback()

    holder = threading.Thread(target=hold_the_origin, args=(7.0,))
    holder.start()
    assert locked.wait(10)
    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: fetch(stack, path, headers=phone), range(12)))
    holder.join()
    assert [a.status for a in answers] == [200] * 12
    assert len({a.body for a in answers}) == 1
    # The first request, and (proxy_cache_lock_age) one more once it had taken 5 s; the other
    # ten answered from the copy those filled.
    reached = gunicorn_log(stack).count(f'"GET {path} HTTP/1.1"')
    assert 1 <= reached <= 2, reached
    assert sum(a.cache == "HIT" for a in answers) >= 10, [a.cache for a in answers]
