"""Companies: the unit of separation between tenants."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinLengthValidator, RegexValidator
from django.db import models
from django.db.models.functions import Lower

from companies.querysets import CompanyScopedQuerySet


class CompanyQuerySet(models.QuerySet):
    def restrict(self, user, action: str = "view") -> CompanyQuerySet:
        """With separation on, a user with a company sees only that company (API-CONTRACT.md §7)."""
        from companies.querysets import separation_applies_to

        if user is None or not getattr(user, "is_authenticated", False):
            return self.none()
        if not separation_applies_to(user):
            return self
        return self.filter(pk=user.company_id)

    def with_counts(self) -> CompanyQuerySet:
        """The six ``*_count`` annotations of the company record (one correlated subquery each)."""
        from companies.counts import annotate_company_counts

        return annotate_company_counts(self)


class Company(models.Model):
    """A company groups items and users; with full multiple company support on, it is a hard boundary."""

    name = models.CharField(max_length=255)
    phone = models.CharField(max_length=35, null=True, blank=True, validators=[MinLengthValidator(7)])
    fax = models.CharField(max_length=35, null=True, blank=True, validators=[MinLengthValidator(7)])
    email = models.EmailField(max_length=150, null=True, blank=True)
    notes = models.TextField(blank=True, default="")
    tag_color = models.CharField(
        max_length=10,
        null=True,
        blank=True,
        validators=[RegexValidator(r"^#(?:[0-9a-fA-F]{3}){1,2}$", "The tag color must be a hex colour like #1a2b3c.")],
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CompanyQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        verbose_name_plural = "companies"
        constraints = [models.UniqueConstraint(Lower("name"), name="company_name_ci_unique")]
        # the list's default order (newest first), read from the index instead of sorting every company (issue 13)
        indexes = [models.Index(fields=["created_at", "id"], name="company_created_idx")]

    def __str__(self) -> str:
        return self.name


class CompanyScopedModel(models.Model):
    """Base of every item that belongs to a company (assets now; accessories, consumables, components and licenses
    later): the ``company`` foreign key and the scoped manager come together, so a new kind of item cannot forget
    separation. A subclass may override ``company`` (e.g. for its ``related_name``) and ``objects`` with a subclass of
    :class:`CompanyScopedQuerySet`; the ``companies.E001`` system check and ``tests/companies/test_scoped_models.py``
    refuse any model with a ``company`` field whose default manager is not scoped, unless it is listed in
    :data:`companies.checks.UNSCOPED_COMPANY_MODELS` with a reason.

    Also register the kind with :func:`companies.counts.register_company_count` (the company record's counts and
    rule 9).
    """

    company = models.ForeignKey(
        "companies.Company", null=True, blank=True, on_delete=models.PROTECT, related_name="%(app_label)s_%(class)s_set"
    )

    objects = CompanyScopedQuerySet.as_manager()

    class Meta:
        abstract = True


from companies import checks  # noqa: E402,F401  (registers the system check)
