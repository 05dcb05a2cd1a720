"""The hot modules that setup.py compiles with mypyc, and which of a
compiled module and its source a package imports."""
