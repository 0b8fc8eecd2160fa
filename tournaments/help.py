"""The organisers' help in the app (/<lang>/help/): for each section of the console, the few steps
it takes and the name of the full guide in docs/guide/.

Each topic is one anchor of the help page; `{% help_link "seating" %}` (tournaments.templatetags.
help) puts a section's Help link beside it, and refuses a topic this list does not have.
"""

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

# The guides (docs/guide/*.md), by file: the names their pages have.
GUIDES: dict[str, Promise] = {
    "samboree.md": _("Run a Samboree"),
    "senior-games.md": _("Senior games with divisions and a clock"),
    "club-season.md": _("A club's season"),
    "officials.md": _("Officials on the day"),
    "taking-entries.md": _("Taking entries before the day"),
    "club-night.md": _("A club night with no officials"),
    "when-something-goes-wrong.md": _("When something goes wrong on the day"),
}


@dataclass(frozen=True)
class Topic:
    """One section of the console, as the help page explains it."""

    anchor: str  # the help page's id for it, and the name {% help_link %} takes
    title: Promise
    steps: tuple[Promise, ...]
    guide: str  # a file of GUIDES

    @property
    def guide_title(self) -> Promise:
        return GUIDES[self.guide]


TOPICS: tuple[Topic, ...] = (
    Topic(
        "players",
        _("Players and check-in"),
        (
            _(
                "Under “Add or import players”, add players one by one, or import a CSV file "
                "(number, name, and optionally household, club, status, division): every row "
                "or none is imported, and each bad line is named."
            ),
            _(
                "On the day, type a badge number or a name in “Check a player in”: the answer "
                "shows in place, and the box is ready for the next one."
            ),
            _(
                "Once anyone is checked in, seating seats only the players who are present: "
                "check everyone in before you seat the first stage."
            ),
            _(
                "A player's row has Edit… (a wrong name or household), Withdraw… and "
                "Reinstate…; every change is kept under History on the player's page."
            ),
        ),
        "samboree.md",
    ),
    Topic(
        "entries",
        _("Entries before the day"),
        (
            _(
                "Under “Entries settings…”, set when entries open and close (in the "
                "tournament's time zone), the places, the waitlist, the hours a freed place is "
                "offered for, and the fee."
            ),
            _(
                "Share the entry link, or print its QR code: each entry is entered while places "
                "are free, then waits in order; the entrant is mailed a link to their entry."
            ),
            _(
                "The list shows every entry in order with its status, place on the waitlist, "
                "fee due and paid; move a waiting entry up or down there."
            ),
            _(
                "Open an entry to enter it by hand, refuse it, withdraw it or change its "
                "details; each says how to undo it, and its history is kept below."
            ),
        ),
        "taking-entries.md",
    ),
    Topic(
        "divisions",
        _("Divisions"),
        (
            _("Add a division with its name and, for age categories, its youngest and oldest age."),
            _(
                "Put a player in a division with Edit… on their row, or with a division (or "
                "age, or birth_year) column in the players' CSV file."
            ),
            _(
                "Choose one shared playoff for everyone or each division's own, under "
                "“Playoffs with divisions”."
            ),
            _(
                "Players are placed overall and in their division: the first three of each "
                "division win gold, silver and bronze."
            ),
        ),
        "senior-games.md",
    ),
    Topic(
        "flights",
        _("Flights"),
        (
            _(
                "“Split by rating” puts the players in flights A, B, ... of equal size, A the "
                "strongest: by the club's ratings, else by the standings of the latest closed "
                "stage."
            ),
            _(
                "“By your list…” puts each player in the flight you type; the players' CSV "
                "file can name it in its division column."
            ),
            _(
                "Each flight is placed and given medals among its players, as a division is. "
                "A tournament has divisions or flights, not both."
            ),
            _(
                "Once rounds are entered, a change that moves a player out of their flight "
                "asks first; once the placings are decided, the flights stay as they are."
            ),
        ),
        "senior-games.md",
    ),
    Topic(
        "stages",
        _("Stages"),
        (
            _(
                "The preset made the stages: the list shows each one's engines, table sizes "
                "and status (pending, seated, closed)."
            ),
            _(
                "“Add a stage” adds one after the last (a further playoff level, say); the last "
                "stage can be removed while it is not seated."
            ),
            _("Open a stage (its name, or Tables) to set its table sizes and seat it."),
            _(
                "“Close stage…” says what is still missing and what closing will do before "
                "anything happens."
            ),
        ),
        "samboree.md",
    ),
    Topic(
        "seating",
        _("Seating a stage"),
        (
            _(
                "Check the table sizes and the starting double and rounds; they can change "
                "until the tables are made (the rounds until the first result)."
            ),
            _(
                "Press “Seat players”: tables are balanced within the sizes, households kept "
                "apart and repeat tablemates few. The shuffle number seats the same way again."
            ),
            _(
                "A player who arrives late: “Add a late player” seats them at the smallest "
                "table with room, and nobody else moves."
            ),
            _("Print the table cards from Downloads once the stage is seated."),
        ),
        "samboree.md",
    ),
    Topic(
        "players-report",
        _("Tables that enter their own rounds"),
        (
            _(
                "In the stage's settings, “Who enters the rounds”: the players at each table. "
                "One player enters each round on a phone, another player at the table confirms "
                "it."
            ),
            _(
                "Print the table cards: each carries its table's code and a QR code. A player "
                "scans it, types their badge number, and the phone is their seat. The codes "
                "are new for every stage."
            ),
            _(
                "The progress board lists the rounds for an official to settle: a round a "
                "player disputed, and a round nobody confirmed within the stage's minutes. "
                "Confirm it or correct it from its entry page."
            ),
            _(
                "On the stage's page, “Hand table N to the officials…” signs its players' phones "
                "out at once; switching the whole stage to the officials signs every phone out. "
                "Both can change at any time until the close."
            ),
        ),
        "club-night.md",
    ),
    Topic(
        "clock",
        _("The clock"),
        (
            _(
                "A stage with a time limit shows its clock on the stage's page: “Start the "
                "clock” when play begins, “Pause the clock” if play stops."
            ),
            _(
                "When time is up, “Call time…”: each table's last round becomes the round it "
                "is playing now, finished or scored as it stands by the stage's rule."
            ),
            _("After time is called, the standings count the rounds every table played."),
        ),
        "senior-games.md",
    ),
    Topic(
        "progress",
        _("Progress and score entry"),
        (
            _(
                "The progress board shows each table's rounds: confirmed, to check or missing. "
                "Tap a missing one to enter it, the others to see their history."
            ),
            _(
                "Officials enter rounds under Score entry (or from the QR code on a table "
                "card); an organiser may enter them too."
            ),
            _(
                "A tie that only the officials can break shows under the stage's board with "
                "its form."
            ),
            _(
                "Once every round is in, close the stage (Stages, “Close stage…”); a game "
                "seated from the game before closes by itself when its last table confirms."
            ),
        ),
        "officials.md",
    ),
    Topic(
        "closing",
        _("Closing a stage"),
        (
            _(
                "The close page lists what is still missing (a table's round, a tie to "
                "decide) and what the close will do."
            ),
            _(
                "Closing seats the next playoff level with the players who advance, or decides "
                "the placings when it is the last stage."
            ),
            _(
                "A stage closed too early: on its page, “Reopen this stage…” says what reopening "
                "undoes. Only the last closed stage reopens, while no later stage has a result."
            ),
        ),
        "when-something-goes-wrong.md",
    ),
    Topic(
        "results",
        _("Results and corrections"),
        (
            _(
                "To correct a score: on the Progress tab, pick the table's round; its history "
                "page has “Correct it”, which asks for a reason."
            ),
            _("Every version of a round is kept on its history page, with who and when."),
            _(
                "Scores kept on paper can be entered from a CSV file (“Enter scores from "
                "paper”): every bad line is named and nothing is saved until all are right."
            ),
            _(
                "Once the placings are decided, “Final results” is here; the results PDF and "
                "the certificates are under Downloads."
            ),
        ),
        "when-something-goes-wrong.md",
    ),
    Topic(
        "downloads",
        _("Downloads"),
        (
            _(
                "Each seated stage has its table cards and score sheets (PDF): one page per "
                "table, with a QR code to its score entry."
            ),
            _(
                "Printed again mid-stage, a card shows who withdrew or joined late; an "
                "organiser's download ends with the officials' pending invitations."
            ),
            _(
                "The CSV files (players, seating, scores, standings, bracket, placings) open in "
                "any spreadsheet."
            ),
            _(
                "“Find your table” prints every player A to Z with their table and seat, as a "
                "wall chart for the door; the calendar file puts the days in a phone's calendar; "
                "entries.csv and payments.csv hold the entries and the fees taken."
            ),
        ),
        "samboree.md",
    ),
    Topic(
        "fees",
        _("Fees"),
        (
            _(
                "At the desk, the check-in page's “Fees at the desk” shows who owes and records a "
                "payment in one step (cash unless you choose another way)."
            ),
            _("A refund gives back at most the money paid; a fee waived counts as settled."),
            _(
                "A payment recorded by mistake is deleted with a reason, and its history keeps "
                "who recorded it and who deleted it; the totals by method are the treasurer's."
            ),
        ),
        "taking-entries.md",
    ),
    Topic(
        "prizes",
        _("Prizes"),
        (
            _(
                "A prize table for the whole event and one for each division: cash or an item "
                "for each place, and a booby prize for the last place if you want one."
            ),
            _(
                "The cash is typed, or a percentage of the fees, rounded down; the page says "
                "what is left over and who gets it. Tied players share equally."
            ),
            _(
                "Announcing asks first, then locks the table and shows it on the results; to "
                "change it, unlock it and say why."
            ),
        ),
        "samboree.md",
    ),
    Topic(
        "messages",
        _("Messages"),
        (
            _(
                "Roundhouse mails on its own each player's table and seat when a stage is "
                "seated, and their place once the final decides the placings."
            ),
            _(
                "To write yourself, choose who it goes to (the entrants, the waitlist, every "
                "player or those not checked in): the page says how many it reaches and asks "
                "before it sends."
            ),
            _(
                "Mail goes only to those who agreed to it. A mail that failed shows why; “Try "
                "the failed again” sends it once more."
            ),
        ),
        "taking-entries.md",
    ),
    Topic(
        "staff",
        _("Organisers and officials"),
        (
            _(
                "Make an invitation for an official or an organiser: a link and a QR code, "
                "optionally mailed. It works once, and can be revoked."
            ),
            _(
                "On a shared tablet, the official opens the link and chooses “Continue "
                "without an account”: that tablet then enters this event's scores only."
            ),
            _(
                "For the tablets at the tables, one link does for all: say how many tablets. "
                "Revoking that link signs out every tablet that joined with it."
            ),
            _(
                "Everyone with a role is listed with how they joined and when they were last "
                "active; change a role or remove someone here (a removed tablet is signed out "
                "at once)."
            ),
        ),
        "officials.md",
    ),
    Topic(
        "settings",
        _("Details, listing and practice"),
        (
            _(
                "Set the event's dates, venue, description and time zone: every time on its "
                "pages and downloads is in that zone."
            ),
            _(
                "A practice tournament is a rehearsal: never listed, marked Practice "
                "everywhere. Afterwards, reset it (players kept), then turn it into the real "
                "event."
            ),
            _(
                "A tournament with no confirmed result can be deleted; with confirmed results, "
                "untick “Listed on the home page” instead."
            ),
        ),
        "when-something-goes-wrong.md",
    ),
    Topic(
        "members",
        _("Players and club members"),
        (
            _(
                "In a tournament the club owns, link each player to the member they are: by "
                "member number, or chosen from the members offered by name."
            ),
            _(
                "A linked player's rounds count for the club's ratings, and the event's "
                "placings for the seasons that count it."
            ),
        ),
        "club-season.md",
    ),
)

TOPIC_BY_ANCHOR: dict[str, Topic] = {topic.anchor: topic for topic in TOPICS}


def help_page(request: HttpRequest) -> HttpResponse:
    """Every section's help, for anyone (it tells nothing of an event), in the address's
    language."""
    return render(request, "tournaments/help.html", {"topics": TOPICS})
