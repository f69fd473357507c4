"""Exit statuses shared by every ``quiz`` command (as linters such as ruff use them)."""

EXIT_OK = 0
"""Success: nothing to report, or only warnings."""
EXIT_ERRORS = 1
"""The command ran and found errors (a bank that does not load, a file that cannot be written)."""
EXIT_USAGE = 2
"""A usage error: bad flags or arguments (argparse's own status)."""
