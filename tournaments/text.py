"""Text as people type it: compared without accents, case or extra spaces."""

import unicodedata


def folded(text: str) -> str:
    """Text as a search or a name check compares it: "Peña", "PENA" and "pena" alike."""
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join(
        "".join(c for c in decomposed if not unicodedata.combining(c)).split()
    ).casefold()
