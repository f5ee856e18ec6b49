"""reader: the tool behind *Pallas, From the Inside*."""

__version__ = "0.1.0"
