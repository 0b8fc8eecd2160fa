from allauth.account import forms as allauth_forms
from django import forms
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts import invitations
from tournaments.models import Staff
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
