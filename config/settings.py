"""Roundhouse settings, all from the environment.

No environment: SQLite, Celery tasks run inline, local-memory cache (the embedded `make run`).
DATABASE_URL, REDIS_URL and CELERY_BROKER_URL switch on PostgreSQL, the Redis cache and workers.
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF

from config.lan import lan_hosts

BASE_DIR = Path(__file__).resolve().parent.parent


class Env(environ.Env):
    """django-environ, reading switches and lists as these settings always have (its own
    reading differs): a switch is on for 1, true, yes or on (any case, spaces around it), off
    for anything else ("2", "ok"), and empty (`DJANGO_DEBUG=`) is unset; a list's items are
    stripped of spaces, and empty ones dropped."""

    BOOLEAN_TRUE_STRINGS = ("1", "true", "yes", "on")

    @classmethod
    def parse_value(cls, value, cast):
        if cast is bool:
            return value.strip().lower() in cls.BOOLEAN_TRUE_STRINGS
        if cast is list:
            return [item.strip() for item in value.split(",") if item.strip()]
        return super().parse_value(value, cast)

    def bool(self, var: str, default: bool) -> bool:
        return default if self.ENVIRON.get(var) == "" else super().bool(var, default=default)


env = Env()


DEV_SECRET_KEY = "roundhouse-dev-only-secret-key-never-use-in-production-0123456789"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", DEV_SECRET_KEY)
DEBUG = env.bool("DJANGO_DEBUG", default=True)
# The site's public address, scheme and host (https://roundhouse.example.org): every absolute
# link in pages, mails, QR codes, PDFs and the live push is built on it (tournaments/links.py),
# never on the request's Host, which a client chooses and a shared cache keeps. It is also the
# default of the allowed hosts and trusted origins below. Empty (make run, tests): links follow
# the request; the deploy check refuses that in production (config/checks.py).
PUBLIC_URL = os.environ.get("ROUNDHOUSE_PUBLIC_URL", "").strip().rstrip("/")
_public = urlsplit(PUBLIC_URL)
if PUBLIC_URL and (_public.scheme not in {"http", "https"} or not _public.hostname or _public.path):
    raise ValueError(
        f"ROUNDHOUSE_PUBLIC_URL is a scheme and a host (https://roundhouse.example.org), "
        f"not {PUBLIC_URL!r}"
    )
ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS",
    default=[_public.hostname] if _public.hostname else ["127.0.0.1", "localhost", "testserver"],
)
CSRF_TRUSTED_ORIGINS = env.list(
    "DJANGO_CSRF_TRUSTED_ORIGINS", default=[PUBLIC_URL] if PUBLIC_URL else []
)
# `HOST=0.0.0.0 make run` (ROUNDHOUSE_RUN_HOST): a tablet on the same Wi-Fi opens the demo by the
# machine's LAN address or name, so DEBUG without a public address or hosts of its own allows
# them too. A plain-HTTP form posted there passes CSRF as on 127.0.0.1: its Origin is the host.
if DEBUG and not PUBLIC_URL and "DJANGO_ALLOWED_HOSTS" not in os.environ:
    ALLOWED_HOSTS += lan_hosts(os.environ.get("ROUNDHOUSE_RUN_HOST", ""))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.forms",  # its widget templates, for FORM_RENDERER
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "axes",
    "simple_history",
    "allauth",
    "allauth.account",
    "tournaments",
    "tables",
    "scoring",
    "entries",
    # Before clubs: its load_demo (rallies/management/commands) is clubs' with the demo rally.
    "rallies",
    "prizes",
    "clubs",
    "accounts",
]

FORM_RENDERER = "config.forms.FormRenderer"

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # An API answer that is not public data: private, no-store (config/http_cache.py).
    "config.http_cache.PrivateApiMiddleware",
    # A public request that waited too long behind others is answered 503 at once, before
    # anything else is spent on it (config/queue_limit.py).
    "config.queue_limit.PublicQueueLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files from gunicorn, no DEBUG needed
    # Public pages for anonymous visitors: public, ETag, no Vary on Cookie (outside the session).
    "config.http_cache.SharedCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # The API's public answers in the language of Accept-Language, never the cookie's.
    "config.http_cache.ApiLanguageMiddleware",
    "config.middleware.ApiBodyLimitMiddleware",  # 413 in the API's shape, in the reader's language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Keeps a tablet's session to its tournament's score entry, and notes staff's last activity.
    "accounts.middleware.StaffSessionMiddleware",
    # Every time shown in a tournament's pages and answers is in the tournament's own zone.
    "config.middleware.TournamentTimeZoneMiddleware",
    # Who made a change that a history records, when the code making it does not say (the admin).
    "simple_history.middleware.HistoryRequestMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # login throttling first
    # By the username's normal form ("KASEY" is kasey), or by email; its refusal is final.
    "accounts.backends.UsernameBackend",
    # Never reached by a sign-in (the one above decides); listed for the sessions they made.
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# A player's history is a record, not an undo: reverting in the admin would change a status
# without opening or closing the seats that go with it (tournaments.admin.PlayerAdmin also
# refuses the save, which this setting only hides).
SIMPLE_HISTORY_REVERT_DISABLED = True

# Venue tablets share one IP address: lock a username at an address, never a whole address.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "tournaments.views.locked_out"
AXES_USERNAME_CALLABLE = "tournaments.views.axes_username"
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"  # behind nginx: the client's, not its

# Content Security Policy: no inline scripts or styles anywhere; everything from this site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.navigation",
                "scoring.announce.live_push",
                "config.context_processors.language_links",
                "config.context_processors.version",
            ],
        },
    },
]

# Database: SQLite file unless DATABASE_URL names another (PostgreSQL in production). Empty is
# unset, as for REDIS_URL and the switches (an env file's `DATABASE_URL=` stopped the settings
# with KeyError: 'ENGINE').
DATABASES = {
    "default": {
        **env.db_url_config(
            os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
        ),
        "CONN_MAX_AGE": int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        "CONN_HEALTH_CHECKS": True,
    }
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A stalled or locked database fails a request in seconds, below gunicorn's 30 s timeout
    # (which would kill the worker, and nginx answer its own 504 page): the API answers 503 in
    # its shape with Retry-After, a page the site's 503 (config/api.py). Seconds; 0: no limit.
    # Added to the URL's own options (`?sslmode=require` and the like), which are kept.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "connect_timeout": int(os.environ.get("DJANGO_DB_CONNECT_TIMEOUT", "5")),
            "options": " ".join(
                f"-c {name}={int(float(os.environ.get(variable, default)) * 1000)}"
                for name, variable, default in (
                    ("statement_timeout", "DJANGO_DB_STATEMENT_TIMEOUT", "20"),
                    ("lock_timeout", "DJANGO_DB_LOCK_TIMEOUT", "10"),
                )
            ),
        }
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite waits for a writer instead of failing at once when two requests write together.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Cache: Redis when REDIS_URL is set; its short timeouts keep a dead Redis from hanging a page.
REDIS_URL = os.environ.get("REDIS_URL", "")
# After one call to a Redis server timed out or was refused, each process skips that server
# (cache calls and task sends fail at once) for this many seconds, then tries it with one call
# (config/redis_breaker.py): a frozen Redis costs a request at most one short wait.
REDIS_BREAKER_SECONDS = float(os.environ.get("REDIS_BREAKER_SECONDS", "10"))
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.redis_breaker.BreakerRedisCache",
            "LOCATION": REDIS_URL,
            # Two sites sharing one Redis database keep their keys apart by it (so do the
            # pytest-xdist workers of `make test`, each with a test database of its own).
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "roundhouse"),
            "OPTIONS": {
                "socket_connect_timeout": 1,
                "socket_timeout": 1,
                # allauth's rate limits (sign-in, sign-up, password reset) let requests through
                # while Redis is down rather than answer 500; django-axes (the database) still
                # locks an account after its failed sign-ins.
                "fail_open_key_prefixes": ["allauth:rl:", "throttle:"],
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Each process's own copies of the public pages that every phone asks for (scoring.public),
# in front of Redis: keyed by the snapshot they show, so never stale. With nginx in front taking
# the phones, a few current pages (page and fragment, two languages) are enough: 24 of up to
# ~300 KB (500 players) is ~7 MB a worker at most, against 18 MB with 64.
CACHES["local"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "roundhouse-local",
    "OPTIONS": {"MAX_ENTRIES": 24},
}

# Public answers a shared cache in front (nginx, a CDN) may keep: fresh this many seconds, then
# served stale while it revalidates with the ETag (config/http_cache.py).
PUBLIC_MAX_AGE = int(os.environ.get("PUBLIC_MAX_AGE", "1"))
PUBLIC_STALE_SECONDS = int(os.environ.get("PUBLIC_STALE_SECONDS", "30"))
# ... and an answer at an announced version (?v=...: live push), asked once that version exists.
PUBLIC_VERSIONED_MAX_AGE = int(os.environ.get("PUBLIC_VERSIONED_MAX_AGE", "30"))
# A public page request that waited longer than this for the origin (nginx's X-Request-Start)
# is answered 503 at once instead of late (config/queue_limit.py). 0: never.
PUBLIC_QUEUE_LIMIT_SECONDS = float(os.environ.get("PUBLIC_QUEUE_LIMIT_SECONDS", "2"))
# Where a rebuilt snapshot's version is announced to the pages (nginx's nchan publisher, e.g.
# http://127.0.0.1:8180/_live/publish/, the tournament's slug appended; scoring/announce.py).
# Empty: nothing announced, the pages poll.
LIVE_PUBLISH_URL = os.environ.get("LIVE_PUBLISH_URL", "")
# The scheme and host the phones reach nginx at (e.g. https://roundhouse.example.org): the
# standings at a new version are fetched through nginx under it, so that they are in its cache
# before the pages hear of them. Unset: the public address (PUBLIC_URL); empty: not warmed (the
# first phone's request fetches them).
LIVE_PUBLIC_ORIGIN = os.environ.get("LIVE_PUBLIC_ORIGIN", PUBLIC_URL)
# Each web host's nginx (its scheme, address and port: http://10.0.0.11:8080,http://10.0.0.12:8080),
# comma-separated: every host keeps a cache of its own, and the worker warms each with a new
# version before the pages hear of it (scoring/announce.py). A name with several addresses
# (compose's nginx service, scaled) is warmed at each of them. Unset: LIVE_PUBLISH_URL's nginx
# only, the one host.
LIVE_WARM_URLS = [
    url.strip().rstrip("/")
    for url in os.environ.get("LIVE_WARM_URLS", "").split(",")
    if url.strip()
]

# Sessions live in the database, so a Redis restart logs nobody out.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"  # a signed-in person's home is "My tournaments"
LOGOUT_REDIRECT_URL = "/"

# Accounts (django-allauth): sign-in by username or email, sign-up for organisers, password reset
# and email confirmation by mail. ROUNDHOUSE_SIGNUP: "open" (anyone may sign up as an organiser)
# or "invite" (only with an organiser's invitation).
ROUNDHOUSE_SIGNUP = os.environ.get("ROUNDHOUSE_SIGNUP", "open").strip().lower()
if ROUNDHOUSE_SIGNUP not in {"open", "invite"}:
    raise ValueError(f"ROUNDHOUSE_SIGNUP is 'open' or 'invite', not {ROUNDHOUSE_SIGNUP!r}")
ROUNDHOUSE_INVITATION_DAYS = int(os.environ.get("ROUNDHOUSE_INVITATION_DAYS", "7"))
# Days an entrant's contact details (email, phone, age, year of birth) are kept after the
# tournament's last day; then the beat erases them (entries/services/privacy.py).
ROUNDHOUSE_CONTACT_DAYS = env.int("ROUNDHOUSE_CONTACT_DAYS", default=90)
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"login": "accounts.forms.LoginForm", "signup": "accounts.forms.SignupForm"}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"  # a confirmation mail is sent; signing in needs none
ACCOUNT_CHANGE_EMAIL = True  # one address, a new one confirmed by mail before it replaces it
ACCOUNT_SESSION_REMEMBER = True  # tablets stay signed in through the day
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = "Roundhouse: "
# django-axes throttles sign-ins (AXES_* below); allauth's own counter of failures is off so
# that one rule, with one message, decides.
ACCOUNT_RATE_LIMITS = {"login_failed": None}

# Mail: EMAIL_URL (smtp://user:password@host:587, smtp+tls://..., smtp+ssl://...) sends it;
# without it, mails are written to the console (make run says so).
EMAIL_URL = os.environ.get("EMAIL_URL", "")
if EMAIL_URL:
    globals().update(env.email_url_config(EMAIL_URL))
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Roundhouse <roundhouse@localhost>")
EMAIL_TIMEOUT = 10

LANGUAGE_CODE = "en"
FORMAT_MODULE_PATH = ["config.formats"]
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
# A new tournament's time zone until its organiser sets one (an IANA name).
ROUNDHOUSE_TIME_ZONE = os.environ.get("ROUNDHOUSE_TIME_ZONE", TIME_ZONE)
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed files in production; plain files in development and tests.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Request limits: a round result or a players CSV is small.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

# Production security, driven by the environment (see deploy/env.example).
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# The language cookie as the session's: HTTPS only, not sent with another site's requests, and
# out of scripts' reach (none reads it: the language is in the address or the form).
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
LANGUAGE_COOKIE_SAMESITE = SESSION_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=False)
SECURE_REDIRECT_EXEMPT = [r"^health/"]  # plain-HTTP probes from inside the network
# Every request comes through a reverse proxy (nginx): HTTPS from its X-Forwarded-Proto, and the
# client's address from X-Forwarded-For (config/client_ip.py), for django-axes and the histories.
BEHIND_PROXY = env.bool("DJANGO_BEHIND_PROXY", default=False)
PROXY_COUNT = int(os.environ.get("DJANGO_PROXY_COUNT", "0"))  # proxies in front of nginx
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": None,
    # JSON that nests too deep or is not UTF-8 is a 400 in the API's shape (config/parsers.py);
    # forms are still read, as v1 did, though the schema offers JSON only (PARSER_WHITELIST).
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Roundhouse API",
    "DESCRIPTION": "Mexican Train dominoes tournaments: players, stages, seating, round results. "
    "Public data (the standings) is marked `Cache-Control: public` for a shared cache; every other "
    "answer says `private, no-store` (its ETag still serves If-Match). A database that does not "
    "answer in time is a 503 with Retry-After, on any operation.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",  # served from here, not a CDN (the CSP allows only this site)
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PATH_CONVERTER_OVERRIDES": {"id": int},  # the <id:> converter's ids are integers
    "COMPONENT_SPLIT_REQUEST": True,
    # Request bodies are JSON in the schema (a generated client sent multipart labelled JSON
    # when every body was offered three ways); the CSV imports declare multipart themselves.
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    "ENUM_NAME_OVERRIDES": {
        "RoundStatusEnum": "scoring.models.RoundResult.Status",
        "EntryStatusEnum": "entries.models.Entry.Status",
        "PaymentMethodEnum": "entries.models.Payment.Method",
        # The name the tie-break's method had before payments also had a method.
        "MethodEnum": "scoring.choices.DecisionMethod",
        # A season's rule, read on the ladder first and written since: the name it had then.
        "LadderOutputRuleEnum": "clubs.models.Season.Rule",
    },
    # Every operation's error answers, with their bodies (config/api_schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.api_schema.declare_answers",
    ],
}

# Celery: a broker URL switches on real workers; without one, tasks run inline.
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
# Inline mode still names a broker: the in-process one, never Celery's default of a local AMQP.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
# Deployments that share one Redis keep their tasks apart by queue name.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
# Small stages' rebuilds on a queue of their own, which a worker of its own takes (a club
# night's result is on its phones within 1.5 s while 500-player events rebuild beside it:
# docs/PERFORMANCE.md, "Saturday"): a stage of at most STANDINGS_SMALL_PLAYERS seated players.
# Empty: every rebuild on the default queue.
STANDINGS_SMALL_QUEUE = os.environ.get("STANDINGS_SMALL_QUEUE", "")
STANDINGS_SMALL_PLAYERS = int(os.environ.get("STANDINGS_SMALL_PLAYERS", "64"))
# A task is acknowledged after it ran, and requeued when its worker dies mid-task.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_SOFT_TIME_LIMIT = 240
# Redis redelivers an unacknowledged task after the visibility timeout: above the longest task.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "900")),
    "socket_connect_timeout": 1,
    "socket_timeout": 1,
    "max_retries": 1,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing from a web request: one quick retry, then give up (the caller logs and moves on).
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# How often beat resends what a broker outage lost (rebuilds, next levels) or what was refused.
STANDINGS_SWEEP_SECONDS = float(os.environ.get("STANDINGS_SWEEP_SECONDS", "30"))
CELERY_BEAT_SCHEDULE = {
    "worker-heartbeat": {"task": "tournaments.tasks.record_heartbeat", "schedule": 30.0},
    "sweep-stale-standings": {
        "task": "scoring.tasks.sweep_stale_standings",
        "schedule": STANDINGS_SWEEP_SECONDS,
    },
    # A club's ratings and ladders, rebuilt whole now and then: what a lost run left behind
    # (a broker down at the wrong moment) is put right within the hour.
    "sweep-clubs": {
        "task": "clubs.tasks.sweep_clubs",
        "schedule": float(os.environ.get("CLUBS_SWEEP_SECONDS", "3600")),
    },
    # Entries: offers that ran out passed on, mail still waiting (a lost task, a mail server
    # that was down) sent.
    "expire-offers": {"task": "entries.tasks.expire_offers", "schedule": 60.0},
    "send-pending-mail": {"task": "entries.tasks.send_pending", "schedule": 300.0},
    # Entrants' contact details erased ROUNDHOUSE_CONTACT_DAYS after their event, once a day.
    "erase-contact-details": {"task": "entries.tasks.erase_old_contacts", "schedule": 86400.0},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}
