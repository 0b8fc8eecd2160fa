"""The Celery tasks that are sent by name, named in one place.

A task is sent by its object (`task.delay`) where its sender may import it. These six may not: each
task module imports the module that sends it (scoring.tasks imports scoring.standings,
scoring.services.closing and scoring.services.game_close; clubs.tasks imports clubs.rating_store and
clubs.ladder_services; entries.tasks imports entries.services.mail), so the sender importing the
task would make an import circle, which the "acyclic_siblings" contract in pyproject.toml refuses.
The senders take the name from here and send it through scoring.queue (current_app.tasks[name]);
tests/test_task_names.py checks that each name is its task's."""

# scoring.tasks.rebuild_standings: sent by scoring/standings/requests.py send_rebuild.
REBUILD_STANDINGS = "scoring.tasks.rebuild_standings"
# scoring.tasks.advance_from_stage: sent by scoring/services/closing.py send_advance.
ADVANCE_FROM_STAGE = "scoring.tasks.advance_from_stage"
# scoring.tasks.close_game: sent by scoring/services/game_close.py _send_if_finished.
CLOSE_GAME = "scoring.tasks.close_game"
# clubs.tasks.rate_club: sent by clubs/rating_store.py send_rating.
RATE_CLUB = "clubs.tasks.rate_club"
# clubs.tasks.rebuild_ladder: sent by clubs/ladder_services.py send_ladder.
REBUILD_LADDER = "clubs.tasks.rebuild_ladder"
# entries.tasks.send_delivery: sent by entries/services/mail.py send.
SEND_DELIVERY = "entries.tasks.send_delivery"
