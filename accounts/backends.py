"""How a sign-in finds its account: by the username's normal form (tournaments.usernames), or by
email as allauth does."""

from allauth.account import app_settings
from allauth.account.app_settings import LoginMethod
from allauth.account.auth_backends import AuthenticationBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from tournaments.usernames import account_named


class UsernameBackend(AuthenticationBackend):
    """allauth's backend (username or email), the username found by its normal form: "KASEY"
    signs into kasey's account, and clashing accounts (made before sign-up refused them) only by
    their exact spelling.

    A refusal here is final (PermissionDenied): Django's ModelBackend and allauth's own stay in
    AUTHENTICATION_BACKENDS only for the sessions they signed in, and must not find an account
    by another rule (allauth's compares with SQL's UPPER, which misses full-width letters)."""

    def authenticate(self, request: HttpRequest | None, **credentials) -> AbstractBaseUser | None:
        if not credentials.get("password"):
            return None
        user = super().authenticate(request, **credentials)
        if user is None:
            raise PermissionDenied
        return user

    def _authenticate_by_username(self, username: str, password: str) -> AbstractBaseUser | None:
        if LoginMethod.USERNAME not in app_settings.LOGIN_METHODS or not username:
            return None
        return self._check_password(account_named(username), password)
