"""Dreaming: background consolidation of what Reverie remembers.

Plain, Qt-free work: ``Dreamer.run`` takes a ``DreamControl`` that says
when to stop and lets it wait for the user; passes plan changes (asking the
model where judgement is needed) and the dreamer applies each pass's
changes in one transaction, after a snapshot, behind a circuit breaker,
recording every change so it can be reviewed and undone.
"""
