"""Duplicate matches: deal sets, rooms, scoring, IMPs, statistics, reports, journals."""
