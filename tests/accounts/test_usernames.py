"""One normal form of a username (NFKC, case-folded) at sign-in, the API's token, the sign-in
lockout and sign-up; accounts that clash already are reported, never merged."""

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.checks import run_checks
from django.utils import translation

from tests import factories
from tournaments.migrations import __name__ as migrations_package

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"
FULL_WIDTH_KASEY = "\uff4b\uff41\uff53\uff45\uff59"
SPELLINGS = ["kasey", "Kasey", "KASEY", FULL_WIDTH_KASEY]


def sign_in(client, login: str, password: str):
    return client.post(
        "/accounts/login/", {"login": login, "password": password}, REMOTE_ADDR="203.0.113.20"
    )


def token(client, username: str, password: str):
    return client.post(
        "/api/v1/auth/token/",
        {"username": username, "password": password},
        REMOTE_ADDR="203.0.113.21",
    )


def test_sign_in_finds_the_account_in_any_case_or_width_of_its_letters(client):
    kasey = factories.UserFactory(username="kasey", password=PASSWORD)
    for spelling in SPELLINGS:
        client.logout()
        assert sign_in(client, spelling, PASSWORD).status_code == 302, spelling
        assert client.session["_auth_user_id"] == str(kasey.pk)
        assert token(client, spelling, PASSWORD).status_code == 200, spelling


def test_the_sign_in_lockout_counts_every_spelling_as_one_username(client):
    factories.UserFactory(username="kasey", password=PASSWORD)
    for spelling in [*SPELLINGS, "kasey"][: settings.AXES_FAILURE_LIMIT]:
        sign_in(client, spelling, "wrong")
    for spelling in SPELLINGS:  # locked, each spelling, even with the right password
        assert sign_in(client, spelling, PASSWORD).status_code == 429, spelling
    assert "_auth_user_id" not in client.session


def test_the_token_lockout_counts_every_spelling_as_one_username(client):
    factories.UserFactory(username="kasey", password=PASSWORD)
    tries = [*SPELLINGS, "KaSeY"][: settings.AXES_FAILURE_LIMIT]
    for spelling in tries[:-1]:
        assert token(client, spelling, "wrong").status_code == 400
    assert token(client, tries[-1], "wrong").status_code == 429  # the last failure locks
    for spelling in SPELLINGS:
        assert token(client, spelling, PASSWORD).status_code == 429, spelling


def test_clashing_accounts_sign_in_only_by_their_exact_spelling(client):
    """Made before sign-up refused clashes: "KASEY" could be either, so it signs into neither
    (allauth's UPPER() comparison picked kasey, missing the full-width one)."""
    lower = factories.UserFactory(username="kasey", password=PASSWORD)
    wide = factories.UserFactory(username=FULL_WIDTH_KASEY, password=PASSWORD)
    assert sign_in(client, "kasey", PASSWORD).status_code == 302
    assert client.session["_auth_user_id"] == str(lower.pk)
    client.logout()
    assert sign_in(client, FULL_WIDTH_KASEY, PASSWORD).status_code == 302
    assert client.session["_auth_user_id"] == str(wide.pk)
    client.logout()
    assert sign_in(client, "KASEY", PASSWORD).status_code == 200  # the form again, refused
    assert "_auth_user_id" not in client.session
    assert token(client, "KASEY", PASSWORD).status_code == 400


NEW = {"email": "eve2@example.org", "password1": "dominoes-on-tuesday"}


@pytest.mark.parametrize("username", ["Eve", "\uff45\uff56\uff45", "EVE"])
@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "names that differ only in capitals or in the width of their letters are one name"),
        ("es", "los nombres que solo difieren en mayúsculas o en el ancho de sus letras son uno"),
    ],
)
def test_sign_up_refuses_a_username_that_is_an_accounts_in_another_case_or_width(
    client, username, language, message
):
    factories.UserFactory(username="eve")
    with translation.override(language):
        response = client.post(
            "/accounts/signup/",
            {**NEW, "username": username, "password2": NEW["password1"]},
            HTTP_ACCEPT_LANGUAGE=language,
        )
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors["username"])
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["eve"]


def test_the_migration_reports_clashing_accounts_and_changes_none(capsys):
    for name in ["kasey", "Kasey", FULL_WIDTH_KASEY, "eve", "Eve", "ann"]:
        factories.UserFactory(username=name)
    migration = __import__(f"{migrations_package}.0016_report_clashing_usernames", fromlist=["x"])
    lines = migration.report_clashing_usernames(apps, None)
    assert len(lines) == 2
    assert lines[0].startswith("Usernames that are one name here: 'Eve', 'eve': ")
    assert "'Kasey', 'kasey', '\uff4b\uff41\uff53\uff45\uff59'" in lines[1]
    assert "rename all but one in the admin" in lines[1]
    printed = capsys.readouterr().out
    assert all(line in printed for line in lines)
    names = set(get_user_model().objects.values_list("username", flat=True))
    assert names == {"kasey", "Kasey", FULL_WIDTH_KASEY, "eve", "Eve", "ann"}
    # migrate and `check --database default` keep saying it; a plain check reads no database.
    assert not [message for message in run_checks() if message.id == "roundhouse.W002"]
    checked = run_checks(databases=["default"], include_deployment_checks=False)
    warnings = [message for message in checked if message.id == "roundhouse.W002"]
    assert [warning.msg for warning in warnings] == lines
