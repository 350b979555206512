"""Tests of :mod:`stategraph.testing` itself: its ready properties hold on the real engine,
for a plain memory and a user's own configuration, and fail on deliberately wrong ones."""
