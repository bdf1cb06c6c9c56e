"""Decisions: features, policy, search, card play, double-dummy helpers. No I/O."""
