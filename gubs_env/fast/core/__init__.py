"""The compiled game itself: one game as a row of ints, and the rules over it.

Where each fact sits in a row (:mod:`~gubs_env.fast.core.layout`), the tables generated from the reference
engine's (:mod:`~gubs_env.fast.core.tables`), numpy's PCG64 generator reproduced (:mod:`~gubs_env.fast.core.rng`),
the legal ids and transitions (:mod:`~gubs_env.fast.core.rules`), the observation (:mod:`~gubs_env.fast.core.observe`)
and how all of it is compiled (:mod:`~gubs_env.fast.core.jit`). The package above runs it over batches of games.
"""
