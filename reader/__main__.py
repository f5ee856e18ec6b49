from reader.cli import entry

entry()
