"""Property-based tests of cascade correctness against independent oracles (issue 3).

The machinery is public, in :mod:`stategraph.testing` (issue 15): the mirror of a memory
(``graphs``), the oracles (``oracles``), the strategies, the harness and the adapter to the
real engine. What only this suite needs stays here: ``wrong_engines`` holds deliberately
broken engines the suite must catch, and ``oracles/datalog`` the pyDatalog second opinion.
"""
