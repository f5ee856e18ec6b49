"""Computed figures (`{{figure:NAME}}` in prose): the registry and each figure."""
