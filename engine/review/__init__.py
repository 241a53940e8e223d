"""Looking back: replaying recorded matches through the rules, analysing every decision, and
the hint and cube answers the programs print."""
