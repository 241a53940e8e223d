"""The doubling cube, cubeless probabilities in: its state, match equity tables, the money
cube (Janowski) and the match cube (take points, market windows, decisions)."""
