"""The pure core of tablevar: the pitch model in millimetres and the rules of each game.

Nothing here touches pixels, files or the wall clock; only the standard library and numpy.
"""
