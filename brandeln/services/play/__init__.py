"""A person at a table: the seat session held for them, what it
hears, and the sample bots that fill the other seats."""
