"""One object per compiler stage: how each dialect is parsed, normalized, lexed, and where its loops are."""
