"""Practice: what a session asks (`Plan`, `Practice`), the running session, the saved progress,
the spaced-repetition schedule of templates (FSRS) and what the history says is mastered."""

from perfdrill.engine.practice.mastery import Accuracy, Cell, ProgressReport, Streak, progress_report
from perfdrill.engine.practice.plan import Plan, Practice, question_items, variant_reference
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.records import Attempt, FamilyStats, HistoryRow, StoredSession
from perfdrill.engine.practice.schedule import RATING_NAMES, ReviewQueue, review_queue
from perfdrill.engine.practice.session import MAX_TRIES, Outcome, SessionState, resume_point
from perfdrill.engine.practice.summary import SessionSummary, summarize

__all__ = [
    "MAX_TRIES",
    "RATING_NAMES",
    "Accuracy",
    "Attempt",
    "Cell",
    "FamilyStats",
    "HistoryRow",
    "Outcome",
    "Plan",
    "Practice",
    "ProgressReport",
    "ProgressStore",
    "ReviewQueue",
    "SessionState",
    "SessionSummary",
    "StoredSession",
    "Streak",
    "progress_report",
    "question_items",
    "resume_point",
    "review_queue",
    "summarize",
    "variant_reference",
]
