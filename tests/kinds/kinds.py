from __future__ import annotations

from assetsvc.exceptions import InvalidInputError, NotFoundError
from inventory.services.checkout import QuantityKind
from tests.kinds.models import Widget, WidgetCheckout


class WidgetKind(QuantityKind):
    item_type = "widget"
    model = Widget
    assignment_model = WidgetCheckout
    item_field = "widget"

    def not_found(self) -> Exception:
        return NotFoundError("Widget not found.")

    def invalid_target(self, item, target_type, target_id, reason=None) -> Exception:
        return InvalidInputError(reason or f"Checkout target for widget {item.pk} is invalid - {target_type} does "
                                 f"not exist.", payload={"target_type": target_type, "target_id": target_id})


WIDGET = WidgetKind()
