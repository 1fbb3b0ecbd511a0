"""The hot loop's hand-over to the rules: each final tracked frame with its ball's extras."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from calibration.tables import load_pitch
from hardware.recording import read_meta
from hardware.sources import VideoFileSource
from rules.observation import Figures
from tablevar.pipeline import Pipeline, PipelineConfig, _Pending
from tracking.contacts import Contact as TrackContact
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


def _held(frame: int, figures: Figures) -> _Pending:
    return _Pending(frame, frame / 30.0, (0.0, 0.0), frame > 60, figures)


def test_a_flick_by_a_figure_its_new_track_took_up_is_filed_with_that_figure(
    sim_recording_template,
):
    """A flicked figure runs out of its track and a new track takes it up a few frames on;
    when that new track is the striker, the frame the flick is filed on (the one after its
    onset) lists the striker, where it stands now: the rules read a touch by the figures of
    its frame (a kick-off taken so was lost, and the match waited for it to the clip's end)."""
    meta = read_meta(sim_recording_template)
    first = next(iter(VideoFileSource(sim_recording_template).frames()))
    model = learn_model([first.image_bgr], meta.camera, load_pitch("fistf"))
    pipeline = Pipeline(model, fps=meta.fps)
    old = Figures.build([2, 5], [0, 1], [False, False], [[-54.0, 21.0], [200.0, 0.0]], 12.0)
    gone = Figures.build([5], [1], [False], [[200.0, 0.0]], 12.0)
    new = Figures.build([5, 23], [1, 0], [False, False], [[200.0, 0.0], [-21.0, 8.0]], 12.0)
    pipeline._pending.extend([_held(60, old), _held(61, gone), _held(62, new)])
    flick = TrackContact("flick", 60, 2.0, 23, 0, np.zeros(2), -0.4)
    bump = TrackContact("collision", 62, 2.07, 5, 1, np.zeros(2), 0.5)
    pipeline._attach_contacts(SimpleNamespace(contacts=[flick, bump]))
    at_60, at_61, at_62 = pipeline._pending
    assert [c.figure_id for c in at_61.contacts] == [23] and not at_60.contacts
    assert at_61.contacts[0].kind == "flick" and at_61.contacts[0].onset_frame == 60
    row = at_61.figures.index_of(23)
    assert row is not None and at_61.figures.team[row] == 0
    assert at_61.figures.xy_mm[row].tolist() == [-21.0, 8.0]
    assert at_60.figures is old  # before the strike it was not there
    assert at_62.figures is new and [c.figure_id for c in at_62.contacts] == [5]
