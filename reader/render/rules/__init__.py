"""The lowering-rules page: every primitive by every backend's table."""
