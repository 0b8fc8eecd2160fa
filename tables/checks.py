"""System checks of the tables app: what the table cards need from the machine."""

from django.core import checks


@checks.register(checks.Tags.compatibility)
def cjk_font(app_configs, **kwargs) -> list[checks.CheckMessage]:
    """The cards' CJK font is a Debian package, not a Python one: say so when it is missing."""
    # Here, not at the top: reportlab stays out of processes that never draw a PDF.
    from tables import cards

    if cards.CJK_FONT.is_file():
        return []
    return [
        checks.Warning(
            cards.CJK_MISSING,
            hint="apt-get install fonts-wqy-microhei (deploy/Dockerfile does).",
            id="tables.W001",
        )
    ]
