"""What the services refuse, and how the API and the pages say it: one table for every app.

The services raise Django's ValidationError (the input is wrong) or a Refused that names its kind
(tournaments.exceptions: a StateConflict when the state forbids it; scoring.exceptions: a version
or an Idempotency-Key the request got wrong); none of them knows HTTP. The API's error handler
(config.api) reads the status and the text here, and the pages meet a refusal with PageRefusal
(or refusal_redirects, for an action that goes back to a page): no view has its own
try/except for a refusal. What is not a refusal stays the view's own: the entry page's unusual
scores and version conflicts (scoring.views.entry) render the form again with what to do,
a page of their own rather than a message."""

import functools
import inspect
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from tournaments.exceptions import StateConflict

STATUS = {
    "conflict": 409,
    "version-changed": 412,  # Precondition Failed: the If-Match names an older version
    "key-reused": 422,  # the Idempotency-Key was used before, with another request
    "version-required": 428,  # Precondition Required: replacing needs If-Match
    "unusual-unchecked": 400,  # scores to check first, for a sender that asked (handling=strict)
}


def refusal_status(error: Exception) -> int:
    """The HTTP status of a refusal: 400 for a wrong input, else its kind's (409 by default)."""
    if isinstance(error, ValidationError):
        return 400
    return STATUS.get(getattr(error, "kind", ""), 409)


def refusal_text(error: Exception) -> str:
    """A refusal said in one line, for a page's message."""
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    return str(error)


# ---- the pages: one mapping, as the API's error handler is one (config.api) -----------------


class PageRefusal:
    """A page's one way to meet a service's refusal, instead of a try/except in each view.

    Around the service's call, `with PageRefusal() as refusal:` keeps a refusal of the kinds
    given (a StateConflict unless told) instead of letting it raise; after the block, a true
    `refusal` says the page was refused: `text` is what the page says (refusal_text), `status`
    its HTTP status (STATUS), `say(request)` puts the text in the page's messages and
    `onto(form)` puts it on a form. Any other exception raises as before."""

    def __init__(self, *refused: type[Exception]) -> None:
        self.refused = refused or (StateConflict,)
        self.error: Exception | None = None

    def __enter__(self) -> "PageRefusal":
        return self

    def __exit__(self, kind: Any, error: BaseException | None, traceback: Any) -> bool:
        if isinstance(error, self.refused):
            self.error = error
            return True
        return False

    def __bool__(self) -> bool:
        return self.error is not None

    @property
    def text(self) -> str:
        return refusal_text(self.error) if self.error is not None else ""

    @property
    def lines(self) -> list[str]:
        """Each thing the refusal says, for a page that says them one by one."""
        if isinstance(self.error, ValidationError):
            return list(self.error.messages)
        return [str(self.error)] if self.error is not None else []

    @property
    def status(self) -> int:
        return refusal_status(self.error) if self.error is not None else 200

    def say(self, request: HttpRequest) -> None:
        """The refusal in the messages the next page shows."""
        messages.error(request, self.text)

    def onto(self, form: forms.BaseForm, field: str | None = None) -> None:
        """The refusal on a form: a wrong input beside its fields (errors_onto), any other
        beside `field`, or as the form's own error. Nothing when there was no refusal."""
        if isinstance(self.error, ValidationError):
            errors_onto(form, self.error)
        elif self.error is not None:
            form.add_error(field, self.text)


def errors_onto(form: forms.BaseForm, error: ValidationError) -> None:
    """A service's errors beside the form's fields; those of settings it does not show (a
    check across fields), above them."""
    found = (
        error.message_dict if hasattr(error, "error_dict") else {NON_FIELD_ERRORS: error.messages}
    )
    for field, texts in found.items():
        form.add_error(field if field in form.fields else None, texts)


def refusal_redirects(
    to: str, *kwargs: str, refused: tuple[type[Exception], ...] = ()
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A page view whose refusal (PageRefusal's kinds) is said in its messages and redirects to
    the URL named `to`, with the view's keyword arguments named in `kwargs`: for an action's
    POST that goes back to a page, which shows the message."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        signature = inspect.signature(view)

        @functools.wraps(view)
        def refusing(request: HttpRequest, *args: Any, **kw: Any) -> HttpResponse:
            with PageRefusal(*refused) as refusal:
                return view(request, *args, **kw)
            refusal.say(request)
            given = signature.bind(request, *args, **kw).arguments  # slug may come by position
            return redirect(to, **{name: given[name] for name in kwargs})

        return refusing

    return decorate
