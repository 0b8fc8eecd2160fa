"""The signed-in seat's own pages (scoring/views/seat_table.py), under the language of the
address beside the claim pages (tables/public_urls.py, included after these: their seat/<code>/
would take seat/table/). No address names a table: each page is the seat's own table's."""

from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from scoring.views import seat_table

urlpatterns = [
    path("seat/table/", seat_table.seat_table, name="seat-table"),
    path("seat/table/<id:round_no>/confirm/", seat_table.seat_confirm, name="seat-confirm"),
    path("seat/table/<id:round_no>/dispute/", seat_table.seat_dispute, name="seat-dispute"),
]
