"""Every change of a rally: made, named, its points table, its events and their times, its
chapters, closed and opened again; and the one entry for several of its events. A refusal is a
ValidationError by field (a wrong input) or a StateConflict, and changes nothing."""

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from entries.models import Entry
from entries.services import entering, mail
from rallies.models import Chapter, Rally, RallyEntry, RallyEvent
from tournaments.exceptions import StateConflict
from tournaments.models import Tournament
from tournaments.permissions import is_organiser
from tournaments.text import check_printable, free_slug

# A points table's longest: a place per player of a big rally's event.
MOST_PLACES = 200


def check_points_table(table: Sequence[int]) -> list[int]:
    """The table as whole numbers of 0 or more, 1st place first; refused when empty, too long,
    or not numbers (the form's text is read by clubs.season_views.parse_points)."""
    if not table:
        said = _("Give the points for each place, 1st place first, e.g. 10, 8, 6, 5, 4, 3, 2, 1.")
    elif len(table) > MOST_PLACES:
        said = _("Give points for %(most)s places at most.") % {"most": MOST_PLACES}
    elif any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in table):
        said = _("Points are whole numbers of 0 or more, 1st place first.")
    else:
        return list(table)
    raise ValidationError({"points_table": [said]})


def _check_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ValidationError({"name": [_("Give the rally a name.")]})
    check_printable(name=name)
    return name


@transaction.atomic
def create_rally(
    *, name: str, by: AbstractBaseUser, points_table: Sequence[int] | None = None, slug: str = ""
) -> Rally:
    """A new rally, its maker its organiser; its web address made from the name unless given."""
    name = _check_name(name)
    table = check_points_table(points_table) if points_table is not None else None
    if slug and Rally.objects.filter(slug=slug).exists():
        raise ValidationError(
            {"slug": [_("Another rally has the address %(slug)s.") % {"slug": slug}]}
        )
    rally = Rally(name=name, slug=slug or free_slug(name, Rally.objects.all(), fallback="rally"))
    if table is not None:
        rally.points_table = table
    rally.save()
    rally.organisers.add(by)
    return rally


def update_rally(rally: Rally, *, name: str, points_table: Sequence[int]) -> Rally:
    rally.name = _check_name(name)
    rally.points_table = check_points_table(points_table)
    rally.save(update_fields=["name", "points_table"])
    return rally


def _local(moment: datetime) -> str:
    return formats.date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


@transaction.atomic
def add_event(
    *,
    rally: Rally,
    tournament: Tournament,
    starts_at: datetime,
    ends_at: datetime,
    by: AbstractBaseUser,
) -> RallyEvent:
    """One of the organiser's events in the rally, with its times."""
    if not is_organiser(by, tournament):
        raise ValidationError(
            {
                "tournament": [
                    _("You are not an organiser of %(tournament)s: only its organisers may add it.")
                    % {"tournament": tournament.name}
                ]
            }
        )
    if ends_at <= starts_at:
        raise ValidationError({"ends_at": [_("The event must end after it starts.")]})
    if rally.events.filter(tournament=tournament).exists():
        raise ValidationError(
            {
                "tournament": [
                    _("%(tournament)s is in the rally already.") % {"tournament": tournament.name}
                ]
            }
        )
    return RallyEvent.objects.create(
        rally=rally, tournament=tournament, starts_at=starts_at, ends_at=ends_at
    )


def remove_event(event: RallyEvent) -> None:
    """The event out of the rally: its entries stay entries of the event (the organisers of
    the event withdraw them), and its points no longer count."""
    event.delete()


def add_chapter(*, rally: Rally, name: str) -> Chapter:
    name = name.strip()
    if not name:
        raise ValidationError({"chapter": [_("Give the chapter's name.")]})
    check_printable(chapter=name)
    if len(name) > Chapter._meta.get_field("name").max_length:
        raise ValidationError({"chapter": [_("A chapter's name is 120 characters at most.")]})
    if rally.chapters.filter(name__iexact=name).exists():
        raise ValidationError(
            {
                "chapter": [
                    _("%(rally)s has a chapter %(name)s already.")
                    % {"rally": rally.name, "name": name}
                ]
            }
        )
    return Chapter.objects.create(rally=rally, name=name)


def chapter_entries(chapter: Chapter) -> int:
    """The live entries of the rally's events that play for the chapter."""
    events = chapter.rally.events.values_list("tournament_id", flat=True)
    return Entry.objects.filter(
        tournament_id__in=events, chapter__iexact=chapter.name, status__in=Entry.LIVE
    ).count()


