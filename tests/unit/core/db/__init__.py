"""The tests of desktop.core.db."""
