"""Settings, read from the environment (README.md lists every variable with its default).

There is no separate production module: environment variables switch production behaviour on, and the settings
fail fast when something production needs is missing (no secret key without DEBUG).
"""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from assetsvc.client_address import parse_trusted_proxies

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    value = value.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false/1/0/yes/no/on/off), got {value!r}")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {number}")
    return number


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# CORE ---------------------------------------------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
_secret_file = BASE_DIR / ".secret_key"
if not SECRET_KEY and _secret_file.exists():
    # `make run` generates this ignored file once, so `manage.py` works later without extra variables.
    SECRET_KEY = _secret_file.read_text().strip()
if not SECRET_KEY:
    if DEBUG:
        SECRET_KEY = "insecure-debug-only-key"  # noqa: S105 - only ever with DEBUG on
    else:
        raise ImproperlyConfigured("SECRET_KEY is required unless DEBUG is on (make run generates .secret_key)")

# Keys of encrypted custom field values (issue 15; docs/custom-fields.md): comma-separated, the first encrypts, all
# decrypt (rotation). Each is a Fernet key or any other text (hashed to one). Empty: derived from SECRET_KEY, so set it
# explicitly in production before rotating SECRET_KEY, or encrypted values become unreadable.
FIELD_ENCRYPTION_KEYS = env_list("FIELD_ENCRYPTION_KEY", "") or [f"derived-from-secret-key:{SECRET_KEY}"]

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "assetsvc.apps.AssetsvcAdminConfig",  # django.contrib.admin with our AdminSite (site name, Internals, pickers)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "oauth2_provider",
    "django_tasks",
    # Two-factor sign-in (issue 30; docs/directory.md): TOTP devices and backup codes.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "axes",  # sign-in throttling per account and address
    "assetsvc",
    "activity",
    "companies",
    "accounts",
    "inventory",
    "notifications",
    # After notifications, whose `db_worker` (the library's, plus a sweep of stopped workers' tasks) must win.
    "django_tasks_db",
]

MIDDLEWARE = [
    "assetsvc.api.middleware.ApiErrorMiddleware",
    "assetsvc.api.middleware.RequestMetaMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "assetsvc.api.middleware.ApiRateLimitMiddleware",
    "assetsvc.api.middleware.ApiTlsMiddleware",
    "assetsvc.api.middleware.RequestBodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): a code given in this session
    "accounts.twofactor.middleware.TwoFactorMiddleware",  # the admin asks for the code (or enrolment) first
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # the lockout page (accounts.twofactor.throttle)
]

ROOT_URLCONF = "assetsvc.urls"
WSGI_APPLICATION = "assetsvc.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
APPEND_SLASH = False
# The throttle (django-axes) first: a locked-out account and address is refused before the password is checked.
AUTHENTICATION_BACKENDS = ["accounts.twofactor.throttle.ThrottleBackend", "accounts.backends.UsernameBackend"]
# Usernames are unique case-insensitively among non-deleted users (a database constraint), not globally.
SILENCED_SYSTEM_CHECKS = ["auth.W004"]

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
            ],
        },
    },
]

# DATABASES ----------------------------------------------------------------------------------------------------------
# SQLite in the project folder is the embedded default; DATABASE_URL=postgres://... switches to PostgreSQL.
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip() or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
# Connections are kept (checked before reuse): each one plans a statement only for its first few runs
# (prepared statements below), so a connection reopened every minute re-paid that on every query shape.
DATABASES = {"default": dj_database_url.parse(
    DATABASE_URL, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "600") or 600), conn_health_checks=True)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers queue instead of failing with
    # "database is locked" half-way through; SQLite has no row locks, this serialises state changes instead.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
else:
    # An unreachable server is an answer (503) within seconds, not a request hanging on TCP retries
    # (docs/operations.md).
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = int(
        os.environ.get("DB_CONNECT_TIMEOUT", "5") or 5)
    # Prepared statements (docs/performance.md): parameters bound by the server, so psycopg prepares a query the
    # second time a connection runs it and PostgreSQL skips planning afterwards; a hardware record joins 13 tables,
    # whose planning cost more than running it. Off for a pooler in transaction mode (pgbouncer before 1.21).
    if env_bool("DB_PREPARED_STATEMENTS", True):
        DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=2)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# E-MAIL (issue 29; docs/mail.md) ------------------------------------------------------------------------------------
