"""``/licenses`` (API-CONTRACT.md §10, reference §1.5, §4.12): the shared resource shape (``ResourceViewSet``: list,
read, create, update, delete, restore, select list, all scoped by company), the seats of a license and their
checkout and checkin by ``PATCH``/``PUT licenses/{id}/seats/{seat_id}``, and the licenses a user or an asset holds.

Every read goes through ``get_queryset()`` (company separation) and every list annotates the free seats as one
subquery, so a page runs a constant number of queries. Seats are reached through their license: a seat of another
company's license is "not found", as a missing one. The product key is shown, searched, filtered and sorted on only
for callers who may see keys (``licenses.keys``, ``.create`` or ``.edit``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from django.db.models import F, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.decorators import action
from rest_framework.response import Response

from assetsvc.api.viewsets import success, success_envelope
from inventory.api.base import created_by_sort
from inventory.api.checkout import StockViewSet
from inventory.api.licenses import filters
from inventory.api.licenses import serializers as s
from inventory.api.reports import HistoryMixin
from inventory.models import License, LicenseSeat
from inventory.services import licenses
from inventory.services.checkout import resolve_target

#: The seat input naming a target → its type.
TARGET_KEYS = {key: target_type for target_type, key in licenses.LICENSE.target_inputs.items()}
SEAT_RELATED = ("license", "assigned_user__location", "assigned_asset__location")
LICENSE_SORTS: dict[str, Any] = {
    key: key for key in ("id", "name", "purchase_cost", "expiration_date", "purchase_order", "order_number", "notes",
                         "purchase_date", "license_name", "license_email", "seats", "termination_date", "min_amt",
                         "created_at", "updated_at", "company_id", "maintained", "reassignable")
} | {"category": "category__name", "company": "company__name", "manufacturer": "manufacturer__name",
     "supplier": "supplier__name", "created_by": created_by_sort(), "free_seats_count": "free_seats",
     "remaining": "free_seats"}
#: Sorting by the product key orders rows by a secret: only for callers who may see keys.
KEY_SORTS = {"serial": "serial", "product_key": "serial"}
SEARCH_FIELDS = ("name", "notes", "order_number", "purchase_order", "category__name", "manufacturer__name",
                 "supplier__name", "company__name")


class LicenseViewSet(HistoryMixin, StockViewSet):
    """A stock kind whose units are seats: rule 7, ``deleted=true`` lists, restore, delete guard and who-holds-what
    come from :class:`StockViewSet`; the seat routes, the free-seat count and the product-key rule are the
    license's own."""

    history_item_type = licenses.LICENSE.item_type
    history_shows_keys = True  # the key to key holders only, as the activity report
    queryset = License.objects.all()
    kind = licenses.LICENSE
    checkout_kind = licenses.LICENSE
    serializer_class = s.LicenseSerializer
    held_serializer_class = s.HeldLicenseSerializer
    write_serializer_class = s.LicenseWriteSerializer
    filterset_class = filters.LicenseFilterSet
    permission_section = "licenses"
    not_found_message = licenses.NOT_FOUND
    restore_not_found_message = licenses.NOT_FOUND
    flat_keys = ("category", "company", "manufacturer", "supplier")
    create_service = staticmethod(licenses.license_create)
    update_service = staticmethod(licenses.license_update)
    messages: ClassVar[dict[str, str]] = {
        "create": "License created successfully.", "update": "License updated successfully.",
        "delete": "The license was deleted successfully.", "restore": "License restored successfully.",
        "seat": "License updated successfully.",
    }
    action_permissions: ClassVar[dict[str, str | None]] = {
        **StockViewSet.action_permissions, "seats": "view", "seat": "view", "seat_update": "checkout",
    }

    @cached_property
    def abilities(self) -> dict[str, bool]:
        """The section's verbs, and ``keys``: the caller may read product keys."""
        return {**super().abilities, "keys": licenses.can_view_keys(self.request.user)}

    @property
    def search_fields(self) -> tuple[str, ...]:
        """Search never matches on a key the caller may not see."""
        return (*SEARCH_FIELDS, "serial") if self.abilities["keys"] else SEARCH_FIELDS

    @property
    def sort_fields(self) -> dict[str, Any]:
        return {**LICENSE_SORTS, **KEY_SORTS} if self.abilities["keys"] else LICENSE_SORTS

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return (queryset.select_related("category", "company", "manufacturer", "supplier")
                .annotate(units_out=self.kind.assigned_subquery(), free_seats=F("seats") - F("units_out")))

    # --- seats ----------------------------------------------------------------------------------------------------

    def seat_license(self) -> License:
        """The license of a seat route: unknown, deleted or another company's is reference §2.6's text."""
        try:
            return self.get_object()
        except exceptions.NotFound:
            raise self.not_found(licenses.LICENSE_NOT_FOUND) from None

    def seat_answer(self, seat: LicenseSeat) -> dict[str, Any]:
        return dict(s.LicenseSeatSerializer(seat, context=self.get_serializer_context()).data)

    @extend_schema(responses={200: s.LicenseSeatSerializer(many=True)})
    @action(detail=True, methods=["get"], filter_backends=[])
    def seats(self, request, pk=None):
        """``GET licenses/{id}/seats``: the license's seats in id order."""
        license_ = self.seat_license()
        rows = LicenseSeat.objects.filter(license=license_).select_related(*SEAT_RELATED).order_by("pk")
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(s.LicenseSeatSerializer(page, many=True,
                                                                   context=self.get_serializer_context()).data)

    @extend_schema(responses={200: s.LicenseSeatSerializer})
    @action(detail=True, methods=["get"], url_path=r"seats/(?P<seat_pk>[^/]+)", filter_backends=[])
    def seat(self, request, pk=None, seat_pk=None):
        """``GET licenses/{id}/seats/{seat_id}``: one seat, bare."""
        seat = licenses.visible_seat(self.seat_license(), seat_pk, request.user)
        return Response(self.seat_answer(LicenseSeat.objects.select_related(*SEAT_RELATED).get(pk=seat.pk)))

    @extend_schema(request=s.SeatUpdateSerializer, responses={200: success_envelope(s.LicenseSeatSerializer)})
    @seat.mapping.patch
    @seat.mapping.put
    def seat_update(self, request, pk=None, seat_pk=None):
        """Check the seat out to ``assigned_to`` (a user) or ``asset_id``, or in (both null); the payload is the
        seat as it is now."""
        license_ = self.seat_license()
        seat = licenses.visible_seat(license_, seat_pk, request.user)
        data = self.validated(s.SeatUpdateSerializer).validated_data
        named = [key for key in TARGET_KEYS if data.get(key) is not None]
        target = None
        if named:
            target_type, pk_value = TARGET_KEYS[named[0]], data[named[0]]
            target = resolve_target(target_type, pk_value, request.user)
            if target is None:
                raise self.target_not_usable(license_, target_type, pk_value)
        clears = frozenset(TARGET_KEYS[key] for key in TARGET_KEYS if key in data and data[key] is None)
        notes = data.get("notes")
        fresh = licenses.seat_update(license=license_, seat=seat, target=target, actor=request.user,
                                     clears=clears, note=notes if notes is not None else data.get("note") or "",
                                     notes=notes)
        return success(self.seat_answer(fresh), self.messages["seat"])

    # --- what a user or an asset holds ---------------------------------------------------------------------------

    def held_items_page(self, rows: QuerySet) -> Response:
        """A page of seats answered as license records (with the seat's id): the licenses are loaded in one query
        through :meth:`get_queryset`, so they carry the same counts, key rule and scoping."""
        page = self.paginate_queryset(rows.order_by("-updated_at", "-pk"))
        ids = {seat.license_id for seat in page}
        items = {item.pk: item for item in self.get_queryset().filter(pk__in=ids)} if ids else {}
        data = s.HeldLicenseSerializer(s.held_licenses(page, items), many=True,
                                       context=self.get_serializer_context()).data
        return self.get_paginated_response(data)

    @extend_schema(responses={200: s.HeldLicenseSerializer(many=True)})
    def user_items(self, request, user_pk: str):
        """``GET users/{id}/licenses``: one license record per seat the user holds (needs users.view)."""
        return super().user_items(request, user_pk)

    @extend_schema(responses={200: s.HeldLicenseSerializer(many=True)})
    def asset_items(self, request, asset_pk: str):
        """``GET hardware/{id}/licenses``: one license record per seat the asset holds (needs assets.view)."""
        return self.held_items_page(self.visible_rows().filter(assigned_asset_id=self.visible_asset(asset_pk)))
