"""What every part uses, at the bottom of the diagram (docs/design.md, "Dependency direction").

The user's mistake and the text of a schema fault (:mod:`.errors`), writing a file whole or not at
all (:mod:`.files`), logging and the progress bar (:mod:`.logs`), and the statistics of a match
(:mod:`.stats`). It imports nothing of ours, so every part, ``laws`` included, may import it.
"""