# Django's own names. Without EMAIL_HOST nothing is sent: each mail is written to the server log and the mail log.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "").strip()
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS (STARTTLS) and EMAIL_USE_SSL (implicit TLS) exclude each other")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30, minimum=1)
# A CA bundle (PEM) that signs the mail server's certificate, when the system's CAs do not (an internal CA).
EMAIL_SSL_CAFILE = os.environ.get("EMAIL_SSL_CAFILE", "").strip()
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "").strip() or "assets@localhost"
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_BACKEND = "notifications.mail_backend.EmailBackend"
# Attempts of one mail before it is given up (a permanent 5xx refusal is never tried again), and the first wait
# between attempts in seconds, doubled after each failure up to an hour.
MAIL_MAX_ATTEMPTS = env_int("MAIL_MAX_ATTEMPTS", 10, minimum=1)
MAIL_RETRY_SECONDS = env_int("MAIL_RETRY_SECONDS", 60, minimum=0)
# The public base address of this service, used in the links mails carry (no trailing slash).
SITE_URL = (os.environ.get("SITE_URL", "").strip()
            or f"http://{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}").rstrip("/")
# Days an acceptance link works (issue 29).
ACCEPTANCE_LINK_DAYS = env_int("ACCEPTANCE_LINK_DAYS", 30, minimum=1)

# DIRECTORY: LDAP AND ACTIVE DIRECTORY (issue 30; docs/directory.md) -------------------------------------------------
# Empty LDAP_SERVER_URI: no directory, no LDAP sign-in backend, the ldap routes answer "not configured".
LDAP_SERVER_URI = os.environ.get("LDAP_SERVER_URI", "").strip()
LDAP_BIND_DN = os.environ.get("LDAP_BIND_DN", "").strip()
LDAP_BIND_PASSWORD = os.environ.get("LDAP_BIND_PASSWORD", "")
LDAP_USER_BASE = os.environ.get("LDAP_USER_BASE", "").strip()
# Active Directory: (&(objectCategory=person)(objectClass=user)), since its computers are persons too.
LDAP_USER_FILTER = os.environ.get("LDAP_USER_FILTER", "").strip() or "(objectClass=person)"
# The attribute people sign in with (Active Directory: sAMAccountName); the map's username unless it names one.
LDAP_USERNAME_ATTR = os.environ.get("LDAP_USERNAME_ATTR", "").strip() or "uid"
# JSON {our field: LDAP attribute} over the defaults (accounts/ldap/config.py); "" leaves a field to this service.
try:
    LDAP_ATTR_MAP = json.loads(os.environ.get("LDAP_ATTR_MAP", "").strip() or "{}")
except ValueError as exc:
    raise ImproperlyConfigured(f"LDAP_ATTR_MAP must be a JSON object: {exc}") from exc
if not isinstance(LDAP_ATTR_MAP, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in LDAP_ATTR_MAP.items()):
    raise ImproperlyConfigured('LDAP_ATTR_MAP must be a JSON object of strings, e.g. {"department": "ou"}')
# Entries that also match this filter are disabled (OpenLDAP: (pwdAccountLockedTime=*)); Active Directory's
# userAccountControl bit 2 counts always.
LDAP_DISABLED_FILTER = os.environ.get("LDAP_DISABLED_FILTER", "").strip()
LDAP_START_TLS = env_bool("LDAP_START_TLS", False)
# A CA bundle (PEM) that signs the directory's certificate (StartTLS or ldaps://), when the system's CAs do not.
LDAP_CA_FILE = os.environ.get("LDAP_CA_FILE", "").strip()
LDAP_TIMEOUT = env_int("LDAP_TIMEOUT", 10, minimum=1)
if LDAP_SERVER_URI:
    if not LDAP_SERVER_URI.startswith(("ldap://", "ldaps://")):
        raise ImproperlyConfigured(f"LDAP_SERVER_URI must start with ldap:// or ldaps://, got {LDAP_SERVER_URI!r}")
    if not LDAP_USER_BASE:
        raise ImproperlyConfigured("LDAP_USER_BASE is required when LDAP_SERVER_URI is set")
    AUTHENTICATION_BACKENDS = [*AUTHENTICATION_BACKENDS, "accounts.ldap.backend.LdapBackend"]

