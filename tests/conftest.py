"""Shared fixtures. Scripted peers live in tests/peers/ and in server/testing.py."""
