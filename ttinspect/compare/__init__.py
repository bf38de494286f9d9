"""Two reports compared: typed changes, what each change means, and the lines that witness it."""
