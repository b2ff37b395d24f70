"""Users, permission groups and personal access tokens."""

from __future__ import annotations

import secrets
import time
import uuid
from base64 import b32encode
from binascii import Error as BinasciiError
from binascii import unhexlify
from urllib.parse import quote, urlencode

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.db import models
from django.db.models.functions import Lower
from django_otp.models import Device, ThrottlingMixin, TimestampMixin
from django_otp.oath import TOTP
from oauth2_provider.settings import oauth2_settings

from accounts import permissions as perms
from accounts.holdings import annotate_user_counts
from assetsvc.crypto import EncryptedTextField
from companies.querysets import CompanyScopedQuerySet


class UserQuerySet(CompanyScopedQuerySet):
    def alive(self) -> UserQuerySet:
        return self.filter(deleted_at__isnull=True)

    def deleted(self) -> UserQuerySet:
        return self.filter(deleted_at__isnull=False)

    def with_counts(self, viewer: User | None = None) -> UserQuerySet:
        """The record's counts (``assets_count`` ...) from the holdings registry (``accounts.holdings``), as
        correlated subqueries, so a user list runs a constant number of queries; with ``viewer``, of what they may
        see."""
        return annotate_user_counts(self, viewer)


class UserManager(BaseUserManager.from_queryset(UserQuerySet)):
    use_in_migrations = True

    def get_by_natural_key(self, username):
        return self.get(username__iexact=username, deleted_at__isnull=True)

    def create_user(self, username: str, email: str = "", password: str | None = None, **extra) -> User:
        user = self.model(username=username.strip(), email=self.normalize_email(email or ""), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, username: str, email: str = "", password: str | None = None, **extra) -> User:
        extra.pop("is_staff", None)
        extra.pop("is_superuser", None)
        extra.setdefault("permissions", {"superuser": 1})
        extra["permissions"]["superuser"] = 1
        return self.create_user(username, email, password, **extra)


class PermissionGroup(models.Model):
    """A named set of Snipe-IT permission keys (``permission_groups``); users inherit grants from their groups."""

    name = models.CharField(max_length=255)
    permissions = models.JSONField(default=dict, blank=True)
    notes = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="permission_group_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class DepartmentQuerySet(CompanyScopedQuerySet):
    """Departments are company-scoped like users: with separation on, another company's department is as unknown as
    a missing one (``restrict``)."""


class Department(models.Model):
    """A department people belong to (Snipe-IT's ``departments``): a company, a location and a manager, each
    optional. Its users are ``User.department``; a department that still has live users cannot be deleted
    (``accounts.departments.department_delete``)."""

    name = models.CharField(max_length=255)
    company = models.ForeignKey(
        "companies.Company", null=True, blank=True, on_delete=models.PROTECT, related_name="departments"
    )
    #: An upward foreign key by name (inventory sits above accounts), as ``User.location`` (docs/decisions.md).
    location = models.ForeignKey(
        "inventory.Location", null=True, blank=True, on_delete=models.SET_NULL, related_name="departments"
    )
    manager = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="managed_departments"
    )
    phone = models.CharField(max_length=255, blank=True, default="")
    fax = models.CharField(max_length=255, blank=True, default="")
    notes = models.TextField(blank=True, default="")
    image = models.CharField(max_length=255, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DepartmentQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            # Snipe-IT's ``is_unique_department``: one name (ignoring case, as MySQL compares) per company and
            # location, checked only when the department has both.
            models.UniqueConstraint(
                Lower("name"), "company", "location",
                condition=models.Q(company__isnull=False, location__isnull=False),
                name="department_name_ci_unique_per_company_location",
            )
        ]
        indexes = [models.Index(fields=["created_at", "id"], name="department_created_idx")]

    def __str__(self) -> str:
        return self.name


def full_name(first_name: str, last_name: str, username: str) -> str:
    """The name a person is shown by: first and last name, else the username (also for rows read without a model
    instance, ``inventory.api.assets.records``)."""
    return f"{first_name} {last_name}".strip() or username


