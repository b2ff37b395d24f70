"""Switching from Snipe-IT in one command (issue 31): reading a running Snipe-IT through its API v1 and writing it
here through our own services (docs/switching-from-snipe-it.md)."""
