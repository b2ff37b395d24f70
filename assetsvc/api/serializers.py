"""Serializer base classes with Snipe-IT's (Laravel's) English validation messages and lenient text input."""

from __future__ import annotations

from typing import Any

from django.core import validators as django_validators
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import fields as drf_fields
from rest_framework import relations, serializers


def attribute_name(field_name: str) -> str:
    return field_name.replace("_", " ")


def _invalid_message(field: drf_fields.Field) -> str:
    if isinstance(field, drf_fields.BooleanField):
        return "The {attr} field must be true or false."
    if isinstance(field, drf_fields.IntegerField):
        return "The {attr} must be an integer."
    if isinstance(field, drf_fields.DecimalField | drf_fields.FloatField):
        return "The {attr} must be a number."
    if isinstance(field, drf_fields.DateTimeField | drf_fields.DateField):
        return "The {attr} is not a valid date."
    if isinstance(field, drf_fields.EmailField):
        return "The {attr} must be a valid email address."
    if isinstance(field, drf_fields.URLField):
        return "The {attr} format is invalid."
    if isinstance(field, drf_fields.UUIDField):
        return "The {attr} must be a valid UUID."
    if isinstance(field, drf_fields.CharField):
        return "The {attr} must be a string."
    return "The {attr} is invalid."


def laravel_messages(field: drf_fields.Field, field_name: str) -> dict[str, str]:
    messages = {
        "required": "The {attr} field is required.",
        "null": "The {attr} field is required.",
        "blank": "The {attr} field is required.",
        "invalid": _invalid_message(field),
        "max_length": "The {attr} may not be greater than {{max_length}} characters.",
        "min_length": "The {attr} must be at least {{min_length}} characters.",
        "max_value": "The {attr} may not be greater than {{max_value}}.",
        "min_value": "The {attr} must be at least {{min_value}}.",
        "max_string_length": "The {attr} is too large.",
        "max_digits": "The {attr} is too large.",
        "max_whole_digits": "The {attr} is too large.",
        "max_decimal_places": "The {attr} may have at most {{max_decimal_places}} decimal places.",
        "does_not_exist": "The selected {attr} is invalid.",
        "incorrect_type": "The selected {attr} is invalid.",
        "invalid_choice": "The selected {attr} is invalid.",
        "not_a_list": "The {attr} must be an array.",
        "not_a_dict": "The {attr} must be an object.",
        "date": "The {attr} is not a valid date.",
        "datetime": "The {attr} is not a valid date.",
        "overflow": "The {attr} is not a valid date.",
        "format": "The {attr} does not match the format YYYY-MM-DD.",
    }
    attr = attribute_name(field_name)
    return {key: text.format(attr=attr) for key, text in messages.items()}


VALIDATOR_MESSAGES = {
    django_validators.MaxLengthValidator: "The {attr} may not be greater than %(limit_value)s characters.",
    django_validators.MinLengthValidator: "The {attr} must be at least %(limit_value)s characters.",
    django_validators.MaxValueValidator: "The {attr} may not be greater than %(limit_value)s.",
    django_validators.MinValueValidator: "The {attr} must be at least %(limit_value)s.",
}


def _relabel_validators(field: drf_fields.Field, attr: str) -> None:
    """DRF bakes its English into length/value validators at field creation; swap in Laravel's texts."""
    for validator in field.validators:
        for kind, text in VALIDATOR_MESSAGES.items():
            if type(validator) is kind:
                validator.message = text.format(attr=attr)


class ApiSerializerMixin:
    """Rewrites every field's error messages into Laravel's texts ("The asset tag field is required.")."""

    #: Whether ``validate()`` also runs when fields failed (:meth:`to_internal_value`); off for rules whose verdict
    #: changes when a failed field is missing.
    rules_with_field_errors = True

    def get_fields(self) -> dict[str, drf_fields.Field]:
        fields = super().get_fields()
        for name, field in fields.items():
            if field.read_only:
                continue
            target = field.child_relation if isinstance(field, relations.ManyRelatedField) else field
            target.error_messages.update(laravel_messages(target, name))
            _relabel_validators(target, attribute_name(name))
            if target is not field:
                field.error_messages.update(laravel_messages(field, name))
        return fields

    def to_internal_value(self, data):
        """Every error of a write at once (issue 12): DRF runs ``validate()`` (the rules across fields: a password
        confirmation, a category of the wrong kind, a name taken) only when every field passed, so a client fixing
        one error met the next. On field errors, ``validate()`` also runs on the fields that did pass, and its errors
        for other fields are added (a field's own error stays first and alone)."""
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if not self.rules_with_field_errors or not isinstance(exc.detail, dict):
                raise
            errors = dict(exc.detail)
            passed = self._fields_that_passed(data, errors)
            try:
                self.validate(passed)
            except serializers.ValidationError as more:
                if isinstance(more.detail, dict):
                    for key, messages in more.detail.items():
                        errors.setdefault(key, messages)
            except (KeyError, TypeError, AttributeError, ValueError):
                pass  # a rule that needs a field that failed: its error is already reported
            raise serializers.ValidationError(errors) from exc

    def _fields_that_passed(self, data, errors: dict) -> dict[str, Any]:
        """The validated values of the fields without an error, as DRF's ``to_internal_value`` builds them."""
        attrs: dict[str, Any] = {}
        for field in self._writable_fields:
            if field.field_name in errors:
                continue
            try:
                value = field.run_validation(field.get_value(data))
                validate_method = getattr(self, f"validate_{field.field_name}", None)
                if validate_method is not None:
                    value = validate_method(value)
            except (serializers.ValidationError, drf_fields.SkipField, DjangoValidationError):
                continue
            self.set_value(attrs, field.source_attrs, value)
        return attrs


class ApiSerializer(ApiSerializerMixin, serializers.Serializer):
    pass


class ApiModelSerializer(ApiSerializerMixin, serializers.ModelSerializer):
    pass
