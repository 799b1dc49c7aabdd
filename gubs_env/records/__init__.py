"""Game records and what is made from them.

Exact replay (:mod:`~gubs_env.records.record`), the log as text per
viewer (:mod:`~gubs_env.records.transcript`); ``python -m gubs_env.replay`` replays a record.
"""

from gubs_env.records.record import GameRecord, RecordError, replay

__all__ = ["GameRecord", "RecordError", "replay"]
