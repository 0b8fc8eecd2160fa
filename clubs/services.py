"""A club started by an organiser (who becomes its first organiser), and the tournaments it owns
(one club at most for a tournament; only someone who organises both may add it). Its roster:
members added, corrected and imported from CSV; the players of its tournaments linked to them (by
member number, or by an organiser's choice, one player at a time or every exact match of a name
at once: never by a name alone, unasked); a member's data exported and erased on request.

A member number is unique in its club: every path (the form, the CSV import, the players' import)
refuses a number used twice with a message naming the other member, and changes nothing.
"""

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import ladder_services, locks, rating_store
from clubs.models import Club, ClubOrganiser, ClubTournament, Member, PlayerLink
from scoring.models import Score
from tournaments import permissions
from tournaments import services as tournament_services
from tournaments.csvfiles import ImportRejected, read_csv
from tournaments.models import Player, Tournament
from tournaments.signals import ImportLinks
from tournaments.text import check_printable, folded, free_slug, hidden_character

# ---- a club and its tournaments -----------------------------------------------------------------


@transaction.atomic
def start_club(*, name: str, by: AbstractBaseUser, slug: str = "") -> Club:
    """A new club, with `by` as its organiser. Refused for someone who may not create
    tournaments (an official), for an empty name and for a web address another club has."""
    if not permissions.may_create_tournaments(by):
        raise ValidationError(_("Only organisers may start a club."))
    name = name.strip()
    check_printable(name=name)
    if not name:
        raise ValidationError({"name": [_("The name is empty.")]})
    if slug and Club.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": [_("Another club has this web address.")]})
    try:
        with transaction.atomic():
            slug = slug or free_slug(name, Club.objects.all(), fallback="club")
            club = Club.objects.create(name=name, slug=slug)
    except IntegrityError:  # a club with that address was started at the same moment
        raise ValidationError({"slug": [_("Another club has this web address.")]}) from None
    ClubOrganiser.objects.create(club=club, user=by)
    return club


@transaction.atomic
def add_tournament(*, club: Club, tournament: Tournament, by: AbstractBaseUser) -> ClubTournament:
    """The club owns the tournament from now on: its players may be linked to the members."""
    if not permissions.is_organiser(by, tournament):
        raise ValidationError(
            _("Only an organiser of %(tournament)s may add it to a club.")
            % {"tournament": tournament.name}
        )
    owner = ClubTournament.objects.select_related("club").filter(tournament=tournament).first()
    if owner is None:
        try:
            with transaction.atomic():
                return ClubTournament.objects.create(club=club, tournament=tournament)
        except IntegrityError:  # a club took it at the same moment
            owner = ClubTournament.objects.select_related("club").get(tournament=tournament)
    if owner.club_id == club.pk:
        return owner
    raise ValidationError(
        _("%(tournament)s already belongs to %(club)s.")
        % {"tournament": tournament.name, "club": owner.club.name}
    )


@transaction.atomic
def remove_tournament(*, club: Club, tournament: Tournament) -> int:
    """The club no longer owns the tournament: its players' links to members go (the number is
    returned, for the organiser to be told), and no season counts it."""
    ownership = ClubTournament.objects.filter(club=club, tournament=tournament).first()
    if ownership is None:
        raise ValidationError(
            _("%(tournament)s does not belong to %(club)s.")
            % {"tournament": tournament.name, "club": club.name}
        )
    links, _kinds = PlayerLink.objects.filter(player__tournament=tournament).delete()
    ownership.delete()  # the ratings and the season's ladder follow (receivers.forget_tournament)
    return links


# ---- the roster ---------------------------------------------------------------------------------


def owning_club(tournament: Tournament) -> Club | None:
    ownership = ClubTournament.objects.filter(tournament=tournament).select_related("club").first()
    return ownership.club if ownership else None


def _number_taken(member_number: str, other: Member) -> ValidationError:
    message = _("Member number %(number)s is already %(name)s's.")
    return ValidationError(
        {"member_number": [message % {"number": member_number, "name": other.name}]}
    )


