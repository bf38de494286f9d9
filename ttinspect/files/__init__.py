"""Reading and writing the user's files safely: never blocking on a FIFO, never following a link into a write,
never leaving a half-written file. Below everything but errors: the caches, the engine and the CLI use it."""
