"""k-means that gives the same clusters every call (``calibration/kmeans.py``)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.kmeans import kmeans


def test_kmeans_finds_separate_clusters():
    rng = np.random.default_rng(3)
    a = rng.normal((40.0, 200.0, 240.0), 4.0, (300, 3))
    b = rng.normal((30.0, 30.0, 160.0), 4.0, (100, 3))
    centres, labels = kmeans(np.concatenate([a, b]).astype(np.float32), 2)
    assert labels.shape == (400,)
    assert len(set(labels[:300])) == 1 and len(set(labels[300:])) == 1
    assert labels[0] != labels[300]
    assert np.allclose(np.sort(centres[:, 1]), [30.0, 200.0], atol=2.0)


def test_kmeans_does_not_depend_on_what_the_process_drew_before():
    """OpenCV's process-wide random generator moves on with every call that draws on it:
    the same points must split the same way, labels in the same order, whatever it holds."""
    rng = np.random.default_rng(4)
    points = rng.normal(0.0, 30.0, (500, 2)).astype(np.float32)  # no clear clusters
    runs = []
    for seed in (1, 7, 12345):
        cv2.setRNGSeed(seed)
        cv2.randu(np.zeros((10, 10), np.float32), 0.0, 1.0)
        runs.append(kmeans(points, 4, step=3))
    for centres, labels in runs[1:]:
        assert np.array_equal(labels, runs[0][1]) and np.array_equal(centres, runs[0][0])
