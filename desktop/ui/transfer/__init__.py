"""The Import and export window."""
