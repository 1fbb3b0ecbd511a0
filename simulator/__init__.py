"""The simulator: renders a table of any game with exact ground truth, through the same camera
and pitch models the product measures with, and serves its clips as a frame source."""
