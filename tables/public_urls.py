"""A player's way to their seat at a table whose players report (tables/seat_pages.py), under the
language of the address as the other public pages are (config/urls.py: /en/seat/, /es/seat/).
None is wrapped in public_page: each is a form, and a claim signs the phone in."""

from django.urls import path

from tables import seat_pages

urlpatterns = [
    path("seat/", seat_pages.seat_start, name="seat-start"),
    # The card's QR code opens this page: its code is printed beside it, to type at seat/.
    path("seat/<str:code>/", seat_pages.seat_claim, name="seat-claim"),
]
