"""The store's errors: one named error for each way a database or a record can be unusable."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used for what was asked; the message says why (never a password)."""


class BadURL(StoreError):
    """The ``store:`` URL is not a database URL this program can use."""


class Unreachable(StoreError):
    """The database server cannot be reached, or refused the connection."""


class CorruptDatabase(StoreError):
    """The file is not a database, or a damaged one."""


class ReadOnlyDatabase(StoreError):
    """The database (or its folder) cannot be written."""


class NewerSchema(StoreError):
    """The database was made by a newer fibsbot: its schema is ahead of this program's migrations."""


class NotInitialised(StoreError):
    """The database holds other tables, or none of fibsbot's version marks."""


class RecordImportError(StoreError):
    """A record cannot be parsed for import; nothing of it was written."""
