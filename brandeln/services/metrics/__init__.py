"""The services' Prometheus metrics and their endpoint."""
