"""Independent oracles for what a memory must hold and report.

``wfm`` is the primary oracle (plain Python, alternating fixpoint, any program); ``report``
says every field of a revision's report from the contract and two models; both import
nothing from the engine. ``program`` reads a memory's recorded justifications (data only)
and solves them with ``wfm``: the oracle for memories whose rule packs, candidates or judge
add justifications the mirror cannot foresee.
"""