def _check_number_free(club: Club, member_number: str, member: Member | None = None) -> None:
    if not member_number:
        return
    others = Member.objects.filter(club=club, member_number=member_number)
    if member is not None:
        others = others.exclude(pk=member.pk)
    if other := others.first():
        raise _number_taken(member_number, other)


def _check_fields(name: str, email: str, phone: str, household: str, member_number: str) -> None:
    check_printable(name=name, household=household, phone=phone, member_number=member_number)
    if not name.strip():
        raise ValidationError({"name": [_("The name is empty.")]})
    if email:
        try:
            validate_email(email)
        except ValidationError as error:
            raise ValidationError({"email": error.messages}) from None


def _save(member: Member, number: str) -> Member:
    try:
        with transaction.atomic():
            member.save()
    except IntegrityError:  # a concurrent request gave the number first
        other = Member.objects.filter(club_id=member.club_id, member_number=number).first()
        if other is None:
            raise
        raise _number_taken(number, other) from None
    return member


@transaction.atomic
def add_member(
    *,
    club: Club,
    name: str,
    member_number: str = "",
    household: str = "",
    email: str = "",
    phone: str = "",
) -> Member:
    """Add a member to the roster; a member number already in it: ValidationError, nothing added."""
    member_number = member_number.strip()
    _check_fields(name, email, phone, household, member_number)
    _check_number_free(club, member_number)
    member = Member(
        club=club,
        name=name.strip(),
        member_number=member_number,
        household=household.strip(),
        email=email.strip(),
        phone=phone.strip(),
    )
    return _save(member, member_number)


@transaction.atomic
def update_member(
    *,
    member: Member,
    name: str,
    member_number: str = "",
    household: str = "",
    email: str = "",
    phone: str = "",
) -> Member:
    """Correct a member's entry; a member number another member has: ValidationError, nothing
    changed. An erased member stays erased (StateConflict-like ValidationError)."""
    member = locks.lock_member(member.pk)
    if member.erased_at is not None:
        raise ValidationError(_("This member's data was erased: there is nothing to edit."))
    member_number = member_number.strip()
    _check_fields(name, email, phone, household, member_number)
    _check_number_free(member.club, member_number, member)
    member.name, member.member_number = name.strip(), member_number
    member.household, member.email, member.phone = household.strip(), email.strip(), phone.strip()
    return _save(member, member_number)


ROSTER_COLUMNS = ("name", "member_number", "household", "email", "phone")
MAX_LENGTHS = {"name": 120, "member_number": 40, "household": 120, "email": 254, "phone": 40}
TOO_LONG = gettext_lazy("the %(column)s is longer than %(limit)s characters")
UNPRINTABLE = gettext_lazy("the %(column)s contains a character that does not print (%(code)s)")


@transaction.atomic
def import_members(*, club: Club, content: bytes) -> list[Member]:
    """Add every member of a roster CSV file, or none: ImportRejected lists every bad row (a
    member number twice in the file or already in the roster among them)."""
    records = read_csv(content, columns=ROSTER_COLUMNS, required=("name",), what="members")
    roster = {m.member_number: m for m in club.members.exclude(member_number="")}
    seen: dict[str, int] = {}
    errors: list[tuple[int, str]] = []
    members: list[Member] = []
    for record in records:
        values, problems = record.values, record.problems
        if not values["name"]:
            problems.append(_("the name is empty"))
        for column, limit in MAX_LENGTHS.items():
            if len(values[column]) > limit:
                problems.append(str(TOO_LONG) % {"column": column, "limit": limit})
            if (code := hidden_character(values[column])) is not None:
                problems.append(str(UNPRINTABLE) % {"column": column, "code": code})
        if values["email"]:
            try:
                validate_email(values["email"])
            except ValidationError:
                problems.append(
                    _("the email %(email)s is not an email address")
                    % {"email": repr(values["email"])}
                )
        if number := values["member_number"]:
            if number in roster:
                problems.append(
                    _("member number %(number)s is already %(name)s's in the roster")
                    % {"number": number, "name": roster[number].name}
                )
            elif number in seen:
                problems.append(
                    _("member number %(number)s is used twice (also on line %(line)s)")
                    % {"number": number, "line": seen[number]}
                )
            else:
                seen[number] = record.line
        if problems:
            errors.append((record.line, record.message()))
            continue
        members.append(Member(club=club, **{column: values[column] for column in ROSTER_COLUMNS}))
    if errors:
        raise ImportRejected(errors)
    try:
        with transaction.atomic():
            return Member.objects.bulk_create(members)
    except IntegrityError:  # a member added meanwhile took one of the numbers
        message = _("A member added meanwhile took one of these numbers: upload the file again.")
        raise ImportRejected([(1, message)]) from None


