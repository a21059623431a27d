"""Practice: what a session asks (`Plan`, `Practice`), the running session, and the saved progress."""

from perfdrill.engine.practice.plan import Plan, Practice
from perfdrill.engine.practice.progress import (
    Attempt,
    FamilyStats,
    ProgressStore,
    SessionSummary,
    StoredSession,
    summarize,
)
from perfdrill.engine.practice.session import SessionState

__all__ = [
    "Attempt",
    "FamilyStats",
    "Plan",
    "Practice",
    "ProgressStore",
    "SessionState",
    "SessionSummary",
    "StoredSession",
    "summarize",
]
