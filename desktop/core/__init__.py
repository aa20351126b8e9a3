"""The Qt-free domain core of Reverie: database, settings, chat logic, memory."""