# TASKS --------------------------------------------------------------------------------------------------------------
# Webhook notifications are tasks (django-tasks) stored in the same database (django-tasks-db): a task row is written
# in the transaction of the change that causes it, and `manage.py db_worker` processes deliver it (docs/decisions.md).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}

# CACHES -------------------------------------------------------------------------------------------------------------
# The rate-limit counter lives here: Redis when several worker processes must share it, local memory otherwise.
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "assetsvc"),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "assetsvc"}}

# I18N ---------------------------------------------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# STATIC -------------------------------------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# FILES ON RECORDS (issue 27; docs/files.md) ---------------------------------------------------------------------------
# Uploaded files are private: no URL serves them, only the API (with the record's permission) and the admin. They sit
# in the "files" storage: a local folder (FILES_DIR), or any S3-compatible bucket through django-storages.
FILES_STORAGE = os.environ.get("FILES_STORAGE", "local").strip().lower() or "local"
FILES_DIR = os.environ.get("FILES_DIR", "").strip() or str(BASE_DIR / "var" / "files")
UPLOAD_MAX_MB = env_int("UPLOAD_MAX_MB", 25, minimum=1)
if FILES_STORAGE == "local":
    # A folder without URLs (activity.storage): files are served only through the API and the admin.
    STORAGES["files"] = {"BACKEND": "activity.storage.PrivateFileSystemStorage",
                         "OPTIONS": {"location": FILES_DIR, "file_permissions_mode": 0o640,
                                     "directory_permissions_mode": 0o750}}
elif FILES_STORAGE == "s3":
    _bucket = os.environ.get("FILES_S3_BUCKET", "").strip()
    if not _bucket:
        raise ImproperlyConfigured("FILES_STORAGE=s3 needs FILES_S3_BUCKET")
    STORAGES["files"] = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
        "bucket_name": _bucket,
        # empty: AWS itself; set it for MinIO, Ceph, Garage, Wasabi, ... (https://minio.internal:9000)
        "endpoint_url": os.environ.get("FILES_S3_ENDPOINT_URL", "").strip() or None,
        "region_name": os.environ.get("FILES_S3_REGION", "").strip() or None,
        # empty: boto3's own chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an instance role)
        "access_key": os.environ.get("FILES_S3_ACCESS_KEY_ID", "").strip() or None,
        "secret_key": os.environ.get("FILES_S3_SECRET_ACCESS_KEY", "").strip() or None,
        "location": os.environ.get("FILES_S3_PREFIX", "").strip().strip("/"),
        "addressing_style": os.environ.get("FILES_S3_ADDRESSING_STYLE", "").strip() or None,
        "default_acl": "private",
        "querystring_auth": True,
        "file_overwrite": False,
    }}
else:
    raise ImproperlyConfigured(f"FILES_STORAGE must be 'local' or 's3', got {FILES_STORAGE!r}")
WHITENOISE_USE_FINDERS = True

# SECURITY -----------------------------------------------------------------------------------------------------------
# APP_FORCE_TLS: the service sits behind a TLS proxy. Browser pages are redirected to HTTPS; API calls over plain
# HTTP are refused with a JSON error instead (a redirect would hide that the token already crossed in clear text).
APP_FORCE_TLS = env_bool("APP_FORCE_TLS", False)
SECURE_COOKIES = env_bool("SECURE_COOKIES", APP_FORCE_TLS)
if APP_FORCE_TLS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^api/"]
    SECURE_HSTS_SECONDS = 31536000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Request bodies (issue 25; docs/operations.md): refused with 413 before they are read when larger than
