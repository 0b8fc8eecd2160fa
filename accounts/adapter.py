"""How django-allauth lets people in here: sign-up open to organisers or by invitation only
(ROUNDHOUSE_SIGNUP), and an invitation opened before signing up is accepted right after. (One
who signs in instead comes back to the invitation's page and accepts it there.)"""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib.sites.requests import RequestSite
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from accounts import invitations
from config.client_ip import client_ip
from tournaments.links import absolute_url, site_host
from tournaments.models import Staff
from tournaments.services.staff import grant_organiser


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        """Open: anyone may sign up as an organiser. Invite: only someone holding a pending
        invitation (an organiser's, or an official's to join that tournament)."""
        if settings.ROUNDHOUSE_SIGNUP == "open":
            return True
        return invitations.held(request) is not None

    def save_user(self, request: HttpRequest, user, form, commit: bool = True):
        user = super().save_user(request, user, form, commit=commit)
        invitation = invitations.held(request)
        # Signing up makes an organiser, but not someone who came to be an official.
        if invitation is None or invitation.role == Staff.Role.ORGANISER:
            grant_organiser(user)
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
        return invitations.accept_held(request) or super().get_signup_redirect_url(request)

    def get_client_ip(self, request: HttpRequest) -> str:
        """The address allauth's rate limits count (sign-in, sign-up, password reset): the
        client's, read as django-axes reads it (config.client_ip), not nginx's. allauth's own
        reader (ALLAUTH_TRUSTED_PROXY_COUNT) would be a second rule for the same header."""
        address = client_ip(request)
        if address is None:
            raise PermissionDenied("Unable to determine client IP address")
        return address
