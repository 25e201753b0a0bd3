"""The built-in simulator: a digital twin of the table and simulated devices that act on it."""
