"""Every page a person uses, and the event they are seen on, for the page sweep
(tests/browser/test_every_page_fits.py).

The event is the demo's: Lakeside half-played (a correction, a withdrawal, a tie to decide at
table 10) and Riverside finished. With ROUNDHOUSE_SCREENSHOTS=<dir>, `shoot` saves a full-page
PNG of the page there (es-phone-standings.png).
"""

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from clubs.demo import CLUB_SLUG, SEASON_SLUG, load_club_demo
from clubs.models import Club, Member, Season
from entries.demo import demo_entry, load_entries_demo
from entries.models import Entry, Payment
from scoring import services as scoring_services
from scoring.demo import (
    DEMO_OFFICIAL,
    DEMO_ORGANISER,
    FINISHED_SLUG,
    load_demo,
    pending_invitation,
)
from scoring.demo_club_night import CLUB_NIGHT_SLUG
from scoring.models import RoundResult
from tables import services as table_services
from tables.models import Table
from tests.browser.conftest import PHONE
from tests.snapshots import restored
from tournaments.models import Invitation, Player, Staff, Tournament
from tournaments.services import staff as staffing

SIZES = {
    "phone": PHONE,
    "tablet": {"width": 820, "height": 1180},
    "desktop": {"width": 1440, "height": 900},
}
LOCALES = {"en": "en-US", "es": "es-ES"}
SHOTS = os.environ.get("ROUNDHOUSE_SCREENSHOTS", "")

# Words a Spanish page may share with the English one: not untranslated, the same in both.
SAME_IN_BOTH = {
    "Roundhouse", "Total", "Club", "CSV", "PDF", "API", "ETag", "provisional", "Cheque",
}  # fmt: skip

# Table 10 replays its rounds so that its first two seats tie on every tie-break: the same
# pips every round, neither going out. (went out, {seat index: pips}); None went out: blocked.
TIED_ROUNDS = [
    (2, {0: 6, 1: 6, 2: 0}),
    (None, {0: 4, 1: 4, 2: 30}),
    (2, {0: 7, 1: 7, 2: 0}),
    (None, {0: 3, 1: 3, 2: 28}),
]
OTHERS_PIPS = 33  # seat 4, when the table has one
REASON = "Pips of seats 1 and 2 were swapped on the paper sheet"


@dataclass(frozen=True)
class Event:
    slug: str
    entry_table: Table  # rounds 1-2 confirmed, round 3 to enter
    check_table: Table  # round 3 entered, for the players to check
    tied_table: Table  # every round confirmed, its first two seats tied for the win
    corrected_round: int
    withdrawable: Player
    withdrawn: Player
    invitation: Invitation  # pending, an official's
    tablets_link: Invitation  # a link for 10 tablets, 3 of them joined
    used_up_link: Invitation  # a link for 2 tablets, both joined
    entry_page: str  # an entrant's own page, in the demo's event taking entries
    data: frozenset[str]  # what the organisers typed: names, clubs, stages, usernames
    entry: Entry  # a player's entry, taken before the day (with another still waiting)


def build_event() -> Event:
    """The event, made once per test process and put back for each test after the first
    (tests/snapshots.py): every test of the sweep starts on it as built."""
    return restored("every_page.build_event", make_event)


