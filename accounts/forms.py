from allauth.account import forms as allauth_forms
from django import forms
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts import invitations
from tournaments.models import Staff
from tournaments.models.staff import MOST_DEVICES
from tournaments.services.staff import InvitationUnusable


class InvitationForm(forms.Form):
    role = forms.ChoiceField(choices=Staff.Role.choices, label=_("Role"))
    email = forms.EmailField(
        required=False,
        label=_("Email (optional)"),
        help_text=_("The link is mailed there too. Leave it empty to print or show the QR code."),
    )
    days = forms.IntegerField(
        min_value=1,
        max_value=90,
        label=_("Days it stays valid"),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    devices = forms.IntegerField(
        required=False,  # left empty: 1, today's one-person invitation
        min_value=1,
        max_value=MOST_DEVICES,
        initial=1,
        label=_("How many tablets"),
        help_text=_(
            "1: the link works once, for one person or one tablet. More: one link for that "
            "many tablets at the tables (officials), each joining without an account; "
            "revoking it signs them all out."
        ),
        error_messages={
            "min_value": _("A link is for 1 to 50 tablets."),
            "max_value": _("A link is for 1 to 50 tablets."),
        },
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def clean(self) -> dict:
        data = super().clean()
        if "devices" in data and data["devices"] is None:
            data["devices"] = 1
        if (data.get("devices") or 1) > 1 and data.get("role") == Staff.Role.ORGANISER:
            self.add_error(
                "devices",
                _(
                    "A link for several tablets gives the official's role (a tablet enters "
                    "scores only): choose official, or 1 for an organiser's invitation."
                ),
            )
        return data


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Staff.Role.choices, label=_("Role"))


def without_placeholders(form: forms.Form) -> None:
    """Labels say what a field is: a placeholder repeating it reads as a value already typed."""
    for field in form.fields.values():
        field.widget.attrs.pop("placeholder", None)


class LoginForm(allauth_forms.LoginForm):
    """allauth's sign-in, its one field named for what it takes (its label says "Login")."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        login = self.fields["login"]
        login.label = _("Username or email")
        login.widget.attrs.update(autocomplete="username", autocapitalize="none")
        without_placeholders(self)


class SignupForm(allauth_forms.SignupForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update(autocapitalize="none")
        without_placeholders(self)

    def try_save(self, request: HttpRequest):
        """allauth's, but an invitation accepted by someone else meanwhile (AccountAdapter.
        save_user made no account) answers with the invitation's page saying so."""
        try:
            return super().try_save(request)
        except InvitationUnusable as unusable:
            invitation = invitations.holding(request)
            return None, invitations.refused(request, invitation, str(unusable))
