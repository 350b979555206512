"""Independent oracles for the well-founded model of a support graph.

``wfm`` is the primary oracle (plain Python, alternating fixpoint, any program);
``datalog`` is the second opinion on positive programs, computed by pyDatalog.
Neither imports anything from ``stategraph``.
"""
