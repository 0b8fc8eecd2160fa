"""The entry form (the public page and the entry's own page)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from entries.models import Entry, Message
from tournaments.models import Tournament
from tournaments.services.divisions import OLDEST


class EntryForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=120)
    email = forms.EmailField(
        label=_("Email"),
        max_length=254,
        help_text=_("Your entry's link is mailed here: keep it to see, change or withdraw it."),
    )
    phone = forms.CharField(label=_("Phone (optional)"), max_length=40, required=False)
    household = forms.CharField(
        label=_("Household (optional)"),
        max_length=120,
        required=False,
        help_text=_("Coming with a partner? Give the same household name and you sit apart."),
    )
    birth_year = forms.IntegerField(
        label=_("Year of birth"), min_value=1, required=False, widget=forms.NumberInput()
    )
    division = forms.ModelChoiceField(
        label=_("Division"), queryset=None, required=False, empty_label=_("Choose by my age")
    )
    club = forms.CharField(label=_("Club (optional)"), max_length=120, required=False)
    chapter = forms.CharField(label=_("Chapter (optional)"), max_length=120, required=False)
    messages_ok = forms.BooleanField(
        label=_("Mail me where I sit, the results and the organisers' news"), required=False
    )

    def __init__(self, *args, tournament: Tournament, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        divisions = tournament.divisions.order_by("order", "name")
        self.fields["division"].queryset = divisions
        aged = [d for d in divisions if d.age_min is not None or d.age_max is not None]
        if not divisions:
            del self.fields["division"]
        if not aged:
            del self.fields["birth_year"]
        else:
            self.fields["birth_year"].max_value = None
            self.fields["birth_year"].help_text = _(
                "Your age division is chosen from it (the age you reach this year)."
            )
        for name in ("name", "email", "phone"):
            self.fields[name].widget.attrs["autocomplete"] = {
                "name": "name", "email": "email", "phone": "tel"
            }[name]  # fmt: skip
        self.fields["phone"].widget.input_type = "tel"
        self.oldest = OLDEST


class EntryChangeForm(forms.ModelForm):
    """What an entrant changes on the entry's page."""

    class Meta:
        model = Entry
        fields = ["name", "email", "phone", "household", "club", "chapter", "messages_ok"]
        labels = {"messages_ok": _("Mail me where I sit, the results and the organisers' news")}
        help_texts = {"messages_ok": ""}  # the label says it all


class MessageForm(forms.Form):
    """An organiser's message to a group (the console's Messages page); each group's label says
    how many it reaches."""

    to = forms.ChoiceField(label=_("To"), choices=Message.To.choices)
    subject = forms.CharField(
        label=_("Subject"), max_length=Message._meta.get_field("subject").max_length
    )
    body = forms.CharField(
        label=_("Message"),
        max_length=Message._meta.get_field("body").max_length,
        widget=forms.Textarea(attrs={"rows": 8}),
    )

    def __init__(self, *args, sizes: dict[str, int], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["to"].choices = [
            (value, _("%(group)s (%(count)s)") % {"group": label, "count": sizes.get(value, 0)})
            for value, label in Message.To.choices
        ]


class _LocalTime(forms.DateTimeInput):
    """A time in the tournament's zone (the console's pages run in it: config/middleware.py)."""

    input_type = "datetime-local"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M")


class EntriesSettingsForm(forms.ModelForm):
    """How the tournament takes entries; services.update_details checks them (close after open,
    the limits), and says each refusal on its field."""

    class Meta:
        model = Tournament
        fields = [
            "entries_open_at", "entries_close_at", "capacity", "waitlist", "offer_hours",
            "entry_fee", "currency",
        ]  # fmt: skip
        widgets = {"entries_open_at": _LocalTime(), "entries_close_at": _LocalTime()}
        help_texts = {
            "entries_open_at": _(
                "In the tournament's time zone. Empty: the entry form stays shut (entries by "
                "hand or import only)."
            ),
            "entry_fee": _("Empty: free. A division's own fee replaces it."),
            "currency": _("Three capitals of ISO 4217, such as USD, EUR or MXN."),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["currency"].widget.attrs.update(
            {"autocapitalize": "characters", "size": 4, "spellcheck": "false"}
        )

    def _post_clean(self) -> None:
        """The service checks the settings (and the instance stays as saved until it has)."""


class OrganiserEntryForm(forms.ModelForm):
    """What an organiser changes of an entry (entering.ORGANISER_FIELDS)."""

    class Meta:
        model = Entry
        fields = [
            "name", "email", "phone", "household", "division", "club", "chapter",
            "messages_ok", "fee_due",
        ]  # fmt: skip

    def __init__(self, *args, tournament: Tournament, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["division"].queryset = tournament.divisions.order_by("order", "name")
        if not tournament.divisions.exists():
            del self.fields["division"]

    def _post_clean(self) -> None:
        """entering.update checks the entry as a whole (a second live entry, the division)."""


class MoveForm(forms.Form):
    position = forms.IntegerField(label=_("Move to place"), min_value=1)
