"""Retake the guides' screenshots (docs/guide/img/) against a running demo.

    make run PORT=8000                      # in one terminal: the demo and its logins
    make guide-screenshots PORT=8000        # in another: .venv/bin/python docs/guide/screenshots.py

It signs in with the demo's logins (`organiser`, `official`, password `roundhouse-demo`) in
Debian's Chromium (/usr/bin/chromium, or ROUNDHOUSE_CHROMIUM) and only reads pages: the one
round it types, to show the tablet offline, is never sent (its browser is closed first). Each
shot is the visible part of the page (a phone 390x844 or a tablet 820x1180), saved as a PNG
of at most 256 colours (with Pillow, which the project's PDF libraries install) to stay small.
"""

import argparse
import io
import os
import re
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 820, "height": 1180}
PASSWORD = "roundhouse-demo"
SAMBOREE, SILVER, CLUB, CLUB_NIGHT = (
    "lakeside-samboree",
    "silver-games",
    "pine-valley",
    "pine-valley-night-6",
)
HERE = Path(__file__).resolve().parent


def save(page: Page, out: Path, name: str) -> None:
    png = page.screenshot()
    try:
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        png = buffer.getvalue()
    except ImportError:  # without Pillow, the shot as Chromium took it
        pass
    (out / f"{name}.png").write_bytes(png)
    print(f"{name}.png  {len(png) // 1024} KB  {page.url}")


