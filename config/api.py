"""The API's error handler: services raise Django's ValidationError, clients get DRF's 400 shape."""

import re
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.template import loader
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from config.refusals import refusal_status
from tournaments.exceptions import Refused


class Conflict(exceptions.APIException):
    """The request is valid but the state forbids it (409); `detail` says what to do."""

    status_code = 409
    default_detail = _("This conflicts with the current state.")
    default_code = "conflict"


# What a 404 of the API says is missing, in the reader's language (Django's own message names
# the model: "No RoundResult matches the given query.").
MISSING = {
    "tournament": _("There is no tournament at this address."),
    "stage": _("There is no stage with this id."),
    "division": _("There is no division with this id in this tournament."),
    "table": _("There is no table with this id."),
    "roundresult": _("This round has no result at this table yet (or there is no such table)."),
    "player": _("There is no player with this id in this tournament."),
    "staff": _("There is no member of staff with this id in this tournament."),
    "invitation": _("There is no invitation with this id in this tournament."),
}


def found(klass: Any, **lookup: Any) -> Any:
    """get_object_or_404 for the API: the 404 says what is missing (MISSING)."""
    try:
        return get_object_or_404(klass, **lookup)
    except Http404:
        raise missing(klass if isinstance(klass, type) else klass.model) from None


def missing(model: Any) -> exceptions.NotFound:
    """The API's 404 for a `model` not found: it says what is missing (MISSING)."""
    return exceptions.NotFound(
        MISSING.get(model._meta.model_name, exceptions.NotFound.default_detail)
    )


class NamesUnusedFields:
    """A serializer mixin: a request field the serializer would drop without a word is named in
    a 400 instead (a misspelt field, or one the API sets itself). A read-only field is accepted
    only with the value it has already (a client sending back what it read)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            writable = sorted(name for name, field in self.fields.items() if not field.read_only)
            errors = {}
            for name in data:
                if name not in self.fields:
                    errors[name] = [
                        _("Unknown field: the fields are %(fields)s.")
                        % {"fields": ", ".join(writable)}
                    ]
                elif self.fields[name].read_only and self._current(name) != data[name]:
                    errors[name] = [_("This field is set by Roundhouse and cannot be changed.")]
            if errors:
                raise exceptions.ValidationError(errors)
        return super().to_internal_value(data)

    def _current(self, name: str) -> Any:
        """The field's value as the API shows it, or a value nothing equals (when creating)."""
        if self.instance is None:
            return object()
        field = self.fields[name]
        value = field.get_attribute(self.instance)
        return None if value is None else field.to_representation(value)


def _django_errors(error: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            ("non_field_errors" if field == "__all__" else field): [str(m) for m in messages]
            for field, messages in error.message_dict.items()
        }
    return {"non_field_errors": [str(m) for m in error.messages]}


# DRF's JSON parser says what is wrong in Python's words, untranslated: "JSON parse error -
# Expecting property name enclosed in double quotes: line 1 column 2 (char 1)".
JSON_POSITION = re.compile(r"line (\d+) column (\d+)")


# A database that did not answer in time (settings.DATABASES: connect, statement and lock
# timeouts) or not at all: the request may be sent again in a few seconds.
DATABASE_RETRY_SECONDS = 5
DATABASE_BUSY = _("The database is not answering in time: try again in a few seconds.")


def database_unavailable(request: HttpRequest, error: BaseException | None) -> HttpResponse | None:
    """The 503 for a database error that a later try may not meet (OperationalError: a timeout,
    a lock not granted, a connection refused): the API's error shape under /api/, the site's
    503 page elsewhere, both with Retry-After. None for any other error."""
    if not isinstance(error, OperationalError):
        return None
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": str(DATABASE_BUSY)}, status=503)
    else:
        page = loader.render_to_string("503.html", {"retry_seconds": DATABASE_RETRY_SECONDS})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(DATABASE_RETRY_SECONDS)
    return response


def exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    if (busy := database_unavailable(context["request"], exc)) is not None:
        set_rollback()
        return busy
    if isinstance(exc, DjangoValidationError):
        return Response(_django_errors(exc), status=400)
    if isinstance(exc, Refused):
        set_rollback()
        response = refusal_response(exc)
        # The view adds what its clients need to go on (the result as it is now, say).
        if (answer := getattr(context.get("view"), "answer_refusal", None)) is not None:
            answer(exc, response)
        return response
    if isinstance(exc, exceptions.ParseError) and str(exc.detail).startswith("JSON parse error"):
        where = JSON_POSITION.search(str(exc.detail))
        detail = (
            _("The body is not valid JSON: look near line %(line)s, column %(column)s.")
            % {"line": where[1], "column": where[2]}
            if where
            else _("The body is not valid JSON.")
        )
        exc = exceptions.ParseError(detail)
    return drf_exception_handler(exc, context)


def refusal_response(error: Exception) -> Response:
    """A service's refusal in the API's shared error shape: {"detail": ...}, with the problems
    that block it when it lists them (a stage that cannot close)."""
    body: dict[str, Any] = {"detail": str(error)}
    if (problems := getattr(error, "problems", None)) is not None:
        body["problems"] = problems
    return Response(body, status=refusal_status(error))
