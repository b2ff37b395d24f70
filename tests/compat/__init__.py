"""Compatibility with real Snipe-IT API clients (sync scripts), replayed through the API."""