def sign_in(page: Page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")


def shoot(page: Page, out: Path, name: str, path: str, *, at: str | None = None) -> None:
    """The page at path; at: a selector scrolled to the top of the view first."""
    page.goto(path)
    page.wait_for_load_state("networkidle")
    if at:
        page.locator(at).first.evaluate("el => el.scrollIntoView({block: 'start'})")
    save(page, out, name)


def organiser_shots(page: Page, out: Path) -> None:
    t, s = f"/t/{SAMBOREE}/manage", f"/t/{SILVER}/manage"
    shoot(page, out, "samboree-new", "/new/")
    shoot(page, out, "samboree-players", f"{t}/")
    page.click("#add-players summary")
    page.locator("#import-h").evaluate("el => el.scrollIntoView({block: 'start'})")
    save(page, out, "samboree-import")
    shoot(page, out, "samboree-stages", f"{t}/stages/")
    shoot(page, out, "samboree-stage", f"{t}/stages/1/")
    shoot(page, out, "samboree-tables", f"{t}/stages/1/", at="#late-h")
    shoot(page, out, "samboree-progress", f"{t}/stages/1/progress/")
    shoot(page, out, "samboree-close", f"{t}/stages/1/close/")
    shoot(page, out, "samboree-downloads", f"{t}/downloads/")
    shoot(page, out, "senior-divisions", f"{s}/divisions/")
    shoot(page, out, "senior-clock", f"{s}/stages/1/clock/")
    shoot(page, out, "senior-results", f"{s}/results/")
    shoot(page, out, "club-my-clubs", "/clubs/")
    shoot(page, out, "club-roster", f"/clubs/{CLUB}/")
    shoot(page, out, "club-seasons", f"/clubs/{CLUB}/seasons/")
    shoot(page, out, "club-season", f"/clubs/{CLUB}/seasons/autumn-2026/")
    shoot(page, out, "club-members", f"/t/{CLUB_NIGHT}/manage/members/")
    shoot(page, out, "officials-staff", f"{t}/staff/")


def invitation_link(page: Page, out: Path) -> str | None:
    """The demo's pending invitation, from the Staff page (shown, never used)."""
    page.goto(f"/t/{SAMBOREE}/manage/staff/")
    show = page.get_by_role("link", name="Show link and QR code")
    if not show.count():
        return None
    with page.expect_navigation():
        show.first.click()
    save(page, out, "officials-invitation")
    found = re.search(r"/join/[\w-]+/", page.content())
    return found.group(0) if found else None


def public_shots(browser, base: str, out: Path, join: str | None) -> None:
    context = browser.new_context(viewport=PHONE, base_url=base, locale="en-GB")
    page = context.new_page()
    shoot(page, out, "samboree-standings-phone", f"/en/t/{SAMBOREE}/")
    shoot(page, out, "samboree-how-it-works-phone", f"/en/t/{SAMBOREE}/how-it-works/")
    shoot(page, out, "samboree-find-your-table-phone", f"/en/t/{SAMBOREE}/find-your-table/")
    shoot(page, out, "senior-podium-phone", f"/en/t/{SILVER}/results/")
    shoot(page, out, "club-ladder-phone", f"/en/c/{CLUB}/seasons/autumn-2026/")
    if join:  # opening an invitation does not use it: accepting it would
        shoot(page, out, "officials-join-phone", join)
    context.close()


def table_path(page: Page, number: int) -> str:
    """A table's score entry address, from the tables' list (its id is not its number)."""
    page.goto(f"/t/{SAMBOREE}/enter/")
    link = page.locator("main a", has_text=re.compile(rf"^\s*Table {number}\b"))
    return link.first.get_attribute("href").rstrip("/")


def official_shots(browser, base: str, out: Path) -> None:
    context = browser.new_context(viewport=TABLET, base_url=base, locale="en-GB")
    page = context.new_page()
    sign_in(page, "official")
    enter = f"/t/{SAMBOREE}/enter"
    # Demo tables 7 and 8 have round 3 to check, 9 and 10 have it missing.
    seven, nine, one = table_path(page, 7), table_path(page, 9), table_path(page, 1)
    shoot(page, out, "officials-tables", f"{enter}/")
    shoot(page, out, "officials-round", f"{nine}/3/")
    shoot(page, out, "officials-check", f"{seven}/3/check/")
    shoot(page, out, "officials-history", f"{one}/1/history/")
    # Offline: the round is typed and saved with the network cut; the browser is closed before
    # it comes back, so the entry (kept in this browser only) is never sent.
    page.goto(f"{nine}/3/")
    pips = page.locator("input.pips")
    for box, value in zip(pips.all(), ["", "23", "41"], strict=False):
        if value:
            box.fill(value)
    page.locator("label.went-out").first.click()
    context.set_offline(True)
    page.click(".round-form button[type=submit]")
    page.get_by_text("Not sent yet").first.wait_for()
    page.evaluate("() => window.scrollTo(0, 0)")
    save(page, out, "officials-offline")
    context.close()
    # Large text: the phone at 200% (the root's font size doubled, as the browser tests do).
    context = browser.new_context(viewport=PHONE, base_url=base, locale="en-GB")
    page = context.new_page()
    sign_in(page, "official")
    page.goto(f"{table_path(page, 9)}/3/")
    page.evaluate("() => { document.documentElement.style.fontSize = '32px'; }")
    page.wait_for_timeout(100)
    save(page, out, "officials-large-text-phone")
    context.close()


def help_shots(browser, base: str, out: Path) -> None:
    """The in-app help at phone size, 100% and 200% text, English and Spanish, and a section's
    Help link in the console."""
    for language, locale in (("en", "en-GB"), ("es", "es-MX")):
        context = browser.new_context(viewport=PHONE, base_url=base, locale=locale)
        page = context.new_page()
        for size, pixels in (("100", "16px"), ("200", "32px")):
            page.goto(f"/{language}/help/#seating")
            page.evaluate(f"() => {{ document.documentElement.style.fontSize = '{pixels}'; }}")
            page.locator("#seating").evaluate("el => el.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(100)
            save(page, out, f"help-phone-{size}-{language}")
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    port = os.environ.get("PORT", "8000")
    parser.add_argument("--base", default=f"http://127.0.0.1:{port}", help="the demo's address")
    parser.add_argument("--out", default=str(HERE / "img"), help="where the PNGs go")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = os.environ.get("ROUNDHOUSE_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(viewport=TABLET, base_url=args.base, locale="en-GB")
        page = context.new_page()
        sign_in(page, "organiser")
        organiser_shots(page, out)
        join = invitation_link(page, out)
        context.close()
        public_shots(browser, args.base, out, join)
        official_shots(browser, args.base, out)
        help_shots(browser, args.base, out)
        browser.close()


if __name__ == "__main__":
    main()
