"""Security by configuration: the CSP, login throttling, the deploy check, request size limits."""

import os
import secrets
import subprocess
import sys

import pytest
from axes.models import AccessAttempt
from django.conf import settings

from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"


def test_pages_carry_a_content_security_policy_without_inline_code(client):
    tournament = factories.TournamentFactory()
    for path in ("/", f"/en/t/{tournament.slug}/", "/accounts/login/", "/api/v1/docs/"):
        response = client.get(path)
        assert response.status_code == 200, path
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "frame-ancestors 'none'" in policy


def token(client, username, password, ip):
    return client.post(
        "/api/v1/auth/token/", {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def test_login_throttling_locks_a_username_at_an_address_not_the_whole_address(client):
    factories.UserFactory(username="tablet1", password=PASSWORD)
    factories.UserFactory(username="tablet2", password=PASSWORD)
    venue, home = "203.0.113.7", "198.51.100.9"
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert token(client, "tablet1", "wrong", venue).status_code == 400
    assert token(client, "tablet1", "wrong", venue).status_code == 429  # the fifth failure locks
    locked = token(client, "tablet1", PASSWORD, venue)
    assert locked.status_code == 429  # even the right password, for the cool-off
    assert "Try again in 15 minutes" in locked.json()["detail"]
    assert locked["Retry-After"] == "900"  # a client knows how long, in seconds (RFC 9110)
    assert token(client, "tablet2", PASSWORD, venue).status_code == 200  # the next table works
    assert token(client, "tablet1", PASSWORD, home).status_code == 200  # elsewhere it works
    assert settings.AXES_COOLOFF_TIME.total_seconds() == 15 * 60


def test_behind_nginx_each_client_is_throttled_by_its_own_address(client, settings):
    """Every request reaches gunicorn from nginx's 127.0.0.1: with DJANGO_BEHIND_PROXY the
    address is the client's from X-Forwarded-For (django-ipware), so one phone's five wrong
    passwords lock that username at that phone, not for everyone behind the proxy."""
    settings.BEHIND_PROXY = True
    settings.PROXY_COUNT = 0  # nginx alone: the last address is the one it saw
    factories.UserFactory(username="tablet1", password=PASSWORD)

    def through_nginx(password, client_address):
        return client.post(
            "/api/v1/auth/token/",
            {"username": "tablet1", "password": password},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=client_address,
        )

    for n in range(settings.AXES_FAILURE_LIMIT):
        # nginx appends the address it saw; what the phone wrote before it is not believed
        through_nginx("wrong", f"10.0.0.{n}, 203.0.113.7")
    assert through_nginx(PASSWORD, "203.0.113.7").status_code == 429
    assert through_nginx(PASSWORD, "198.51.100.9").status_code == 200  # another phone signs in
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.7"}


def test_without_a_proxy_a_forwarded_address_is_not_believed(client):
    """Not behind a proxy (the default), X-Forwarded-For is the client's own claim: ignored."""
    factories.UserFactory(username="tablet1", password=PASSWORD)
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            "/api/v1/auth/token/",
            {"username": "tablet1", "password": "wrong"},
            REMOTE_ADDR="203.0.113.7",
            HTTP_X_FORWARDED_FOR=f"10.0.0.{n}",  # a new address each try: no way out
        )
    assert token(client, "tablet1", PASSWORD, "203.0.113.7").status_code == 429


def test_login_page_is_throttled_too(client):
    factories.UserFactory(username="desk", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            "/accounts/login/", {"login": "desk", "password": "nope"}, REMOTE_ADDR="203.0.113.8"
        )
    locked = client.post(
        "/accounts/login/", {"login": "desk", "password": PASSWORD}, REMOTE_ADDR="203.0.113.8"
    )
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session
    # A page in the site's look that says what happened and when to try again, not axes' own
    # line of plain text.
    page = locked.content.decode()
    assert "<h1>Sign-in paused</h1>" in page
    assert "Too many failed sign-ins for this username from this address." in page
    assert "Try again in 15 minutes." in page and 'href="/accounts/login/"' in page
    spanish = client.post(
        "/accounts/login/",
        {"login": "desk", "password": PASSWORD},
        REMOTE_ADDR="203.0.113.8",
        HTTP_ACCEPT_LANGUAGE="es",
    ).content.decode()
    assert "Vuelva a intentarlo dentro de 15 minutos." in spanish


def test_signing_in_by_email_counts_against_the_same_username(client):
    """The sign-in takes a username or an email: failures by either count together, so that
    alternating them does not double the tries."""
    factories.UserFactory(username="desk", email="desk@example.org", password=PASSWORD)
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        login = "desk@example.org" if attempt % 2 else "DESK@example.org"
        if attempt == 2:
            login = "desk"
        client.post(
            "/accounts/login/", {"login": login, "password": "nope"}, REMOTE_ADDR="203.0.113.7"
        )
    locked = client.post(
        "/accounts/login/", {"login": "desk", "password": PASSWORD}, REMOTE_ADDR="203.0.113.7"
    )
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_sign_in_by_email_signs_in(client):
    factories.UserFactory(username="desk", email="desk@example.org", password=PASSWORD)
    response = client.post("/accounts/login/", {"login": "desk@example.org", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"]


def test_a_sign_in_with_a_username_longer_than_axes_keeps_is_refused_not_a_500(client):
    """Scanners send usernames of hundreds of characters. django-axes records each failed
    sign-in in a column of 255 (on PostgreSQL, a longer value was a DataError, so a 500): the
    sign-in is refused like any other, and repeated, it is throttled like any other."""
    for username in ("é" * 300, "a" * 1000):
        assert token(client, username, "wrong", "203.0.113.9").status_code == 400
        page = client.post(
            "/accounts/login/",
            {"login": username, "password": "wrong"},
            REMOTE_ADDR="203.0.113.9",
        )
        assert page.status_code == 200 and "_auth_user_id" not in client.session
    scanner = "x" * 400
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert token(client, scanner, "wrong", "203.0.113.10").status_code == 400
    assert token(client, scanner, "wrong", "203.0.113.10").status_code == 429
    # What axes keeps fits its columns on any database (SQLite would store more, PostgreSQL
    # refused it).
    kept = AccessAttempt.objects.values_list("username", flat=True)
    assert kept and max(len(username) for username in kept) == 255


def deploy_check(**env: str) -> subprocess.CompletedProcess:
    variables = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    variables.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=variables,
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECURE_COOKIES": "1",
    "DJANGO_HSTS_SECONDS": "31536000",
    "DJANGO_HSTS_INCLUDE_SUBDOMAINS": "1",
    "DJANGO_HSTS_PRELOAD": "1",
    "DJANGO_SECURE_SSL_REDIRECT": "1",
    "DJANGO_ALLOWED_HOSTS": "rally.example.org",
    "ROUNDHOUSE_PUBLIC_URL": "https://rally.example.org",
}


def test_deploy_check_is_clean_with_the_production_environment():
    done = deploy_check(**PRODUCTION, DJANGO_SECRET_KEY=secrets.token_urlsafe(64))
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_deploy_check_refuses_the_development_secret_and_debug():
    done = deploy_check(**{**PRODUCTION, "DJANGO_DEBUG": "1"})
    assert done.returncode != 0
    assert "roundhouse.E001" in done.stderr and "security.W018" in done.stderr


def test_deploy_check_refuses_a_production_without_its_public_address():
    """Links would otherwise name whatever Host a request says (and nginx keep them)."""
    production = {
        name: value for name, value in PRODUCTION.items() if name != "ROUNDHOUSE_PUBLIC_URL"
    }
    done = deploy_check(**production, DJANGO_SECRET_KEY=secrets.token_urlsafe(64))
    assert done.returncode != 0
    assert "roundhouse.W001" in done.stderr


def test_an_oversized_request_body_is_refused_and_stores_nothing(as_organiser, tournament):
    huge = {"number": 1, "name": "x" * (3 * 1024 * 1024)}
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/", huge, format="json"
    )
    assert response.status_code in (400, 413)
    assert not tournament.players.exists()


@pytest.mark.parametrize(
    ("behind", "count", "forwarded", "address"),
    [
        (False, 0, "198.51.100.9", "127.0.0.1"),  # no proxy: the header is not believed
        (True, 0, "198.51.100.9", "198.51.100.9"),  # nginx alone
        (True, 0, "10.9.9.9, 198.51.100.9", "198.51.100.9"),  # what the phone wrote: ignored
        (True, 1, "10.9.9.9, 198.51.100.9, 172.18.0.5", "198.51.100.9"),  # a CDN before nginx
        (True, 0, None, "127.0.0.1"),  # no header: the direct address
    ],
)
def test_the_client_address_is_read_from_the_right_of_x_forwarded_for(
    rf, settings, behind, count, forwarded, address
):
    from config.client_ip import client_ip

    settings.BEHIND_PROXY, settings.PROXY_COUNT = behind, count
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", **headers)) == address
