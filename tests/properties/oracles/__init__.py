"""The pyDatalog second opinion on positive programs (``datalog``), for the oracles' own tests.

The primary oracles are public, in :mod:`stategraph.testing.oracles`; this one needs pyDatalog,
a test dependency only.
"""
