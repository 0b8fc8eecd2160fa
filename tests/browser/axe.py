"""axe-core (from the npm registry, installed by `make install`) run inside the real page."""

from pathlib import Path

from django.conf import settings

from tests.conftest import services_missing

AXE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"


def serious_violations(page) -> list[str]:
    """Every serious or critical accessibility violation of the page as it is now."""
    if not AXE.exists():
        services_missing("axe-core is not installed (npm ci), so pages cannot be checked")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: the page's CSP rightly refuses inline scripts.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    results = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
