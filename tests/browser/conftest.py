"""Real Chromium (Debian's /usr/bin/chromium) driven by Playwright against a live server."""

import os
import shutil
from collections.abc import Iterator

import pytest

from tests import factories
from tests.conftest import services_missing

# Playwright's sync API runs an event loop in this thread; the ORM calls of the tests are still
# synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("ROUNDHOUSE_CHROMIUM", "/usr/bin/chromium")
TABLET = {"width": 768, "height": 1024}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        services_missing(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser, live_server) -> Iterator:
    """Pages at a viewport size; any Content-Security-Policy violation fails the test."""
    contexts, violations = [], []

    def open_page(viewport: dict = TABLET, **options):
        """options: more of Playwright's context options (locale, java_script_enabled...)."""
        context = browser.new_context(viewport=viewport, base_url=live_server.url, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.on(
            "console",
            lambda message: (
                violations.append(message.text)
                if "Content Security Policy" in message.text
                else None
            ),
        )
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not violations, violations


def sign_in(page, username: str, password: str = "a-long-test-password", next_path: str = "/"):
    page.goto(f"/accounts/login/?next={next_path}")
    page.fill("#id_login", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(f"**{next_path}")


def at_text_sizes(page, sizes: tuple[str, ...] = ("", "200%")) -> Iterator[str]:
    """The page at each text size in turn (its root font size: the browser's, then doubled, as a
    reader's large-text setting does): yields each one's name, "100%" for the browser's."""
    for size in sizes:
        page.evaluate(f"() => {{ document.documentElement.style.fontSize = '{size}'; }}")
        page.wait_for_timeout(50)
        yield size or "100%"


def overflows_sideways(page) -> bool:
    """The page itself scrolls sideways (a wide table may scroll inside its own container)."""
    return page.evaluate(
        "() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"
    )


@pytest.fixture
def seated(transactional_db):
    """A seated double-12 table of four and its official, for the tablet entry tests."""
    stage = factories.StageFactory(status="seated", rounds=4, starting_double=12)
    table = factories.TableFactory(stage=stage, number=1)
    players = []
    for position, name in enumerate(["Ann Baker", "Bob Ortiz", "Cy Young", "Di Peña"], start=1):
        player = factories.PlayerFactory(tournament=stage.tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
        players.append(player)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    return stage.tournament, table, players, official
