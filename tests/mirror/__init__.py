"""Issue state loaded from agents into the mirror."""
