"""The organisers' pages of entries, in the console (t/<slug>/manage/...), as the console's own."""

from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from entries import desk

urlpatterns = [
    path("t/<slug:slug>/manage/fees/", desk.fees, name="manage-fees"),
    path("t/<slug:slug>/manage/fees/desk/", desk.desk_fees, name="manage-desk-fees"),
    path("t/<slug:slug>/manage/fees/<id:entry_id>/pay/", desk.record, name="manage-record-payment"),
    path(
        "t/<slug:slug>/manage/fees/payments/<id:payment_id>/delete/",
        desk.delete,
        name="manage-delete-payment",
    ),
]
