"""One module per CLI command; each has `add_parser(subparsers)` and `run(args) -> int`."""

COMMANDS = ("fetch", "lock", "run", "check", "accept", "rules", "facts", "build", "serve", "pin", "diff")