def make_event() -> Event:
    lakeside, _ = load_demo()
    invitation = pending_invitation(lakeside)
    official = lakeside.staff.get(user__username=DEMO_OFFICIAL).user
    organiser = lakeside.staff.get(user__username=DEMO_ORGANISER).user
    tablets_link, used_up_link = (
        staffing.create_invitation(
            tournament=lakeside, role="official", by=organiser, devices=devices
        )
        for devices in (10, 2)
    )
    for link, joining in ((tablets_link, 3), (used_up_link, 2)):
        for _ in range(joining):
            staffing.join_on_tablet(invitation=link)
        link.refresh_from_db()
    stage = lakeside.stages.get(order=1)
    tables = {table.number: table for table in stage.tables.all()}
    # The demo as README.md tells it: round 3 entered at tables 1-8, checked at 1-6.
    reported = RoundResult.objects.filter(stage=stage, round_no=3)
    assert reported.filter(table=tables[7], status=RoundResult.Status.SUBMITTED).exists()
    assert not reported.filter(table__in=[tables[9], tables[10]]).exists()
    meta = scoring_services.RequestMeta(source="web", ip_address="10.0.0.7")

    tied = tables[10]
    players = [seat.player_id for seat in tied.seats.order_by("position")]
    for round_no, (went_out, pips) in enumerate(TIED_ROUNDS, start=1):
        scores = [
            {
                "player": pid,
                "pips": pips.get(index, OTHERS_PIPS),
                "went_out": index == went_out,
            }
            for index, pid in enumerate(players)
        ]
        data = {"blocked": went_out is None, "scores": scores}
        existing = RoundResult.objects.filter(table=tied, round_no=round_no).first()
        if existing is not None:  # a correction of a confirmed round: If-Match and a reason
            data["reason"] = REASON
        outcome = scoring_services.submit_round_result(
            table=tied,
            round_no=round_no,
            data=data,
            by=official,
            if_match=existing.etag if existing else None,
            meta=meta,
        )
        scoring_services.confirm_round_result(result=outcome.result, by=official, meta=meta)

    withdrawn = tables[3].seats.order_by("position").first().player
    table_services.withdraw_player(player=withdrawn, by=organiser)
    load_club_demo(organiser, official)  # the Pine Valley club, its season of six nights
    taking = load_entries_demo(organiser, official)  # Winter Round-Up, entries open
    entrants = demo_entry(taking)
    entry = _entries(lakeside, tables[6].seats.order_by("position").first().player)

    data = {
        *Player.objects.values_list("name", flat=True),
        *Player.objects.exclude(club="").values_list("club", flat=True),
        *Player.objects.exclude(household="").values_list("household", flat=True),
        *Tournament.objects.values_list("name", flat=True),
        *Tournament.objects.values_list("slug", flat=True),
        *Tournament.objects.exclude(venue="").values_list("venue", flat=True),
        *Club.objects.values_list("name", flat=True),
        *Season.objects.values_list("name", flat=True),
        *Member.objects.exclude(member_number="").values_list("member_number", flat=True),
        *lakeside.stages.values_list("name", flat=True),
        *Tournament.objects.get(slug=FINISHED_SLUG).stages.values_list("name", flat=True),
        DEMO_OFFICIAL,
        DEMO_ORGANISER,
        *Staff.objects.filter(joined_via="tablet").values_list("user__username", flat=True),
        "admin",
        REASON,
        *Entry.objects.values_list("name", flat=True),
        *Entry.objects.values_list("email", flat=True),
        *Entry.objects.values_list("check_in_code", flat=True),
    }
    return Event(
        slug=lakeside.slug,
        entry_table=tables[9],
        check_table=tables[7],
        tied_table=tied,
        corrected_round=1,
        withdrawable=tables[4].seats.order_by("position").first().player,
        withdrawn=withdrawn,
        invitation=invitation,
        tablets_link=tablets_link,
        used_up_link=used_up_link,
        entry_page=f"/t/{taking.slug}/entry/{entrants.manage_key}/",
        data=frozenset(data),
        entry=entry,
    )


def _entries(tournament: Tournament, player: Player) -> Entry:
    """The entries the demo's Lakeside took before the day (entries closed when it was seated):
    a player's, with a fee part paid, and one left waiting. Written as they stand."""
    entry = Entry.objects.create(
        tournament=tournament,
        player=player,
        status=Entry.Status.ENTERED,
        name=player.name,
        email="entrant@example.org",
        check_in_code="QRST2345",
        fee_due=Decimal("10.00"),
    )
    Payment.objects.create(entry=entry, amount=Decimal("5.00"), method=Payment.Method.CASH)
    Entry.objects.create(
        tournament=tournament,
        status=Entry.Status.WAITLISTED,
        waitlist_position=1,
        name="Wendy Waite",
        email="wendy@example.org",
        fee_due=Decimal("10.00"),
    )
    return entry


