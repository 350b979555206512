"""Property-based tests of cascade correctness against independent oracles (issue 3).

Layout: ``graphs`` is the test-side mirror of a memory (plain data, no engine code),
``oracles/`` computes the expected model, ``strategies`` generates support graphs and changes,
``adapter`` runs the same scenario against any engine, ``wrong_engines`` holds deliberately
broken engines the suite must catch.
"""
