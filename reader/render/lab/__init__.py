"""The lab pages: what a lab teaches, the pinned code it exercises, its artifacts."""