@dataclass(frozen=True)
class Visit:
    """A page as a person reaches it: its path, then what they do there, then what it says."""

    name: str
    path: str
    english: str  # words of the page, in its main part
    spanish: str  # the same words in Spanish
    then: Callable | None = None
    status: int | None = None  # what it answers when not a 2xx (a page saying why it refuses)


def upload(page, name: str, text: str, button: str) -> None:
    if page.locator("#add-players:not([open])").count():  # the console folds its upload away
        page.click("#add-players summary")
    page.set_input_files(
        "#id_file", files=[{"name": name, "mimeType": "text/csv", "buffer": text.encode()}]
    )
    with page.expect_navigation():
        page.click(button)


def bad_players_file(page) -> None:
    upload(page, "players.csv", "number,name\n1,Ann\n1,Bob\n3,\nx,Cy\n", "#import-h ~ button")


def bad_scores_file(page) -> None:
    header = "stage,table,round,engine,number,name,pips,went_out,status\n"
    upload(page, "scores.csv", header + "Qualifying,9,3,11,1,Zed,0,maybe,\n", "main form button")


def bad_round(page) -> None:
    """The official types a word for one score and ticks nobody: the page says what is wrong."""
    page.locator("input.pips").first.fill("a dozen")
    page.click("#round-form button[type=submit]")
    page.locator(".js-error:not([hidden])").first.wait_for()


def club_night_table(number: int) -> Table:
    """A table of the demo's Thursday Club Night, whose players report (table 3: rounds 1-2
    confirmed, round 3 not entered; table 1: round 3 waiting for a second player)."""
    return Table.objects.get(stage__tournament__slug=CLUB_NIGHT_SLUG, number=number)


# The seats the sweep's phones claim at the club night's table 3, by language.
SEAT_OF_LANGUAGE = {"en": 1, "es": 2}


def claim_seat(page, language: str) -> None:
    """The phone takes its seat as a player does: the table's code, then the badge number."""
    table = club_night_table(3)
    seat = table.seats.select_related("player").get(position=SEAT_OF_LANGUAGE[language])
    page.goto(f"/seat/{table.code}/")
    page.fill("#seat-number", str(seat.player.number))
    with page.expect_navigation():
        page.click("form.seat-form button[type=submit]")


def wrong_badge(page) -> None:
    """A badge number of no player at the table: the claim page says so, beside the box."""
    page.fill("#seat-number", "999")
    with page.expect_navigation():
        page.click("form.seat-form button[type=submit]")


def progress_loaded(page) -> None:
    page.locator("section.progress").first.wait_for()


