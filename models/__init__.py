"""Reverie's local model layer: llama.cpp chat and embeddings, the embedded
default models, model conversion and the inference broker.

Qt-free, and it never imports the application (``desktop``).
"""
