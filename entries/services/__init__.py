"""The entries app's writes: entering and the waitlist (entering), payments (payments), the
kiosk's check-in (checkin), mail (mail) and removing contact details (privacy)."""
