"""How the final results get their prizes without importing the app that keeps them: that app
(prizes) registers one provider at start-up (prizes.apps), which puts on each placed player of
a FinalResults what they won (`prize`, `division_prize`); with none registered the results show
no prizes. scoring.results.final_results asks it, so the page, the PDF and the certificates all
show the same."""

from collections.abc import Callable
from typing import Any

# Given a FinalResults, puts the prizes' texts on its placed players.
Provider = Callable[[Any], None]

_provider: list[Provider] = []  # at most one


def register(provider: Provider) -> None:
    """Make `provider` the one the results ask; registering again (a second ready()) replaces it."""
    _provider[:] = [provider]


def put_awards(results: Any) -> None:
    """The prizes on the results' placed players, if an app keeps them."""
    if _provider:
        _provider[0](results)
