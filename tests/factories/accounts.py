from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from accounts.models import Department, PermissionGroup, User


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    permissions = factory.LazyFunction(dict)
    password = factory.django.Password("correct horse battery")

    class Params:
        superuser = factory.Trait(permissions=factory.LazyFunction(lambda: {"superuser": 1}))


class PermissionGroupFactory(DjangoModelFactory[PermissionGroup]):
    class Meta:
        model = PermissionGroup

    name = factory.Sequence(lambda n: f"Group {n}")
    permissions = factory.LazyFunction(dict)


class DepartmentFactory(DjangoModelFactory[Department]):
    """A department without company, location or manager unless given."""

    class Meta:
        model = Department

    name = factory.Sequence(lambda n: f"Department {n}")
