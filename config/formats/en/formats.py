"""English dates and times as Roundhouse writes them: Django's, with "9:57 AM" instead of
"9:57 a.m.", whose own full stop doubled at the end of a sentence ("works until ... a.m..")."""

DATETIME_FORMAT = "N j, Y, g:i A"
TIME_FORMAT = "g:i A"
SHORT_DATETIME_FORMAT = "N j, Y, g:i A"
