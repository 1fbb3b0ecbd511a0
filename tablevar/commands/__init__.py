"""The subcommands of ``tablevar``, one module each; ``tablevar.cli.COMMANDS`` lists them.

A command module exposes ``register(subparsers)``, which adds its parser and calls
``set_defaults(run=<function(args) -> int>)``. ``run`` returns the exit status; it raises
``ValueError`` or ``OSError`` for a user's mistake and ``tablevar.cli.main`` prints it.
"""