class User(AbstractBaseUser):
    """A person who signs in, holds checked-out items, and acts through the API with personal access tokens.

    Rights come from ``permissions`` (Snipe-IT keys to -1/0/1) and the groups; there is no separate Django
    ``is_superuser`` column: the ``superuser`` key is the one source of truth (see accounts.permissions).
    """

    username = models.CharField(max_length=191)
    first_name = models.CharField(max_length=191, blank=True, default="")
    last_name = models.CharField(max_length=191, blank=True, default="")
    email = models.CharField(max_length=191, blank=True, default="")
    employee_num = models.CharField(max_length=191, blank=True, null=True)
    #: The identity provider's own id of the person (SCIM ``externalId``, issue 30): kept as sent, never interpreted.
    external_id = models.CharField(max_length=191, blank=True, default="", db_index=True)
    jobtitle = models.CharField(max_length=191, blank=True, default="")
    phone = models.CharField(max_length=50, blank=True, default="")
    notes = models.TextField(blank=True, default="")
    is_active = models.BooleanField("activated", default=True, db_column="activated")
    company = models.ForeignKey(
        "companies.Company", null=True, blank=True, on_delete=models.PROTECT, related_name="users"
    )
    location = models.ForeignKey(
        "inventory.Location", null=True, blank=True, on_delete=models.SET_NULL, related_name="users"
    )
    department = models.ForeignKey(
        Department, null=True, blank=True, on_delete=models.SET_NULL, related_name="users"
    )
    #: The person's manager (Snipe-IT's ``manager_id``, issue 31): a live user of a company the caller may see, never
    #: the user themselves nor one of the people they manage (``accounts.services.checked_manager``).
    manager = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    permissions = models.JSONField(default=dict, blank=True)
    groups = models.ManyToManyField(PermissionGroup, blank=True, related_name="users")
    created_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: Came from the directory (Snipe-IT's ``ldap_import``): only such users are updated and deactivated by
    #: ``ldap_sync`` and signed in by the LDAP backend (accounts/ldap/, docs/directory.md).
    ldap_import = models.BooleanField("from the directory", default=False)

    objects = UserManager()

    USERNAME_FIELD = "username"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["email"]

    class Meta:
        ordering = ["first_name", "last_name", "id"]
        constraints = [
            models.UniqueConstraint(
                Lower("username"), condition=models.Q(deleted_at__isnull=True), name="user_username_ci_unique_alive"
            )
        ]
        indexes = [models.Index(fields=["company"]), models.Index(fields=["email"]),
                   # a company record's users_count, one index-only lookup per listed company (issue 13)
                   models.Index(fields=["company"], condition=models.Q(deleted_at__isnull=True),
                                name="user_alive_company_idx"),
                   # the list's default order (newest first): a page reads 50 index entries instead of sorting
                   # every user joined with their company and location (issue 13)
                   models.Index(fields=["created_at", "id"], condition=models.Q(deleted_at__isnull=True),
                                name="user_alive_created_idx")]

    def __str__(self) -> str:
        return self.username

    @property
    def full_name(self) -> str:
        return full_name(self.first_name, self.last_name, self.username)

    @property
    def picker_label(self) -> str:
        """How the admin's user pickers show a person (issue 28): "Jane Doe (jdoe, jane@example.com)", leaving out
        what is empty ("jdoe (jane@example.com)", "jdoe")."""
        name = f"{self.first_name} {self.last_name}".strip()
        details = ", ".join(part for part in ((self.username if name else ""), self.email) if part)
        head = name or self.username
        return f"{head} ({details})" if details else head

    @property
    def is_superuser(self) -> bool:
        return perms.is_superuser(self)

    @property
    def is_staff(self) -> bool:
        """Signs in to the Django admin: super users and holders of ``admin``, active and not deleted. What an
        administrator may do there is ``has_perm`` (accounts.permissions.ADMIN_SITE_RIGHTS)."""
        return perms.may_use_admin_site(self)

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    def has_access(self, key: str) -> bool:
        return perms.has_access(self, key)

    # Django admin integration.
    def has_perm(self, perm: str, obj=None) -> bool:
        return perms.admin_site_allows(self, perm)

    def has_perms(self, perm_list, obj=None) -> bool:
        return all(perms.admin_site_allows(self, perm) for perm in perm_list)

    def has_module_perms(self, app_label: str) -> bool:
        return perms.admin_site_allows_app(self, app_label)

    def get_full_name(self) -> str:
        return self.full_name

    def get_short_name(self) -> str:
        return self.first_name or self.username


class PersonalAccessToken(models.Model):
    """A named personal access token. The secret lives hashed in DOT's ``AccessToken`` (checksum only).

    Revoking deletes the DOT access token, so the next request with it fails; this row stays as the record.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="personal_tokens")
    application = models.ForeignKey(
        oauth2_settings.APPLICATION_MODEL, on_delete=models.PROTECT, related_name="personal_tokens"
    )
    access_token = models.OneToOneField(
        oauth2_settings.ACCESS_TOKEN_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="personal_token",
    )
    name = models.CharField(max_length=255)
    revoked = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "revoked", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


def new_totp_key() -> str:
    """A new TOTP seed: 20 random bytes (160 bits, RFC 4226's recommended length), hex-encoded."""
    return secrets.token_hex(20)


class SealedTOTPDevice(TimestampMixin, ThrottlingMixin, Device):
    """A person's authenticator app (time-based one-time codes, RFC 6238), a django-otp device whose seed is
    encrypted at rest with ``FIELD_ENCRYPTION_KEY`` (django-otp's own ``TOTPDevice`` keeps it in plain hex).

    ``key`` reads as the hex seed; the column holds a Fernet token. ``last_t`` is the time step of the last code
    accepted, so a code is used once; ``drift`` follows the app's clock. django-otp finds this class among the
    installed apps' ``Device`` subclasses (``django_otp.devices_for_user``, ``otp_login``, ``is_verified``).
    """

    key = EncryptedTextField(default=new_totp_key, help_text="The hex-encoded seed, stored encrypted.")
    step = models.PositiveSmallIntegerField(default=30, help_text="Seconds per time step.")
    t0 = models.BigIntegerField(default=0, help_text="The Unix time step counting starts at.")
    digits = models.PositiveSmallIntegerField(choices=[(6, 6), (8, 8)], default=6)
    tolerance = models.PositiveSmallIntegerField(default=1, help_text="Time steps either side accepted.")
    drift = models.SmallIntegerField(default=0, help_text="Time steps the app's clock is known to be off.")
    last_t = models.BigIntegerField(default=-1, help_text="The time step of the last code accepted.")

    class Meta(Device.Meta):
        verbose_name = "authenticator app"

    @property
    def bin_key(self) -> bytes:
        """The seed as bytes; empty when it cannot be read (no configured key opens it, or it is not hex)."""
        try:
            return unhexlify(self.key or "")
        except (BinasciiError, ValueError):
            return b""

    def get_throttle_factor(self) -> int:
        return getattr(settings, "OTP_TOTP_THROTTLE_FACTOR", 1)

    def verify_token(self, token) -> bool:
        """Whether ``token`` is the code of a time step within ``tolerance`` of now (after ``drift``) and later than
        the last one accepted. django-otp's throttle refuses while it runs; each wrong code lengthens it. A seed
        that cannot be decrypted verifies nothing (an empty HMAC key would give codes anyone can compute)."""
        allowed, _ = self.verify_is_allowed()
        if not allowed:
            return False
        key = self.bin_key
        try:
            number = int(str(token))
        except ValueError:
            number = None
        matched = False
        if key and number is not None:
            totp = TOTP(key, self.step, self.t0, self.digits, self.drift)
            totp.time = time.time()
            matched = totp.verify(number, tolerance=self.tolerance, min_t=self.last_t + 1)
        if not matched:
            self.throttle_increment()
            return False
        self.last_t = totp.t()
        self.drift = totp.drift
        self.throttle_reset(commit=False)
        self.set_last_used_timestamp(commit=False)
        self.save()
        return True

    @property
    def config_url(self) -> str:
        """The ``otpauth://`` address the enrolment page shows as a QR code (Google Authenticator's key URI format)."""
        issuer = getattr(settings, "OTP_TOTP_ISSUER", "") or ""
        account = self.user.get_username()
        label = f"{issuer}:{account}" if issuer else account
        params = {"secret": b32encode(self.bin_key).decode().rstrip("="), "algorithm": "SHA1",
                  "digits": self.digits, "period": self.step}
        if issuer:
            params["issuer"] = issuer
        return f"otpauth://totp/{quote(label)}?{urlencode(params)}"
