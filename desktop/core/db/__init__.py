"""Reverie's database: the one SQLite file, its schema and the stores over it.

``open_database`` opens and migrates the file; each store owns the SQL of its
tables.  sqlite3, sqlean and sqlite_vec are imported only inside this package.
"""

from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import (
    Database,
    ExecResult,
    Row,
    Transaction,
    integrity_check,
    quick_check,
)
from desktop.core.db.conversations import (
    Conversation,
    ConversationStore,
    HarvestBacklog,
    ImportedMessage,
    Message,
    MessageRole,
)
from desktop.core.db.dreams import (
    ChangeStatus,
    DreamChange,
    DreamLogEntry,
    DreamRun,
    DreamStore,
    LogOutcome,
    RunStatus,
)
from desktop.core.db.drivers import DEFAULT_CANDIDATES, Driver, DriverCandidate, select_driver
from desktop.core.db.errors import (
    ChangedMeanwhile,
    Damaged,
    DamagedHeader,
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnavailable,
    DiskFull,
    EditConflict,
    MigrationFailed,
    QueryFailed,
    RowNotFound,
    UnusableVector,
    is_damage,
)
from desktop.core.db.free_pages import only_the_free_list
from desktop.core.db.memories import MAX_K, MemoryStore
from desktop.core.db.memory_rows import (
    HistoryOperation,
    Memory,
    MemoryHistoryEntry,
    MemoryHit,
    MemoryQuery,
    MemorySort,
    MemorySources,
    MemoryStatus,
    NewMemory,
    SourceKind,
    content_hash,
)
from desktop.core.db.migrations import MIGRATIONS, Migration, latest_version, migrate
from desktop.core.db.opening import open_as_it_is, open_copy, open_database
from desktop.core.db.writable import SQLITE_HEADER

__all__ = [
    "DEFAULT_CANDIDATES",
    "MAX_K",
    "MIGRATIONS",
    "SQLITE_HEADER",
    "ChangeStatus",
    "ChangedMeanwhile",
    "Clock",
    "Conversation",
    "ConversationStore",
    "Damaged",
    "DamagedHeader",
    "Database",
    "DatabaseBusy",
    "DatabaseTooNew",
    "DatabaseUnavailable",
    "DiskFull",
    "DreamChange",
    "DreamLogEntry",
    "DreamRun",
    "DreamStore",
    "Driver",
    "DriverCandidate",
    "EditConflict",
    "ExecResult",
    "HarvestBacklog",
    "HistoryOperation",
    "ImportedMessage",
    "LogOutcome",
    "Memory",
    "MemoryHistoryEntry",
    "MemoryHit",
    "MemoryQuery",
    "MemorySort",
    "MemorySources",
    "MemoryStatus",
    "MemoryStore",
    "Message",
    "MessageRole",
    "Migration",
    "MigrationFailed",
    "NewMemory",
    "QueryFailed",
    "Row",
    "RowNotFound",
    "RunStatus",
    "SourceKind",
    "Transaction",
    "UnusableVector",
    "content_hash",
    "integrity_check",
    "is_damage",
    "latest_version",
    "migrate",
    "only_the_free_list",
    "open_as_it_is",
    "open_copy",
    "open_database",
    "quick_check",
    "select_driver",
    "system_clock",
]