# API_MAX_BODY_MB under /api/ or ADMIN_MAX_BODY_MB elsewhere (the admin's CSV import takes files of up to 50 MB),
# by assetsvc.api.middleware.RequestBodyLimitMiddleware. Django's own cap on form data (files excluded) is the API's,
# so a form body the API accepts is read like JSON instead of failing at Django's 2.5 MB default.
API_MAX_BODY_MB = env_int("API_MAX_BODY_MB", 10, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_MB * 1024 * 1024

# SCIM provisioning (issue 30; docs/directory.md): Entra ID and Okta create, update and deactivate users and push
# groups at /scim/v2/, authenticated by a personal access token of a user who may create, edit and delete users.
# Off: /scim/v2/ answers 404 like any unknown path.
SCIM_ENABLED = env_bool("SCIM_ENABLED", False)

# SIGN-IN (issue 30; docs/directory.md "Two-factor sign-in and sign-in throttling") --------------------------------
# Password sign-in is throttled per account and address by django-axes: LOGIN_FAILURE_LIMIT failed passwords of one
# username from one address lock that pair out for LOGIN_LOCKOUT_MINUTES (0 failures: no throttling). The address is
# ours (assetsvc.client_address, TRUSTED_PROXIES). The API's bearer tokens never pass through it.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=0)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1)
AXES_ENABLED = LOGIN_FAILURE_LIMIT > 0
AXES_FAILURE_LIMIT = max(LOGIN_FAILURE_LIMIT, 1)
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "accounts.twofactor.throttle.client_ip"
AXES_LOCKOUT_CALLABLE = "accounts.twofactor.throttle.lockout_response"
AXES_RESET_ON_SUCCESS = True  # a right password clears the pair's failures, as Snipe-IT's throttle does
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the lockout lasts the configured time, not longer
AXES_ENABLE_ACCESS_FAILURE_LOG = True  # every failed attempt is a row: GET /settings/login-attempts lists them
AXES_VERBOSE = False
AXES_USERNAME_FORM_FIELD = "username"
# The TOTP apps' label ("Asset management: jdoe").
OTP_TOTP_ISSUER = os.environ.get("SITE_NAME", "").strip() or "Asset management"
# Minutes a password reset link works (Django counts seconds); the link also dies once the password changes or the
# person signs in.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_MINUTES", 60, minimum=1) * 60

# API ----------------------------------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.PersonalAccessTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["assetsvc.api.permissions.HasItemPermission"],
    "DEFAULT_RENDERER_CLASSES": ["assetsvc.api.renderers.ApiJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "assetsvc.api.parsers.LenientJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "assetsvc.api.pagination.TotalRowsPagination",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "assetsvc.api.exceptions.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_VERSIONING_CLASS": None,
    "COERCE_DECIMAL_TO_STRING": True,
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%SZ",
    "DATE_FORMAT": "%Y-%m-%d",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Asset management service API",
    "DESCRIPTION": "Snipe-IT REST API v1 compatible asset management.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    # /api/docs and /api/redoc load Swagger UI and ReDoc from drf-spectacular-sidecar's static files: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # validatorUrl None: Swagger UI would otherwise send the schema to an outside validator for its badge.
    # filter: a box that narrows the operations by tag (80 paths; Swagger UI renders only what is in view).
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None, "displayOperationId": False, "filter": True},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "assetsvc.api.schema.document_errors",
        "assetsvc.api.schema.canonical_paths",
        "assetsvc.api.schema.attach_examples",
        "assetsvc.api.operation_docs.describe_operations",
    ],
}

OAUTH2_PROVIDER = {
    # Hashed at rest (RFC 9700): the token column stays empty, only a SHA-256 checksum is stored.
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "SCOPES": {"read": "Read", "write": "Write"},
    # DOT's default admin lists and searches the token column; ours shows metadata only.
    "ACCESS_TOKEN_ADMIN_CLASS": "accounts.admin.AccessTokenAdmin",
}

# Application knobs, read through assetsvc.conf.app_settings.
# TRUSTED_PROXIES: which proxies' X-Forwarded-For entries are believed (assetsvc.client_address); validated here so
# a typo fails at start-up instead of silently trusting nobody.
_trusted_proxies = os.environ.get("TRUSTED_PROXIES", "").strip()
try:
    parse_trusted_proxies(_trusted_proxies)