def remove_chapter(chapter: Chapter) -> None:
    """A chapter taken away, only while no entry plays for it (its players would score for
    nobody without being told)."""
    held = chapter_entries(chapter)
    if held:
        raise StateConflict(
            _(
                "%(count)s entries play for %(name)s: they change their chapter on their entry's "
                "page first, or the organisers on theirs."
            )
            % {"count": held, "name": chapter.name}
        )
    chapter.delete()


def close_rally(rally: Rally) -> Rally:
    """The standings final now, every event decided or not: "most points" is said."""
    if rally.closed_at is None:
        rally.closed_at = timezone.now()
        rally.save(update_fields=["closed_at"])
    return rally


def reopen_rally(rally: Rally) -> Rally:
    """Undo a close: the standings live again until every event is decided."""
    rally.closed_at = None
    rally.save(update_fields=["closed_at"])
    return rally


# ---- one entry for several events ----------------------------------------------------------


def clashes(events: Sequence[RallyEvent]) -> list[tuple[RallyEvent, RallyEvent]]:
    """Each pair of these events whose times overlap, in time order."""
    ordered = sorted(events, key=lambda e: (e.starts_at, e.pk))
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :] if a.overlaps(b)]


def _check_choice(rally: Rally, events: Sequence[RallyEvent], chapter: str) -> Chapter | None:
    errors: dict[str, list[str]] = {}
    if not events:
        errors["events"] = [_("Choose at least one of the rally's events to enter.")]
    elif any(e.rally_id != rally.pk for e in events):
        errors["events"] = [_("Choose only the rally's own events.")]
    else:
        said = [
            _(
                "%(first)s (%(first_time)s) and %(second)s (%(second_time)s) are played at the "
                "same time: choose one of them."
            )
            % {
                "first": a.tournament.name,
                "first_time": _local(a.starts_at),
                "second": b.tournament.name,
                "second_time": _local(b.starts_at),
            }
            for a, b in clashes(events)
        ]
        if said:
            errors["events"] = said
    found = None
    if chapter.strip():
        found = rally.chapters.filter(name__iexact=chapter.strip()).first()
        if found is None:
            names = ", ".join(rally.chapters.values_list("name", flat=True))
            errors["chapter"] = [
                _("%(name)s is not a chapter of %(rally)s: choose one of %(names)s, or no chapter.")
                % {"name": chapter.strip(), "rally": rally.name, "names": names or _("(none yet)")}
            ]
    if errors:
        raise ValidationError(errors)
    return found


def enter_rally(
    *,
    rally: Rally,
    events: Sequence[RallyEvent],
    chapter: str,
    details: entering.Details,
    origin: str = "",
    language: str = "en",
) -> RallyEntry:
    """An entry in each chosen event (entries.services.entering.enter: the event's places, fee
    and waitlist), all or none: the first event that refuses undoes the others, and its
    refusal says which event. The player's chapter (one of the rally's, or none) is on every
    entry. A name and email that hold an entry already have that entry's link mailed again."""
    found = _check_choice(rally, events, chapter)
    try:
        return _enter_all(
            rally,
            sorted(events, key=lambda e: (e.starts_at, e.pk)),
            found,
            details,
            origin,
            language,
        )
    except entering.DuplicateEntry as duplicate:
        # Its mail went with the rolled-back transaction: sent again now.
        mail.entry_mail(duplicate.entry, duplicate.entry.status, again=True)
        raise


@transaction.atomic
def _enter_all(
    rally: Rally,
    events: list[RallyEvent],
    chapter: Chapter | None,
    details: entering.Details,
    origin: str,
    language: str,
) -> RallyEntry:
    named = entering.Details(**{**details.__dict__, "chapter": chapter.name if chapter else ""})
    made = []
    for event in events:
        try:
            made.append(
                entering.enter(
                    tournament=event.tournament, details=named, origin=origin, language=language
                )
            )
        except ValidationError as error:
            raise ValidationError(
                {
                    field: [f"{event.tournament.name}: {text}" for text in texts]
                    for field, texts in (
                        error.message_dict
                        if hasattr(error, "error_dict")
                        else {"events": error.messages}
                    ).items()
                }
            ) from None
        except entering.DuplicateEntry:
            raise
        except StateConflict as conflict:
            raise StateConflict(f"{event.tournament.name}: {conflict}") from None
    rally_entry = RallyEntry.objects.create(rally=rally, name=named.name.strip(), chapter=chapter)
    rally_entry.entries.set(made)
    return rally_entry
