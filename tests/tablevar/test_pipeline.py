"""The hot loop's hand-over to the rules: each final tracked frame with its ball's extras."""

from __future__ import annotations

from calibration.tables import load_pitch
from hardware.recording import read_meta
from hardware.sources import VideoFileSource
from tablevar.pipeline import Pipeline, PipelineConfig
from vision.model import learn_model


def test_the_rules_get_each_start_and_stop_of_the_ball_dated_within_its_frame(
    sim_recording_template,
):
    """DESIGN.md 6: the clock counts from the strike and to the stop, which the tracker dates
    between frames; each reaches the rules with the first record of the new state, as how
    long before that record it happened (within one frame interval), and no other record
    carries one."""
    meta = read_meta(sim_recording_template)
    frames = list(VideoFileSource(sim_recording_template).frames())
    model = learn_model([frames[0].image_bgr], meta.camera, load_pitch("fistf"))
    pipeline = Pipeline(model, fps=meta.fps, config=PipelineConfig(readout_s=meta.readout_s))
    seen = []
    for f in frames:
        seen += pipeline.process(f.image_bgr, f.t_ns / 1e9)
    seen += pipeline.finish()
    moving = [bool(r.ball and r.ball.moving) for r in seen]
    switches = [i for i in range(1, len(seen)) if moving[i] != moving[i - 1]]
    dated = [i for i, r in enumerate(seen) if r.ball_switch_before_s is not None]
    assert switches and set(dated) <= set(switches)
    assert len(dated) >= len(switches) - 1  # a roll stopped by a base may go undated
    for i in dated:
        interval = seen[i].t_s - seen[i - 1].t_s
        assert 0.0 <= seen[i].ball_switch_before_s <= interval + 1e-9
