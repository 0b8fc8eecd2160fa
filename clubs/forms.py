from django import forms
from django.utils.translation import gettext_lazy as _

from clubs.models import Member


class MemberForm(forms.ModelForm):
    class Meta:
        model = Member
        fields = ["name", "member_number", "household", "email", "phone"]


class ImportMembersForm(forms.Form):
    file = forms.FileField(label=_("CSV file with a header row"))
