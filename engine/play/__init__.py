"""Playing games: the game loop and its players, duels with duplicate dice, luck, rollouts
(in shards, resumable) and chouettes."""