# ---- players and members ------------------------------------------------------------------------


def candidates(*, player: Player, member_number: str = "") -> list[Member]:
    """The members of the player's tournament's club who may be this player: the one with
    `member_number` (exactly), then those whose name is the player's, accents, capitals and
    spaces aside. Erased members never are."""
    club = owning_club(player.tournament)
    if club is None:
        return []
    roster = club.members.filter(erased_at__isnull=True).order_by("name", "pk")
    found: list[Member] = []
    if member_number := member_number.strip():
        found.extend(roster.filter(member_number=member_number))
    name = folded(player.name)
    found.extend(m for m in roster if folded(m.name) == name and m not in found)
    return found


def name_candidates(*, tournament: Tournament) -> dict[int, list[Member]]:
    """For each player of the tournament not linked yet, the members whose name is theirs
    (candidates by name, for the whole list at once). Erased members never are."""
    club = owning_club(tournament)
    if club is None:
        return {}
    by_name: dict[str, list[Member]] = {}
    for member in club.members.filter(erased_at__isnull=True).order_by("name", "pk"):
        by_name.setdefault(folded(member.name), []).append(member)
    players = tournament.players.filter(member_link__isnull=True)
    return {player.pk: by_name.get(folded(player.name), []) for player in players}


@transaction.atomic
def link(
    *,
    player: Player,
    member: Member,
    by: AbstractBaseUser | None,
    how: str = PlayerLink.How.NAME,
    rerate: bool = True,
) -> PlayerLink:
    """Link the player to the member, as an organiser chose (or by member number), and rate the
    club again from the tournament's event (not with `rerate` False: a caller linking many
    asks once). Linking twice
    is harmless; a player linked to another member, or a member linked to another player of the
    tournament, is refused: unlink first. Erased members cannot be linked."""
    club = owning_club(player.tournament)
    if club is None or member.club_id != club.pk:
        raise ValidationError(
            _("%(name)s is not a member of the club that owns %(tournament)s.")
            % {"name": member.name, "tournament": player.tournament.name}
        )
    # Locked: two links of one member in one tournament at the same moment would count them
    # twice; the member before the player, in clubs/locks.py's order.
    member = locks.lock_member(member.pk)
    player = locks.lock_player(player.pk)
    if member.erased_at is not None:
        raise ValidationError(_("This member's data was erased: nobody can be linked to it."))
    existing = PlayerLink.objects.filter(player=player).select_related("member").first()
    if existing is not None:
        if existing.member_id == member.pk:
            return existing
        raise ValidationError(
            _("#%(number)s %(player)s is already linked to %(member)s: unlink them first.")
            % {"number": player.number, "player": player.name, "member": existing.member.name}
        )
    other = (
        PlayerLink.objects.filter(member=member, player__tournament_id=player.tournament_id)
        .select_related("player")
        .first()
    )
    if other is not None:
        raise ValidationError(
            _("%(member)s is already linked to #%(number)s %(player)s in this tournament.")
            % {"member": member.name, "number": other.player.number, "player": other.player.name}
        )
    created = PlayerLink.objects.create(player=player, member=member, how=how, linked_by=by)
    if rerate:  # the player's rounds count for the member now
        rating_store.request_rating(club_id=club.pk, tournament_id=player.tournament_id)
        # And their place, on the ladder of a decided event's season (an import's links come
        # before the placings: nothing to rebuild then).
        ladder_services.request_ladders_of(tournament_id=player.tournament_id, decided_only=True)
    return created


