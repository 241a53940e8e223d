"""The rules of the six variants: the board layout, dice, legal moves, notation, outcomes."""
