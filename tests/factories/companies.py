from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from companies.models import Company


class CompanyFactory(DjangoModelFactory[Company]):
    class Meta:
        model = Company

    name = factory.Sequence(lambda n: f"Company {n}")
