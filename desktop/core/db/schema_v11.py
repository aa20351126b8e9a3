"""Migration 11: the user's message a worker was asked for in.

A worker's memory and task writes must rest on the user's own words, as the
chat model's do (``ToolContext.said``); a worker had none, so a ``scribe``
could write nothing.  ``asked_in`` is the user's message whose turn spawned
the worker (a sub-worker's is its parent's): its words are read when the
worker calls a tool, never copied, so an erased message takes its words
with it (``SET NULL``: the worker then rests on nothing and writes nothing).
Released: never edit this migration.
"""

from __future__ import annotations

SQL = """
ALTER TABLE workers ADD COLUMN asked_in INTEGER REFERENCES messages(id) ON DELETE SET NULL;
"""
