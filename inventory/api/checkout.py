"""The API side of the one checkout shape: an input serializer carrying the target (and the quantity, for kinds
handed out by quantity) and a viewset mixin whose checkout and checkin call ``item_checkout`` / ``item_checkin`` of
the view's kind. Targets are resolved by ``inventory.services.checkout.resolve_target``, the one rule for every kind."""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import serializers

from assetsvc.api.fields import StrictIntegerField, TextField
from assetsvc.api.serializers import ApiSerializer
from inventory.choices import TargetType
from inventory.services.checkout import MAX_QUANTITY, CheckoutKind, Target, item_checkin, item_checkout, resolve_target

TARGET_KEYS = ("assigned_user", "assigned_asset", "assigned_location")
TARGET_TYPE_OF_KEY = {"assigned_user": TargetType.USER, "assigned_asset": TargetType.ASSET,
                      "assigned_location": TargetType.LOCATION}


def quantity_input(**kwargs: Any) -> StrictIntegerField:
    kwargs.setdefault("required", False)
    return StrictIntegerField(min_value=1, max_value=MAX_QUANTITY, **kwargs)


class CheckoutSerializer(ApiSerializer):
    """Checkout input: exactly one target (``assigned_user``, ``assigned_asset`` or ``assigned_location``, with an
    optional matching ``checkout_to_type``) and a note. A kind handed out by quantity names its quantity input in
    ``quantity_field`` and declares it with :func:`quantity_input` (1 by default, at most what a 32-bit column
    holds)."""

    #: The target rules ("required when none of ...") would misfire when a target or ``checkout_to_type`` failed its
    #: own check (the target is then missing from what passed), so they wait for the fields to pass.
    rules_with_field_errors = False
    #: Name of the quantity input (``checkout_qty``, ``assigned_qty``); None for kinds of quantity 1 (assets).
    quantity_field: ClassVar[str | None] = None
    #: Target keys this kind accepts, in the order Snipe-IT reports them.
    target_keys: ClassVar[tuple[str, ...]] = TARGET_KEYS

    checkout_to_type = serializers.ChoiceField(choices=[t.value for t in TargetType], required=False,
                                               allow_null=True)
    assigned_user = StrictIntegerField(required=False, allow_null=True)
    assigned_asset = StrictIntegerField(required=False, allow_null=True)
    assigned_location = StrictIntegerField(required=False, allow_null=True)
    note = TextField(max_length=65535)

    def get_fields(self):
        fields = super().get_fields()
        for key in TARGET_KEYS:
            if key not in self.target_keys:
                fields.pop(key, None)
        return fields

    def validate(self, attrs):
        keys = self.target_keys
        targets = [key for key in keys if attrs.get(key) is not None]
        if not targets:
            raise serializers.ValidationError({
                key: [f"The {key.replace('_', ' ')} field is required when none of "
                      f"{' / '.join(other.replace('_', ' ') for other in keys if other != key)} are present."]
                for key in keys
            })
        if len(targets) > 1:
            raise serializers.ValidationError(
                {targets[1]: [f"Only one of {', '.join(keys[:-1])} or {keys[-1]} may be given."]}
            )
        kind = attrs.get("checkout_to_type")
        if kind and TARGET_TYPE_OF_KEY[targets[0]] != kind:
            raise serializers.ValidationError(
                {"checkout_to_type": [f"The checkout to type does not match the target given ({targets[0]})."]}
            )
        return attrs

    def target_request(self) -> tuple[str, int]:
        for key in self.target_keys:
            if self.validated_data.get(key) is not None:
                return TARGET_TYPE_OF_KEY[key], self.validated_data[key]
        raise AssertionError("validated without a target")

    def quantity(self) -> int:
        return self.validated_data.get(self.quantity_field, 1) if self.quantity_field else 1


class CheckoutActionsMixin:
    """Checkout and checkin actions for a viewset of one kind. Declare ``checkout_kind``,
    ``checkout_serializer_class`` (a :class:`CheckoutSerializer`) and ``checkin_serializer_class``; override
    ``checkout_options`` / ``checkin_options`` to pass a kind's extra inputs to its service, and
    ``target_not_usable`` for a kind's own refusal when the target cannot be used."""

    checkout_kind: ClassVar[CheckoutKind]
    checkout_serializer_class: ClassVar[type[CheckoutSerializer]]
    checkin_serializer_class: ClassVar[type[serializers.Serializer]]

    def validated(self, serializer_class, data: dict | None = None, **context: Any):
        serializer = serializer_class(data=self.input if data is None else data,
                                      context={"request": self.request, **context})
        serializer.is_valid(raise_exception=True)
        return serializer

    def checkout_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {}

    def checkin_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {}

    def target_not_usable(self, item, target_type: str, target_id: int) -> Exception:
        return self.checkout_kind.invalid_target(item, target_type, target_id)

    def checkout_target(self, item, serializer: CheckoutSerializer) -> Target:
        target_type, pk = serializer.target_request()
        target = resolve_target(target_type, pk, self.request.user)
        if target is None:
            raise self.target_not_usable(item, target_type, pk)
        return target

    def perform_checkout(self, item):
        serializer = self.validated(self.checkout_serializer_class)
        data = serializer.validated_data
        target = self.checkout_target(item, serializer)
        return item_checkout(kind=self.checkout_kind, item=item, target=target, actor=self.request.user,
                             quantity=serializer.quantity(), note=data.get("note") or "",
                             **self.checkout_options(data))

    def perform_checkin(self, item, *, assignment: Any = None, quantity: int | None = None):
        data = self.validated(self.checkin_serializer_class).validated_data
        return item_checkin(kind=self.checkout_kind, item=item, actor=self.request.user, assignment=assignment,
                            quantity=quantity, note=data.get("note") or "", **self.checkin_options(data))
