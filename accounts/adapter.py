"""How django-allauth lets people in here: sign-up open to organisers or by invitation only
(ROUNDHOUSE_SIGNUP), and an invitation opened before signing up is accepted right after. (One
who signs in instead comes back to the invitation's page and accepts it there.)"""

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.http import HttpRequest

from accounts import invitations
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

    def get_signup_redirect_url(self, request: HttpRequest) -> str:
        return invitations.accept_held(request) or super().get_signup_redirect_url(request)
