"""The rally's forms: the one entry for several events (public), and the organisers' (the
rally's name and points table, an event and its times, a chapter). Each form only reads what
is typed; rallies.services checks it and says each refusal on its field."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from clubs.season_views import parse_points
from rallies import selectors
from rallies.models import Rally, RallyEvent
from tournaments.models import Tournament


class _LocalTime(forms.DateTimeInput):
    """A time in the site's zone, as a phone's date-and-time picker gives it."""

    input_type = "datetime-local"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M")


class _AnyChoices(forms.MultipleChoiceField):
    """Checkboxes whose values the form's clean reads (an unknown one said by the service)."""

    def validate(self, value) -> None:
        pass


def event_when(event: RallyEvent) -> str:
    """When the event is played, in the active zone: its start's day and time to its end's time,
    the end's day said too when it is another."""
    start = timezone.localtime(event.starts_at)
    end = timezone.localtime(event.ends_at)
    until = (
        formats.time_format(end, "TIME_FORMAT")
        if start.date() == end.date()
        else formats.date_format(end, "SHORT_DATETIME_FORMAT")
    )
    return f"{formats.date_format(start, 'SHORT_DATETIME_FORMAT')} \N{EN DASH} {until}"


def event_label(event: RallyEvent) -> str:
    return f"{event.tournament.name} · {event_when(event)}"


class _EventBoxes(forms.CheckboxSelectMultiple):
    """The events' checkboxes, those that take no entry now shown but disabled."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.closed: set[str] = set()

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if str(value) in self.closed:
            option["attrs"]["disabled"] = True
        return option


# What an event's checkbox says after its name and time, by rallies.selectors.entry_state.
STATE_NOTES = {
    selectors.WAITLIST: _("Full: you would be on its waitlist"),
    selectors.FULL: _("Full"),
    selectors.CLOSED: _("Entries closed"),
}


class RallyEntryForm(forms.Form):
    events = _AnyChoices(
        label=_("The events you enter"),
        required=False,
        widget=_EventBoxes,
        help_text=_("Events played at the same time cannot both be chosen."),
    )
    chapter = forms.CharField(label=_("The chapter you play for"), required=False, max_length=120)
    name = forms.CharField(label=_("Your name"), max_length=120)
    email = forms.EmailField(
        label=_("Email"),
        max_length=254,
        help_text=_("Each event's entry link and your schedule's are mailed here: keep them."),
    )
    phone = forms.CharField(label=_("Phone (optional)"), max_length=40, required=False)
    household = forms.CharField(
        label=_("Household (optional)"),
        max_length=120,
        required=False,
        help_text=_("Coming with a partner? Give the same household name and you sit apart."),
    )
    birth_year = forms.IntegerField(
        label=_("Year of birth (optional)"),
        min_value=1,
        required=False,
        help_text=_("Asked by an event played in age divisions."),
    )
    messages_ok = forms.BooleanField(
        label=_("Mail me where I sit, the results and the organisers' news"), required=False
    )

    def __init__(
        self, *args, rally: Rally, events: list[RallyEvent], states: dict[int, str], **kwargs
    ) -> None:
        """`states`: each event's rallies.selectors.entry_state, by its pk."""
        super().__init__(*args, **kwargs)
        self.rally_events = {str(e.pk): e for e in events}
        self.fields["events"].choices = [
            (
                str(e.pk),
                f"{event_label(e)} · {STATE_NOTES[states[e.pk]]}"
                if states[e.pk] in STATE_NOTES
                else event_label(e),
            )
            for e in events
        ]
        self.fields["events"].widget.closed = {
            str(e.pk) for e in events if states[e.pk] in (selectors.FULL, selectors.CLOSED)
        }
        chapters = list(rally.chapters.values_list("name", flat=True))
        self.fields["chapter"].widget = forms.Select(
            choices=[("", _("No chapter (a guest)"))] + [(name, name) for name in chapters]
        )
        for name, auto in (("name", "name"), ("email", "email"), ("phone", "tel")):
            self.fields[name].widget.attrs["autocomplete"] = auto
        self.fields["phone"].widget.input_type = "tel"

    def clean_events(self) -> list[RallyEvent]:
        chosen = self.cleaned_data.get("events") or []
        if any(value not in self.rally_events for value in chosen):
            raise ValidationError(_("Choose only the rally's own events."))
        return [self.rally_events[value] for value in dict.fromkeys(chosen)]


class RallyForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    points_table = forms.CharField(
        label=_("Points by place"),
        max_length=800,
        required=False,
        help_text=_(
            "The chapter points each event's places give, 1st place first, separated by "
            "commas, e.g. 10, 8, 6, 5, 4, 3, 2, 1. The same table counts for every event."
        ),
    )

    def clean_points_table(self) -> list[int]:
        return parse_points(self.cleaned_data.get("points_table", ""))


class EventForm(forms.Form):
    tournament = forms.ModelChoiceField(label=_("Event"), queryset=Tournament.objects.none())
    starts_at = forms.DateTimeField(label=_("Starts"), widget=_LocalTime())
    ends_at = forms.DateTimeField(label=_("Ends"), widget=_LocalTime())

    def __init__(self, *args, tournaments, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tournament"].queryset = tournaments


class ChapterForm(forms.Form):
    chapter = forms.CharField(label=_("Chapter"), max_length=200, required=False)
