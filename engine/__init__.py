"""gammon's rules core: boards, move generation, formats and games (numpy only)."""
