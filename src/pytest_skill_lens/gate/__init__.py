"""From recorded outcomes to one verdict. Pure functions."""
