"""The pages' one mapping of a service's refusal (config/refusals.py): a refusal of the kinds a
page names is said (in its messages, or on its form) instead of raising, and any other error
still raises."""

import pytest
from django import forms
from django.contrib.messages import get_messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.test import RequestFactory

from config.refusals import PageRefusal, refusal_redirects
from tournaments.exceptions import StateConflict


def a_request():
    request = RequestFactory().post("/t/open/stages/2/remove/")
    request._messages = CookieStorage(request)
    return request


@refusal_redirects("manage-stage", "slug", "order")
def refusing_view(request, slug, order, error=None):
    if error is not None:
        raise error
    return HttpResponse("done")


def test_a_refused_action_goes_back_to_its_page_saying_why():
    request = a_request()
    answer = refusing_view(request, "open", order=2, error=StateConflict("The stage is seated."))
    assert answer.status_code == 302
    assert answer.url == "/t/open/manage/stages/2/"
    assert [str(m) for m in get_messages(request)] == ["The stage is seated."]


def test_an_action_not_refused_answers_as_its_view_does():
    request = a_request()
    assert refusing_view(request, "open", order=2).content == b"done"
    assert list(get_messages(request)) == []


def test_an_error_of_another_kind_still_raises():
    with pytest.raises(ValidationError):
        refusing_view(a_request(), "open", order=2, error=ValidationError("wrong"))


class NameForm(forms.Form):
    name = forms.CharField()


def test_a_wrong_input_goes_beside_its_field_and_a_conflict_above_the_form():
    form = NameForm({"name": "x"})
    assert form.is_valid()
    with PageRefusal(ValidationError, StateConflict) as refusal:
        raise ValidationError({"name": ["Taken."], "when": ["Too late."]})
    refusal.onto(form)
    assert form.errors == {"name": ["Taken."], "__all__": ["Too late."]}
    with PageRefusal() as conflict:
        raise StateConflict("The tournament is over.")
    assert conflict.status == 409
    conflict.onto(form)
    assert form.non_field_errors() == ["Too late.", "The tournament is over."]
