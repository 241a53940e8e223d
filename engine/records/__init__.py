"""What players write down: Position, Match and XG IDs, FIBS boards, the .mat and .sgf match
files, and SVG pictures of a position."""
