"""How django-allauth lets people in here: sign-up open to organisers or by invitation only
(ROUNDHOUSE_SIGNUP), usernames refused when they clash with an account's in their normal form,
and an invitation opened before signing up accepted with the account, in one transaction. (One
who signs in instead comes back to the invitation's page and accepts it there.)"""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sites.requests import RequestSite
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from accounts import invitations
from config.client_ip import client_ip
from tournaments.links import absolute_url, site_host
from tournaments.services import staff as staffing
from tournaments.usernames import accounts_named

# Where save_user leaves the role the new account was given, for the page after sign-up.
JOINED = "roundhouse_joined"


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        """Open: anyone may sign up as an organiser. Invite: only someone holding a pending
        invitation (an organiser's, or an official's to join that tournament). One whose
        invitation someone else accepted meanwhile still reaches save_user, which refuses it
        saying by whom and when, rather than a page saying sign-up is closed."""
        if settings.ROUNDHOUSE_SIGNUP == "open":
            return True
        return invitations.holding(request) is not None

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """The name as Django stores one (NFKC), refused when an account has the same normal
        form ("Eve", or eve in full-width letters, beside eve: sign-in would not know whose);
        then allauth's checks."""
        typed, username = username, get_user_model().normalize_username(username)
        # The same spelling is allauth's "already exists"; only a look-alike needs saying why.
        if not shallow and any(u.get_username() != typed for u in accounts_named(username)):
            raise ValidationError(
                _(
                    "This username is taken: names that differ only in capitals or in the width "
                    "of their letters are one name here. Choose another."
                ),
                code="username_taken",
            )
        return super().clean_username(username, shallow)

    def save_user(self, request: HttpRequest, user, form, commit: bool = True):
        """The account, and the role of the invitation the session holds. The invitation is
        claimed under its row lock before the account is made, in one transaction: of several
        sign-ups with one invitation, one gets an account and the role, and each other gets
        InvitationUnusable and no account. Without an invitation, open sign-up makes an
        organiser; nothing else does."""
        invitation = invitations.holding(request)
        if invitation is None:
            user = super().save_user(request, user, form, commit=commit)
            if settings.ROUNDHOUSE_SIGNUP == "open":
                staffing.grant_organiser(user)
            return user
        with transaction.atomic():
            invitation = staffing.lock_usable_invitation(invitation)
            user = super().save_user(request, user, form, commit=True)
            staff = staffing.accept_invitation(invitation=invitation, user=user)
        setattr(request, JOINED, staff)
        invitations.drop(request)
        return user

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        """Every account mail (password reset, address confirmation, unknown account) names the
        site's public address, never the Host of the request that asked for it: allauth builds
        each link with request.build_absolute_uri and the site's name from the Host."""
        request = allauth_context.request
        if request is not None and settings.PUBLIC_URL:
            own = f"{request.scheme}://{request.get_host()}/"
            context = {
                key: absolute_url(request, value)
                if isinstance(value, str) and value.startswith(own)
                else value
                for key, value in context.items()
            }
            site = RequestSite(request)
            site.domain = site.name = site_host(request)
            context["current_site"] = site
        super().send_mail(template_prefix, email, context)

    def get_signup_redirect_url(self, request: HttpRequest) -> str:
        if (staff := getattr(request, JOINED, None)) is not None:
            return invitations.welcome(request, staff)
        return super().get_signup_redirect_url(request)

    def get_client_ip(self, request: HttpRequest) -> str:
        """The address allauth's rate limits count (sign-in, sign-up, password reset): the
        client's, read as django-axes reads it (config.client_ip), not nginx's. allauth's own
        reader (ALLAUTH_TRUSTED_PROXY_COUNT) would be a second rule for the same header. A
        request with no address at all (gunicorn always gives one; a WSGI test client may not)
        counts with every other such request, rather than being refused with a 403 that no
        client expects from signing in."""
        return client_ip(request) or "unknown"
