"""Test doubles shipped with the package (the fake provider server)."""
