"""A test-only kind handed out by quantity, so the generic ``QuantityKind`` of ``inventory.services.checkout`` is proven
before the real ones (accessories, consumables, components, license seats) are built on it."""
