"""The Host header writes no link: behind nginx (deploy/stack.sh) with the site's public address
set (ROUNDHOUSE_PUBLIC_URL), a page kept in nginx's cache and an account mail name that address
whatever Host asked for them; a Host the site does not serve is closed by nginx (444) before the
app and the cache; and the language cookie is sent as the session's is."""

import http.client
import re
from collections.abc import Iterator
from http.cookies import SimpleCookie

import pytest

from tests.integration.test_proxy import Answer
from tests.integration.test_stack import PASSWORD, Stack, started_stack, wait_for

pytestmark = pytest.mark.services

PUBLIC_URL = "https://hall.example.org"
# Hosts nginx serves (127.0.0.1, localhost) with a port of the client's choosing, spelt so
# that Django accepts them too (a trailing dot and capitals: the same name).
FORGED_HOSTS = ("127.0.0.1:6666", "LOCALHOST.:8480")


@pytest.fixture
def hall(private_redis, tmp_path, smtp_server, settings) -> Iterator[Stack]:
    """The stack with its public address set, its mail to the test's SMTP server, and public
    pages kept 30 s (a copy made for one request is the next one's)."""
    yield from started_stack(
        private_redis,
        tmp_path,
        ROUNDHOUSE_PUBLIC_URL=PUBLIC_URL,
        EMAIL_URL=f"smtp://127.0.0.1:{settings.EMAIL_PORT}",
        PUBLIC_MAX_AGE="30",
    )


def send(stack: Stack, path: str, *, host: str | None = None, **kwargs) -> Answer:
    """One request to nginx with the Host given (http.client's own otherwise)."""
    connection = http.client.HTTPConnection("127.0.0.1", stack.nginx_port, timeout=15)
    headers = dict(kwargs.pop("headers", {}))
    if host is not None:
        headers["Host"] = host
    try:
        connection.request(kwargs.pop("method", "GET"), path, headers=headers, **kwargs)
        return Answer(connection.getresponse())
    finally:
        connection.close()


def csrf_of(answer: Answer) -> tuple[str, str]:
    """The form's CSRF token and the cookie that goes with it."""
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', answer.body)
    assert token, answer.body[:500]
    return token[1].decode(), answer.cookies()["csrftoken"]


def test_projector_page_kept_by_nginx_names_the_public_address_whatever_host_asked(hall):
    hall.open_event("Host Night", "host-night", players=4)
    path = "/en/t/host-night/screen/"
    forged = [send(hall, path, host=host) for host in FORGED_HOSTS]
    plain = send(hall, path)

    assert [answer.status for answer in [*forged, plain]] == [200, 200, 200]
    assert plain.cache == "HIT"  # the copy a forged request made, as every phone gets it
    for answer in [*forged, plain]:
        page = answer.body.decode()
        assert "hall.example.org/en/t/host-night/how-it-works/" in page
        assert not re.search(r"6666|8480|LOCALHOST\.", page)


def test_nginx_closes_a_host_it_does_not_serve_and_keeps_nothing_of_it(hall):
    hall.open_event("Host Night", "host-night", players=4)
    path = "/en/t/host-night/screen/"
    for host in ("evil.example", "evil.example:6666", "127.0.0.2"):
        with pytest.raises(http.client.RemoteDisconnected):  # 444: closed, no answer
            send(hall, path, host=host)
    cache = hall.directory / "nginx-cache"
    assert not [entry for entry in cache.rglob("*") if entry.is_file()]
    assert "screen" not in (hall.directory / "web.log").read_text(errors="replace")
    assert send(hall, path).cache == "MISS"


def test_password_reset_mail_asked_with_a_forged_host_links_to_the_public_address(
    hall, smtp_server
):
    made = hall.run(
        "manage", "createsuperuser", "--noinput", "--username", "desk",
        "--email", "desk@example.org", env={"DJANGO_SUPERUSER_PASSWORD": PASSWORD},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    host = FORGED_HOSTS[0]
    form = send(hall, "/accounts/password/reset/", host=host)
    token, cookie = csrf_of(form)
    asked = send(
        hall,
        "/accounts/password/reset/",
        host=host,
        method="POST",
        body=f"csrfmiddlewaretoken={token}&email=desk%40example.org",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie}",
        },
    )
    assert asked.status == 302, asked.body[:500]

    body = wait_for(
        lambda: smtp_server.bodies(), lambda bodies: bool(bodies), "the reset mail", timeout=10
    )[0]
    assert re.search(r"https://hall\.example\.org/accounts/password/reset/key/\S+/", body), body
    assert "6666" not in body and "127.0.0.1" not in body


def test_language_cookie_is_secure_same_site_lax_and_http_only_in_production(hall):
    form = send(hall, "/accounts/login/")
    token, cookie = csrf_of(form)
    switched = send(
        hall,
        "/i18n/setlang/",
        method="POST",
        body=f"csrfmiddlewaretoken={token}&language=es&next=/accounts/login/",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie}",
        },
    )
    assert switched.status == 302, switched.body[:500]
    jar = SimpleCookie()
    for line in switched.headers.get_all("Set-Cookie") or []:
        jar.load(line)
    language = jar["django_language"]
    assert language.value == "es"
    assert language["secure"] and language["httponly"]
    assert language["samesite"] == "Lax"
