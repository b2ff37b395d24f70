"""Receivers of inventory's domain signals (filled in by the notifications issue)."""