except ValueError as _error:
    raise ImproperlyConfigured(str(_error)) from _error

_api_error_status = os.environ.get("API_ERROR_STATUS", "compat").strip().lower() or "compat"
if _api_error_status not in {"compat", "http"}:
    raise ImproperlyConfigured(f"API_ERROR_STATUS must be 'compat' or 'http', got {_api_error_status!r}")

# iso: the specification's timestamp strings; snipeit: Snipe-IT's {"datetime", "formatted"} objects in records of
# assets, items, companies and the action log (API-CONTRACT.md §3), for scripts such as jamf2snipe.
_api_date_format = os.environ.get("API_DATE_FORMAT", "iso").strip().lower() or "iso"
if _api_date_format not in {"iso", "snipeit"}:
    raise ImproperlyConfigured(f"API_DATE_FORMAT must be 'iso' or 'snipeit', got {_api_date_format!r}")

ASSETSVC = {
    "API_THROTTLE_PER_MINUTE": env_int("API_THROTTLE_PER_MINUTE", 120, minimum=1),
    "API_TOKEN_EXPIRATION_YEARS": env_int("API_TOKEN_EXPIRATION_YEARS", 15, minimum=1),
    "MAX_RESULTS": env_int("MAX_RESULTS", 500, minimum=1),
    "API_MAX_BODY_MB": API_MAX_BODY_MB,
    "ADMIN_MAX_BODY_MB": env_int("ADMIN_MAX_BODY_MB", 55, minimum=1),
    "API_ERROR_STATUS": _api_error_status,
    "API_DATE_FORMAT": _api_date_format,
    "TRUSTED_PROXIES": _trusted_proxies,
    "WEBHOOK_ENDPOINT": os.environ.get("WEBHOOK_ENDPOINT", "").strip(),
    "WEBHOOK_CHANNEL": os.environ.get("WEBHOOK_CHANNEL", "").strip(),
    "WEBHOOK_BOTNAME": os.environ.get("WEBHOOK_BOTNAME", "").strip(),
    "WEBHOOK_PLATFORM": os.environ.get("WEBHOOK_PLATFORM", "").strip().lower(),
    # Validated with the rest of the webhook configuration (notifications.config): an invalid value stops sending.
    "WEBHOOK_SECRET": os.environ.get("WEBHOOK_SECRET", "").strip(),
    "WEBHOOK_EVENTS": os.environ.get("WEBHOOK_EVENTS", "").strip(),
    "WEBHOOK_TIMEOUT": env_int("WEBHOOK_TIMEOUT", 5, minimum=1),
    # Seconds a process reuses its /health/ready answer (issue 25: unthrottled, several queries a call); 0: none.
    "HEALTH_READY_CACHE_SECONDS": env_int("HEALTH_READY_CACHE_SECONDS", 2, minimum=0),
    "WEBHOOK_LOG_RETENTION_DAYS": env_int("WEBHOOK_LOG_RETENTION_DAYS", 90, minimum=1),
    # The admin's header, browser title, index title and login page (issue 28), instead of "Django administration".
    "SITE_NAME": os.environ.get("SITE_NAME", "").strip() or "Asset management",
}

RATELIMIT_USE_CACHE = "default"
# Where the admin's CSV import keeps an uploaded file between its preview and its confirmation (issue 14;
# docs/import-export.md): empty = the system temporary directory. Several hosts behind one admin need a shared one.
CSV_IMPORT_DIR = os.environ.get("CSV_IMPORT_DIR", "")
# Import previews (dry runs) a user may start, django-ratelimit's "N/s|m|h|d"; empty = no limit (issue 25).
CSV_IMPORT_PREVIEW_RATE = os.environ.get("CSV_IMPORT_PREVIEW_RATE", "30/h").strip()
if CSV_IMPORT_PREVIEW_RATE and not re.fullmatch(r"[0-9]+/[0-9]*[smhd]", CSV_IMPORT_PREVIEW_RATE):
    raise ImproperlyConfigured("CSV_IMPORT_PREVIEW_RATE must look like 30/h (or be empty for no limit)")