def visits_for(event: Event, who: str) -> list[Visit]:
    t = f"/t/{event.slug}"
    if who == "anyone":
        visits = [
            Visit("home", "/", "Tournaments", "Torneos"),
            Visit("standings", f"{t}/", "results in.", "resultados recibidos."),
            Visit("sheet", f"{t}/tables/1/1/", "Lowest total wins", "Gana el total más bajo"),
            Visit("player", f"{t}/players/3/", "Round (engine)", "Ronda (doble inicial)"),
            Visit("find-player", f"{t}/players/?q=ram", "Find a player", "Buscar un jugador"),
            Visit(
                "find-your-table",
                f"{t}/find-your-table/",
                "with their table and seat",
                "con su mesa y su asiento",
            ),
            Visit(
                "bracket", f"/t/{FINISHED_SLUG}/bracket/", "Final placings", "Clasificación final"
            ),
            Visit("screen", f"{t}/screen/", "Newest results", "Últimos resultados"),
            Visit(
                "results", f"/t/{FINISHED_SLUG}/results/", "final standings", "clasificación final"
            ),
            Visit("results-not-final", f"{t}/results/", "not final yet", "aún no son definitivos"),
            Visit(
                "certificates",
                f"/t/{FINISHED_SLUG}/results/certificates/",
                "1st place",
                "1.er puesto",
            ),
            Visit(
                "how-it-works",
                f"{t}/how-it-works/",
                "How a round is scored",
                "Cómo se puntúa una ronda",
            ),
            Visit("kiosk", f"{t}/check-in/", "Check in to", "Llegada a"),
            Visit("seat-code", "/seat/", "Table code", "Código de la mesa"),
            Visit(
                "seat-claim",
                f"/seat/{club_night_table(3).code}/",
                "Your badge number",
                "Su número de credencial",
            ),
            Visit(
                "seat-claim-wrong-badge",
                f"/seat/{club_night_table(3).code}/",
                "is not at table 3",
                "no está en la mesa 3",
                then=wrong_badge,
            ),
            Visit("help", "/help/", "Help for organisers", "Ayuda para organizadores"),
            Visit(
                "register",
                f"{t}/register/",
                "does not take entries here",  # the demo takes none of its own
                "no acepta inscripciones aquí",
            ),
            Visit(
                "entry",
                f"{t}/entry/{event.entry.manage_key}/",
                "Your check-in code",
                "Su código de llegada",
            ),
            Visit("login", "/accounts/login/", "Sign in", "Iniciar sesión"),
            Visit("signup", "/accounts/signup/", "Sign up as an organiser", "Registrarse como"),
            Visit(
                "password-reset",
                "/accounts/password/reset/",
                "Password Reset",
                "Restablecer",
            ),
            Visit(
                "join",
                f"/join/{event.invitation.key}/",
                "Continue without an account",
                "Continuar sin cuenta",
            ),
            Visit(
                "join-tablets",
                f"/join/{event.tablets_link.key}/",
                "3 of 10 tablets joined",
                "3 de 10 tabletas han entrado",
            ),
            Visit(
                "join-used-up",
                f"/join/{event.used_up_link.key}/",
                "for a new link",
                "un enlace nuevo",
                status=409,
            ),
            Visit(
                "entry-erase",
                f"{event.entry_page}erase/",
                "Your entry will be withdrawn first",
                "Antes se retirará su inscripción",
            ),
        ]
    club, member = f"/c/{CLUB_SLUG}", club_member()
    if who == "anyone":
        visits += [
            Visit("club", f"{club}/", "Seasons", "Temporadas"),
            Visit(
                "ladder",
                f"{club}/seasons/{SEASON_SLUG}/",
                "Download the ladder (CSV)",
                "Descargar la clasificación de temporada (CSV)",
            ),
            Visit("member", f"{club}/members/{member}/", "Events played", "Eventos jugados"),
        ]
        return visits
    if who == "seat":  # a player's phone at the club night's table 3
        table = club_night_table(3)
        night = f"/t/{CLUB_NIGHT_SLUG}/enter/{table.pk}"
        return [
            Visit("seat-table", "/seat/table/", "Enter round 3", "Anotar la ronda 3"),
            Visit("seat-round-entry", f"{night}/3/", "Went out", "Salió"),
            Visit("seat-dispute", "/seat/table/2/dispute/", "What is wrong?", "¿Qué está mal?"),
        ]
    enter = f"{t}/enter"
    if who == "official":
        entry = f"{enter}/{event.entry_table.pk}/3/"
        return [
            Visit("enter", f"{enter}/", "Choose your table.", "Elija su mesa."),
            Visit("round-entry", entry, "Went out", "Salió"),
            Visit("round-entry-error", entry, "whole number", "número entero", then=bad_round),
            Visit(
                "check",
                f"{enter}/{event.check_table.pk}/3/check/",
                "Players, please check",
                "Jugadores, comprueben por favor",
            ),
            Visit(
                "table-done",
                f"{enter}/{event.tied_table.pk}/",
                "every round is confirmed",
                "todas las rondas están confirmadas",
            ),
        ]
    manage = f"{t}/manage"
    return [
        Visit("console", f"{manage}/", "organiser console", "panel del organizador"),
        Visit("console-stages", f"{manage}/stages/", "Add a stage", "Añadir una fase"),
        Visit(
            "console-progress",
            f"{manage}/progress/",
            "organiser console",
            "panel del organizador",
            then=progress_loaded,
        ),
        Visit(
            "console-results", f"{manage}/results/", "organiser console", "panel del organizador"
        ),
        Visit("console-downloads", f"{manage}/downloads/", "players.csv", "players.csv"),
        Visit(
            "console-messages",
            f"{manage}/messages/",
            "Write to the players",
            "Escribir a los jugadores",
        ),
        Visit(
            "console-entries", f"{manage}/entries/", "Entries in order", "Inscripciones por orden"
        ),
        Visit(
            "console-entry",
            f"{manage}/entries/{event.entry.pk}/",
            "Fee due",
            "Cuota debida",
        ),
        Visit(
            "console-fees", f"{manage}/fees/", "The treasurer's totals", "Los totales del tesorero"
        ),
        Visit("console-prizes", f"{manage}/prizes/", "Whole event", "Todo el torneo"),
        Visit(
            "console-prizes-event",
            f"{manage}/prizes/event/",
            "Save the prizes",
            "Guardar los premios",
        ),
        Visit(
            "import-players-errors",
            f"{manage}/",
            "Nothing was imported.",
            "No se importó nada.",
            then=bad_players_file,
        ),
        Visit("new-tournament", "/new/", "New tournament", "Nuevo torneo"),
        Visit("stage", f"{manage}/stages/1/", "Add a late player", "Añadir un jugador que llega"),
        Visit(
            "stage-pending",
            f"{manage}/stages/2/",
            "made with the players who advance from the stage before it",
            "se forman con los clasificados de la fase anterior",
        ),
        Visit(
            "close",
            f"{manage}/stages/1/close/",
            "It cannot close yet",
            "Todavía no se puede cerrar",
        ),
        Visit(
            "progress",
            f"{manage}/stages/1/progress/",
            "Record the decision",
            "Registrar la decisión",
        ),
        Visit(
            "withdraw",
            f"{manage}/players/{event.withdrawable.pk}/withdraw/",
            f"Withdraw #{event.withdrawable.number}",
            f"¿Retirar a #{event.withdrawable.number}",
        ),
        Visit(
            "reinstate",
            f"{manage}/players/{event.withdrawn.pk}/reinstate/",
            f"Reinstate #{event.withdrawn.number}",
            f"¿Readmitir a #{event.withdrawn.number}",
        ),
        Visit(
            "check-in-everyone",
            f"{manage}/players/check-in-everyone/",
            "Nobody is left to check in",  # the demo's players are all checked in or withdrawn
            "No queda nadie sin llegar",
        ),
        Visit(
            "edit-player",
            f"{manage}/players/{event.withdrawable.pk}/edit/",
            f"Edit #{event.withdrawable.number}",
            f"Editar #{event.withdrawable.number}",
        ),
        Visit(
            "history",
            f"{enter}/{event.tied_table.pk}/{event.corrected_round}/history/",
            "history",
            "historial",
        ),
        Visit("staff", f"{manage}/staff/", "organisers and officials", "organizadores y árbitros"),
        Visit(
            "invitation",
            f"{manage}/staff/invitations/{event.invitation.pk}/",
            "Scan the code",
            "Escanee el código",
        ),
        Visit(
            "invitation-tablets",
            f"{manage}/staff/invitations/{event.tablets_link.pk}/",
            "it works for up to 10 tablets",
            "funciona para hasta 10 tabletas",
        ),
        Visit("my-tournaments", "/", "My tournaments", "Mis torneos"),
        Visit("account-email", "/accounts/email/", "Email", "correo electrónico"),
        Visit("password-change", "/accounts/password/change/", "Change Password", "Cambiar"),
        Visit(
            "import-scores-errors",
            f"{manage}/scores/import/",
            "Nothing was entered.",
            "No se anotó nada.",
            then=bad_scores_file,
        ),
        Visit("my-clubs", "/clubs/", "My clubs", "Mis clubes"),
        Visit(
            "roster", f"/clubs/{CLUB_SLUG}/", "Add or import members", "Añadir o importar socios"
        ),
        Visit("seasons", f"/clubs/{CLUB_SLUG}/seasons/", "New season", "Nueva temporada"),
        Visit(
            "season",
            f"/clubs/{CLUB_SLUG}/seasons/{SEASON_SLUG}/",
            "Build the ladder now",
            "Calcular la clasificación de temporada ahora",
        ),
        Visit(
            "roster-member",
            f"/clubs/{CLUB_SLUG}/members/{member}/",
            "Export their data",
            "Exportar sus datos",
        ),
        # Tables whose players report: the stage's codes and setting, handing a table to the
        # officials (asked first), and the board's rounds to settle (table 1's, waiting).
        Visit(
            "club-night-stage",
            f"/t/{CLUB_NIGHT_SLUG}/manage/stages/1/",
            "Seats taken on a phone",
            "Asientos ocupados en un teléfono",
        ),
        Visit(
            "club-night-hand-table-back",
            f"/t/{CLUB_NIGHT_SLUG}/manage/stages/1/tables/1/reporting/",
            "Hand table 1 to the officials?",
            "¿Pasar la mesa 1 a los oficiales?",
        ),
        Visit(
            "club-night-board",
            f"/t/{CLUB_NIGHT_SLUG}/manage/stages/1/progress/",
            "Table code",
            "Código de la mesa",
        ),
        Visit(
            "club-night-members",
            f"/t/{CLUB_SLUG}-night-1/manage/members/",
            "players and members",
            "jugadores y socios",
        ),
    ]