@transaction.atomic
def unlink(*, player: Player) -> None:
    """The player is nobody on the roster (a wrong choice undone). Harmless twice."""
    deleted, _kinds = PlayerLink.objects.filter(player=player).delete()
    club = owning_club(player.tournament) if deleted else None
    if club is not None:  # the player's rounds no longer count for the member
        rating_store.request_rating(club_id=club.pk, tournament_id=player.tournament_id)
        ladder_services.request_ladders_of(tournament_id=player.tournament_id, decided_only=True)


@dataclass(frozen=True)
class SameNames:
    """What link_same_names did: the players it linked, and those it left for a person."""

    linked: list[Player]
    several_members: list[Player]  # more than one member has the player's name
    several_players: list[Player]  # another player not linked yet has the same name


@transaction.atomic
def link_same_names(*, tournament: Tournament, by: AbstractBaseUser | None) -> SameNames:
    """Link, in one step an organiser asked for, every player not linked yet whose name is
    exactly one member's: the same name as `candidates` compares them (tournaments.text.folded:
    accents, capitals and spaces aside), one member of the club not erased and not linked to
    another player of the tournament, and no other player not linked with that name. The others
    are left for a person to choose, and said. Undone with unlink_players."""
    club = owning_club(tournament)
    if club is None:
        raise ValidationError(
            _("%(tournament)s belongs to no club.") % {"tournament": tournament.name}
        )
    taken = PlayerLink.objects.filter(player__tournament=tournament).values("member_id")
    by_name: dict[str, list[Member]] = {}
    for member in club.members.filter(erased_at__isnull=True).exclude(pk__in=taken):
        by_name.setdefault(folded(member.name), []).append(member)
    players = list(tournament.players.filter(member_link__isnull=True).order_by("number", "pk"))
    namesakes = Counter(folded(player.name) for player in players)
    # Every member it may link, locked at once by id (clubs/locks.py), as link_by_numbers does.
    locks.lock_members(member.pk for name in namesakes for member in by_name.get(name, ()))
    done = SameNames([], [], [])
    for player in players:
        name = folded(player.name)
        found = by_name.get(name, [])
        if len(found) > 1:
            done.several_members.append(player)
        elif found and namesakes[name] > 1:
            done.several_players.append(player)
        elif found:
            link(player=player, member=found[0], by=by, how=PlayerLink.How.NAME, rerate=False)
            done.linked.append(player)
    if done.linked:  # one run for them all, from the tournament's event
        rating_store.request_rating(club_id=club.pk, tournament_id=tournament.pk)
        ladder_services.request_ladders_of(tournament_id=tournament.pk, decided_only=True)
    return done


@transaction.atomic
def unlink_players(*, tournament: Tournament, player_ids: list[int]) -> int:
    """Unlink these players of the tournament (link_same_names undone in one step); how many
    were linked is returned. Players of another tournament are left alone; harmless twice."""
    deleted, _kinds = PlayerLink.objects.filter(
        player__tournament=tournament, player_id__in=player_ids
    ).delete()
    club = owning_club(tournament) if deleted else None
    if club is not None:
        rating_store.request_rating(club_id=club.pk, tournament_id=tournament.pk)
        ladder_services.request_ladders_of(tournament_id=tournament.pk, decided_only=True)
    return deleted


