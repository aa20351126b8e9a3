"""Reverie's Qt user interface: tray, windows, widgets and thread workers."""
