"""axe-core (from the npm registry, installed by `make install`) run inside the real page."""

from pathlib import Path

from django.conf import settings

from tests.conftest import services_missing

AXE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"

# target-size (WCAG 2.2: 24 px, or room around) is off by default in axe-core: a tablet in a
# noisy hall is tapped by thumbs, so it is checked too.
START = """() => {
  window.roundhouseAxe = axe.run(document, {
    resultTypes: ["violations"], rules: {"target-size": {enabled: true}}});
}"""
RESULTS = """async () => {
  const results = await window.roundhouseAxe;
  delete window.roundhouseAxe;
  return results;
}"""


def start_check(page) -> None:
    """Start axe-core on the page as it is now without waiting for it, so that two pages (each
    in its own renderer) are checked at once; serious_violations then collects the results."""
    if not AXE.exists():
        services_missing("axe-core is not installed (npm ci), so pages cannot be checked")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: the page's CSP rightly refuses inline scripts.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    page.evaluate(START)


def serious_violations(page) -> list[str]:
    """Every serious or critical accessibility violation of the page as it is now (or as it was
    at start_check)."""
    if not page.evaluate("() => 'roundhouseAxe' in window"):
        start_check(page)
    results = page.evaluate(RESULTS)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