@transaction.atomic
def link_by_numbers(
    *, tournament: Tournament, numbers: dict[int, str], by: AbstractBaseUser | None
) -> ImportLinks:
    """Link the players of an import to the members with their member numbers, in the club
    that owns the tournament; what could not be linked, said in sentences for the organiser,
    and the numbers no member has."""
    club = owning_club(tournament)
    if club is None:
        note = _("%(tournament)s belongs to no club: the member numbers were not linked.")
        return ImportLinks([note % {"tournament": tournament.name}], list(numbers.values()))
    members = {
        m.member_number: m
        for m in club.members.filter(member_number__in=set(numbers.values()), erased_at=None)
    }
    # Every member the import links, locked at once by id: two imports of one club linking some
    # of the same members in another order would each hold one the other waits for.
    locks.lock_members(member.pk for member in members.values())
    players = Player.objects.in_bulk(list(numbers))
    notes: list[str] = []
    unknown: list[str] = []
    linked = False
    for player_id, number in numbers.items():
        member = members.get(number)
        if member is None:
            unknown.append(number)
            continue
        try:
            link(
                player=players[player_id],
                member=member,
                by=by,
                how=PlayerLink.How.IMPORT,
                rerate=False,
            )
        except ValidationError as refused:
            notes.extend(refused.messages)
        else:
            linked = True
    if linked:  # one run for the whole import, from its event
        rating_store.request_rating(club_id=club.pk, tournament_id=tournament.pk)
    if unknown:
        notes.insert(
            0,
            _("No member of %(club)s has the member number %(numbers)s: not linked.")
            % {"club": club.name, "numbers": ", ".join(unknown)},
        )
    return ImportLinks(notes, unknown)


# ---- a person's data ----------------------------------------------------------------------------


def export_member(*, member: Member) -> dict[str, Any]:
    """Everything Roundhouse holds about the member, as JSON can write it: the roster's entry,
    then each tournament they were linked in, with their entry and round scores."""
    links = member.links.select_related("player__tournament", "player__division", "linked_by")
    tournaments = []
    for entry in links.order_by("player__tournament__starts_on", "pk"):
        player = entry.player
        scores = Score.objects.filter(player=player)
        scores = scores.select_related("result__stage", "result__table")
        tournaments.append(
            {
                "tournament": player.tournament.name,
                "slug": player.tournament.slug,
                "starts_on": _date(player.tournament.starts_on),
                "player": {
                    "number": player.number,
                    "name": player.name,
                    "household": player.household,
                    "club": player.club,
                    "division": player.division.name if player.division else "",
                    "status": player.status,
                },
                "linked": {
                    "how": entry.how,
                    "at": entry.linked_at.isoformat(),
                    "by": entry.linked_by.get_username() if entry.linked_by else "",
                },
                "scores": [
                    {
                        "stage": score.result.stage.order,
                        "table": score.result.table.number,
                        "round": score.result.round_no,
                        "pips": score.pips,
                        "went_out": score.went_out,
                        "status": score.result.status,
                    }
                    for score in scores.order_by("result__stage__order", "result__round_no")
                ],
            }
        )
    return {
        "club": member.club.name,
        "member": {
            "name": member.name,
            "member_number": member.member_number,
            "household": member.household,
            "email": member.email,
            "phone": member.phone,
            "added_at": member.created_at.isoformat(),
            "erased_at": member.erased_at.isoformat() if member.erased_at else None,
        },
        "tournaments": tournaments,
    }


def _date(day: Any) -> str | None:
    return day.isoformat() if day else None


def anonymised_name(member: Member) -> str:
    return _("Former member %(id)s") % {"id": member.pk}


@transaction.atomic
def erase_member(*, member: Member, by: AbstractBaseUser | None) -> Member:
    """Erase the member's data on their request: contact, household and member number blanked,
    the name replaced by an anonymised one, in the roster and in every tournament they played
    (their entries' history too), so that standings and exports show only that. Erasing twice is
    harmless. The member is never a candidate again and cannot be linked."""
    member = locks.lock_member(member.pk)
    if member.erased_at is not None:
        return member
    name = anonymised_name(member)
    for entry in member.links.select_related("player"):
        player = entry.player
        tournament_services.update_player(
            player=player, number=player.number, name=name, household="", club=player.club, by=by
        )
        # The entry's history kept the name as it was typed: the person asked for it gone.
        Player.history.filter(id=player.pk).update(name=name, household="")
    member.name, member.member_number, member.household = name, "", ""
    member.email, member.phone, member.erased_at = "", "", timezone.now()
    member.save()
    return member
