"""Where a service's log records go, and their formats."""