# An admin CSV upload of more lines than this is previewed and imported by the task worker (`db_worker`), with its
# progress on a page, instead of in the request (docs/import-export.md, "Large files").
CSV_IMPORT_TASK_ROWS = env_int("CSV_IMPORT_TASK_ROWS", 2000, minimum=0)
# Backups (issue 27; docs/operations.md): `manage.py backup` writes archives here (created 0700) and keeps the newest
# BACKUP_KEEP of them; `GET /api/v1/settings/backups` lists them for super users.
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR", "").strip() or BASE_DIR / "var" / "backups")
BACKUP_KEEP = env_int("BACKUP_KEEP", 10, minimum=1)
# DOT's swappable models, named explicitly so our foreign keys to them resolve in migrations.
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"

# SINGLE SIGN-ON (issue 30; docs/directory.md, "Single sign-on (OpenID Connect)") ----------------------------------
# Empty OIDC_ISSUER: no sign-on button, backend or callback (the /oidc/ pages answer 404). The provider's endpoints are
# read from <issuer>/.well-known/openid-configuration at the first sign-in and kept an hour (accounts.sso.discovery),
# so a provider that is down never stops the service from starting.
OIDC_ISSUER = os.environ.get("OIDC_ISSUER", "").strip().rstrip("/")
OIDC_CLIENT_ID = os.environ.get("OIDC_CLIENT_ID", "").strip()
OIDC_CLIENT_SECRET = os.environ.get("OIDC_CLIENT_SECRET", "").strip()
# Create a user (without any rights) at the first sign-in of someone no user matches; off: they are refused.
OIDC_CREATE_USERS = env_bool("OIDC_CREATE_USERS", False)
# The button's text; empty: derived from the issuer ("Sign in with Microsoft", ... else "Sign in with single sign-on").
OIDC_BUTTON_LABEL = os.environ.get("OIDC_BUTTON_LABEL", "").strip()
OIDC_SCOPES = " ".join(os.environ.get("OIDC_SCOPES", "").split()) or "openid email profile"
# A CA bundle (PEM) that signs the provider's certificate when the system's CAs do not; verification is never off.
OIDC_CA_FILE = os.environ.get("OIDC_CA_FILE", "").strip()
# Seconds each call to the provider (discovery, token, user info, keys) may take; mozilla-django-oidc reads it too.
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT", 10, minimum=1)
if OIDC_ISSUER:
    if not OIDC_ISSUER.startswith(("https://", "http://")):
        raise ImproperlyConfigured(f"OIDC_ISSUER must be an https:// (or http://) URL, got {OIDC_ISSUER!r}")
    if not (OIDC_CLIENT_ID and OIDC_CLIENT_SECRET):
        raise ImproperlyConfigured("OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET")
    if "openid" not in OIDC_SCOPES.split():
        raise ImproperlyConfigured(f"OIDC_SCOPES must contain openid, got {OIDC_SCOPES!r}")
    if OIDC_CA_FILE and not Path(OIDC_CA_FILE).is_file():
        raise ImproperlyConfigured(f"OIDC_CA_FILE {OIDC_CA_FILE!r} is not a file")
    AUTHENTICATION_BACKENDS.append("accounts.sso.backend.SSOBackend")
# mozilla-django-oidc's own names (the endpoints are not settings: accounts.sso reads them from discovery).
OIDC_RP_CLIENT_ID = OIDC_CLIENT_ID
OIDC_RP_CLIENT_SECRET = OIDC_CLIENT_SECRET
OIDC_RP_SCOPES = OIDC_SCOPES
OIDC_RP_SIGN_ALGO = "RS256"
OIDC_VERIFY_SSL = OIDC_CA_FILE or True
OIDC_USE_NONCE = True
OIDC_USE_PKCE = True
OIDC_STORE_ACCESS_TOKEN = False
OIDC_STORE_ID_TOKEN = False

# LOGGING ------------------------------------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # fontTools (fpdf2's font subsetting for the signed EULA PDFs, issue 29) logs every glyph at INFO.
    "loggers": {"django.request": {"level": "ERROR"}, "fontTools": {"level": "WARNING"}},
}