def club_member() -> int:
    """The demo club's member who played the most rounds: a rating with a chart."""
    return Member.objects.filter(club__slug=CLUB_SLUG).order_by("-ladder_rows__rounds", "pk")[0].pk


TEXT_OF_PAGE = """() => {
  const texts = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    // Code is code (CSV column names), the same in every language; so is what is marked as in a
    // language of its own (a rules document's English title).
    if (!node.parentElement.closest("script, style, code, body [lang]")) texts.push(node.nodeValue);
  }
  const named = "[aria-label], [placeholder], [title], [alt]";
  for (const el of document.querySelectorAll(named)) {
    for (const name of ["aria-label", "placeholder", "title", "alt"]) {
      if (el.hasAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return texts.map(t => t.replace(/\\s+/g, " ").trim()).filter(t => /[A-Za-z]{2}/.test(t));
}"""
FILE_NAME = re.compile(r"\b[\w-]+\.(?:csv|pdf)\b")


def wording(texts: list[str], data: frozenset[str]) -> set[str]:
    """The page's own words: each text without what the organisers typed, if any word is left."""
    words = set()
    for text in texts:
        rest = FILE_NAME.sub(" ", text)
        for typed in sorted(data, key=len, reverse=True):
            rest = rest.replace(typed, " ")
        if any(w not in SAME_IN_BOTH for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", rest)):
            words.add(text)
    return words


def shoot(page, language: str, size: str, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{language}-{size}-{name}.png"), full_page=True)


SAME_ID_TWICE = """() => {
  const ids = [...document.querySelectorAll("[id]")].map((element) => element.id);
  return [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))];
}"""
