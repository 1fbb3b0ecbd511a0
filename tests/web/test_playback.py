"""The browser's copy of a recording: played as it is when browsers can, else a proxy made once
that keeps every frame at its own time."""

from __future__ import annotations

from pathlib import Path

import pytest

from web.playback import PROXY_NAME, PlaybackError, browser_video, probe


def test_a_video_browsers_cannot_play_gets_a_proxy_with_the_same_frame_times(
    analysis_template: Path, tmp_path: Path, sample
):
    video = tmp_path / "video.mp4"
    video.write_bytes((analysis_template / "video.mp4").read_bytes())
    original = probe(video)
    assert original.codec == "mpeg4" and not original.playable
    assert len(original.frame_times_s) == sample.FRAMES
    assert original.frame_times_s[1] == pytest.approx(1 / sample.FPS)

    served = browser_video(video)
    assert served.name == PROXY_NAME
    proxy = probe(served)
    assert proxy.playable and proxy.codec == "h264"
    assert proxy.frame_times_s == pytest.approx(original.frame_times_s, abs=1e-6)

    made = served.stat().st_mtime_ns
    assert browser_video(video) == served and served.stat().st_mtime_ns == made  # made once


def test_a_playable_video_is_served_as_it_is_and_a_broken_one_is_refused(tmp_path: Path):
    broken = tmp_path / "video.mp4"
    broken.write_bytes(b"not a video at all")
    with pytest.raises(PlaybackError, match="cannot read video"):
        probe(broken)
    with pytest.raises(PlaybackError):
        browser_video(broken)
    assert not (tmp_path / PROXY_NAME).exists()
