"""Reverie: a private, local AI companion for the desktop."""

__version__ = "0.1.0"
