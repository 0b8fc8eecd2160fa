"""Through nginx (deploy/nginx.conf through deploy/stack.sh), what one client gets depends on
that client alone: its own address's limits on signing in (nginx passes the address on in
X-Forwarded-For; every client on loopback reaches Django from nginx's 127.0.0.1), the language
its Accept-Language asks for, its session however it spells the cookie, and gzip only when it
takes gzip."""

import json
import re

import pytest

from tests.integration.test_proxy import Answer, fetch
from tests.integration.test_stack import PASSWORD, Stack, started_stack

pytestmark = pytest.mark.services

SIGN_IN = "/accounts/login/"


@pytest.fixture
def stack(private_redis, tmp_path):
    """A stack whose public answers stay fresh in nginx for a minute: a copy kept by one
    client is the one the next client gets, however slow the test."""
    yield from started_stack(private_redis, tmp_path, PUBLIC_MAX_AGE="60")


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
    made = stack.run(
        "manage", "createsuperuser", "--noinput", "--username", "desk",
        "--email", "desk@example.org", env={"DJANGO_SUPERUSER_PASSWORD": PASSWORD},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr

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
