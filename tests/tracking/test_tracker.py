"""The combined tracker: ball candidates standing on a figure's base are that figure."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.tables import load_pitch
from tracking.tracker import Tracker
from vision.detections import Detections

PITCH = load_pitch("fistf")
FPS = 60.0
BASES = np.array([[-579.0, 0.0], [200.0, 100.0]])


@pytest.mark.parametrize(
    ("ball_xy", "found"),
    [
        ((-579.0, 0.5), False),  # a goalkeeper of the ball's colour: not the ball
        ((200.0 + 22.5, 100.0), True),  # the ball touching a base
        ((0.0, 0.0), True),
    ],
)
def test_ball_candidates_on_bases_are_not_the_ball(ball_xy, found):
    tracker = Tracker(pitch=PITCH)
    for i in range(10):
        det = Detections.build(
            ball_xy_mm=[ball_xy], ball_score=[1.0], base_xy_mm=BASES, base_team=[0, 1]
        )
        tracks = tracker.update(det, i / FPS)
    assert len(tracks.figures) == 2
    assert (tracks.ball.xy_mm is not None) == found


@pytest.mark.parametrize("fit_sigma_mm", [0.1, 0.6])
def test_a_still_ball_is_as_sure_from_its_first_frame_as_its_fit_says(fit_sigma_mm):
    """A ball standing from the clip's start is taken up from the candidates' watch; its fit,
    repeated while the view does not change, is one measurement whose uncertainty the
    detector states: the rest is no surer than that from the first frame on (a doubtful fit,
    a ball on the centre spot under a low light, is not given the configured 0.3 mm)."""
    tracker = Tracker(pitch=PITCH)
    sigmas = []
    for i in range(10):
        det = Detections.build(
            ball_xy_mm=[[0.0, 0.0]], ball_score=[1.0], ball_sigma_mm=[fit_sigma_mm]
        )
        tracks = tracker.update(det, i / FPS)
        if tracks.ball.xy_mm is not None:
            sigmas.append(tracks.ball.sigma_mm)
    floor = tracker.ball.config.rest_floor_mm
    assert sigmas and min(sigmas) == pytest.approx(max(fit_sigma_mm, floor))


def _confirmed_then_gone(gap_s: float, far_xy=(-300.0, 200.0)):
    """A ball stands, rolls 100 mm (which settles it), rests, then is not seen for
    ``gap_s``; from then on a ball-like candidate stands at ``far_xy`` and the ball's place
    shows the bare cloth. Returns the tracker and the tracks of the last frame."""
    tracker = Tracker(pitch=PITCH)
    path = [(0.0, 0.0)] * 10 + [(5.0 * k, 0.0) for k in range(1, 21)] + [(100.0, 0.0)] * 10
    t = 0.0
    for xy in path:
        tracks = tracker.update(Detections.build(ball_xy_mm=[xy], ball_score=[1.0]), t)
        t += 1 / FPS
    assert tracker.ball_confirmed
    t += gap_s
    for _ in range(10):
        det = Detections.build(ball_xy_mm=[far_xy], ball_score=[1.0], ball_vacated=True)
        tracks = tracker.update(det, t)
        t += 1 / FPS
    return tracker, tracks


def test_a_settled_ball_found_again_where_it_could_not_have_got_to_is_in_doubt_again():
    """DESIGN.md section 4, a clip may start anywhere: motion settles which candidate is the
    ball. The settled ball vanishes and, a few frames later, a ball-like candidate stands
    half a metre away, farther than any flick carries a ball in that time: it is another
    object, or the ball's identity is not known. The track may follow it, but its doubt is
    how far it stands from where the ball was last seen, until motion settles it again."""
    tracker, tracks = _confirmed_then_gone(0.0)
    assert not tracker.ball_confirmed
    assert tracks.ball.xy_mm is not None
    gone_mm = float(np.hypot(*(tracks.ball.xy_mm - (100.0, 0.0))))
    assert gone_mm > 400.0
    assert tracks.ball_doubt_mm == pytest.approx(gone_mm, abs=1.0)


def test_a_ball_put_down_elsewhere_after_a_while_stays_the_ball():
    """Lifted and put down half a metre away two seconds later (a restart), it is the same
    ball: no doubt."""
    tracker, tracks = _confirmed_then_gone(2.0)
    assert tracker.ball_confirmed
    assert tracks.ball_doubt_mm == 0.0
    assert np.hypot(*(tracks.ball.xy_mm - (-300.0, 200.0))) < 1.0


@pytest.mark.parametrize(("base_off_mm", "born"), [(9.0, False), (23.5, True)])
def test_a_base_found_on_the_settled_ball_at_rest_is_the_ball(base_off_mm, born):
    """A ball of a kit's colour, settled and at rest, that a lossy codec had held 8 mm short
    of where it stopped: the next key frame redraws it at its place, where its window fit
    fails and the whole-cloth pass takes it for a base. No figure stands within a base radius
    of the ball, so that base is the ball: no figure is born there to hide it, and the ball
    found there is followed. A base touching the ball (a figure come to strike it) is a
    figure."""
    tracker = Tracker(pitch=PITCH)
    stale, truth = np.array([100.0, 0.0]), np.array([100.0, 8.0])
    t = 0.0
    path = [(0.0, 0.0)] * 10 + [(5.0 * k, 0.0) for k in range(1, 21)] + [tuple(stale)] * 30
    for xy in path:
        tracks = tracker.update(Detections.build(ball_xy_mm=[xy], ball_score=[1.0]), t)
        t += 1 / FPS
    assert tracker.ball_confirmed and not tracks.ball.moving
    base = stale + np.array([0.0, base_off_mm])
    for k in range(60):
        balls = [] if k < 10 else [truth]  # the window fit fails for a while
        det = Detections.build(
            ball_xy_mm=np.reshape(balls, (-1, 2)),
            ball_score=np.ones(len(balls)),
            base_xy_mm=[base],
            base_team=[0],
        )
        tracks = tracker.update(det, t)
        t += 1 / FPS
    assert (len(tracks.figures) == 1) == born
    if not born:
        assert np.hypot(*(tracks.ball.xy_mm - truth)) < 0.5


@pytest.mark.parametrize(
    ("base_xy", "tracked_before", "born"),
    [
        ((182.0, 0.0), False, False),  # where it stopped: the ball, read as a base
        ((182.0, 30.0), False, True),  # a figure beside its way, born there
        ((182.0, 0.0), True, True),  # a figure tracked there before, come onto its way
    ],
)
def test_a_base_found_on_the_way_of_a_ball_rolling_unseen_is_the_ball(
    base_xy, tracked_before, born
):
    """A settled ball of a kit's colour rolls on unseen (its colours blurred into the kit's)
    and stops at (182, 0) mm; there the whole-cloth pass takes it for a base, its window fit
    failing, and a weak ball candidate shows there too. No figure stands or is born on the
    ball's way: that base is the ball, no figure's track is born to hide it, and the ball's
    track takes up the candidate. A base off its way is a figure, and so is one that
    continues a figure's track (a figure come there)."""
    tracker = Tracker(pitch=PITCH)
    t = 0.0
    path = [(0.0, 0.0)] * 10 + [(6.0 * k, 0.0) for k in range(1, 21)]
    figure = np.reshape(base_xy if tracked_before else (), (-1, 2))
    for xy in path:
        det = Detections.build(
            ball_xy_mm=[xy],
            ball_score=[1.0],
            base_xy_mm=figure,
            base_team=np.zeros(len(figure), int),
        )
        tracker.update(det, t)
        t += 1 / FPS
    assert tracker.ball_confirmed
    for k in range(60):
        # Unseen as it slows to a stop, its track predicted on past it; then read as a base.
        balls = [] if k < 13 else [(182.0, 0.0)]
        det = Detections.build(
            ball_xy_mm=np.reshape(balls, (-1, 2)),
            ball_score=np.full(len(balls), 0.25),  # too weak to start a track alone
            base_xy_mm=[base_xy] if k >= 11 else figure,
            base_team=[0] if k >= 11 else np.zeros(len(figure), int),
        )
        tracks = tracker.update(det, t)
        t += 1 / FPS
    assert (len(tracks.figures) == 1) == born
    if not born:
        assert tracks.ball.xy_mm is not None
        assert np.hypot(*(tracks.ball.xy_mm - (182.0, 0.0))) < 0.5


@pytest.mark.parametrize(("stop_mm", "born"), [(230.0, False), (600.0, True)])
def test_a_base_where_a_ball_lost_rolling_could_have_stopped_is_the_ball(stop_mm, born):
    """A settled ball rolling at 360 mm/s is lost unseen (its colours blurred into a kit's):
    its track, predicted on for a while, is dropped some 100 mm on. It rolled farther and
    stopped ``stop_mm`` from its last sighting, read as a base there, a ball candidate
    showing too. Unseen, it may be anywhere ahead as far as its pace carries it: no figure
    is born there, and the ball is found at its stop. Farther than its pace could carry it,
    a base is a figure."""
    tracker = Tracker(pitch=PITCH)
    t = 0.0
    path = [(-300.0, 0.0)] * 10 + [(6.0 * k - 300.0, 0.0) for k in range(1, 21)]
    for xy in path:
        tracker.update(Detections.build(ball_xy_mm=[xy], ball_score=[1.0]), t)
        t += 1 / FPS
    assert tracker.ball_confirmed
    stop = np.array([path[-1][0] + stop_mm, 0.0])
    for k in range(90):
        seen = k >= 40  # long after its track was lost
        det = Detections.build(
            ball_xy_mm=np.reshape([stop] if seen else [], (-1, 2)),
            ball_score=[0.8] if seen else [],
            base_xy_mm=[stop] if seen else np.zeros((0, 2)),
            base_team=[0] if seen else np.zeros(0, int),
        )
        tracks = tracker.update(det, t)
        t += 1 / FPS
    assert (len(tracks.figures) == 1) == born
    if not born:
        assert tracks.ball.xy_mm is not None
        assert np.hypot(*(tracks.ball.xy_mm - stop)) < 0.5


@pytest.mark.parametrize(
    ("base_from_frame", "base_off_mm", "figure_there"),
    [
        (25, 1.0, False),  # the ball, alone for 0.4 s, then read as a base too
        (25, 23.0, True),  # a figure come to stand touching it
        (25, 9.0, True),  # ... read 14 mm closer (a coarse view): not centred on it
        (0, 1.0, True),  # a figure there from the start: the candidate is its part
    ],
)
def test_a_base_found_on_the_chosen_ball_standing_alone_is_the_ball(
    base_from_frame, base_off_mm, figure_there
):
    """A clip picked up in play: the ball lies still, chosen but not yet settled by motion.
    An orange ball beside a yellow kit whose colours a codec drew together is read as a base
    too after a while: no figure came to stand on it, so that base, centred on it, is the
    ball, and the ball stays tracked (before, the figure born there hid it, and the flick that
    followed went unseen). A base that touches it is a figure, also one read closer than a
    base radius but not centred on it; one there from the start may be the figure the
    candidate is a part of (a white shirt on a blue base), and stays."""
    tracker = Tracker(pitch=PITCH)
    ball = np.array([385.0, -108.0])
    base = ball + np.array([0.0, base_off_mm])
    for k in range(60):
        bases = [base] if k >= base_from_frame else []
        det = Detections.build(
            ball_xy_mm=[ball],
            ball_score=[1.0],
            base_xy_mm=np.reshape(bases, (-1, 2)),
            base_team=[0] * len(bases),
        )
        tracks = tracker.update(det, k / FPS)
    assert not tracker.ball_confirmed
    assert (len(tracks.figures) == 1) == figure_there
    if not figure_there:
        assert tracks.ball.measured and np.hypot(*(tracks.ball.xy_mm - ball)) < 0.5


@pytest.mark.parametrize("settled", [True, False])
def test_a_ghost_figure_of_the_ball_does_not_hide_it_at_rest(settled):
    """A ball of a kit's colour slows down where its track lost it, and for a few frames the
    detector reads it as a base: a figure track is born on it. Then the ball is found there
    at rest, every frame, and no base is: the track kept from memory is no figure that
    stands there now, and the ball is followed (before, the ghost hid it for the two seconds
    a hidden figure is kept). So whether motion has settled the ball (it stood, then rolled
    100 mm) or not yet (a clip picked up in a roll of 50 mm: before, every figure track hid
    candidates until the ball was settled, and this one never was)."""
    tracker = Tracker(pitch=PITCH)
    t = 0.0
    if settled:
        path = [(0.0, 0.0)] * 10 + [(5.0 * k, 0.0) for k in range(1, 21)]
    else:
        path = [(5.0 * k, 0.0) for k in range(11)]
    for xy in path:
        tracks = tracker.update(Detections.build(ball_xy_mm=[xy], ball_score=[1.0]), t)
        t += 1 / FPS
    assert tracker.ball_confirmed == settled and tracks.ball.moving
    # Off its predicted way (curling as it slows): on it, no figure would be born there.
    stop = np.array([path[-1][0] + 30.0, 16.0])
    for _ in range(8):  # the ball read as a base
        det = Detections.build(ball_xy_mm=np.zeros((0, 2)), base_xy_mm=[stop], base_team=[1])
        tracks = tracker.update(det, t)
        t += 1 / FPS
    assert len(tracks.figures) == 1
    for _ in range(30):  # the ball, at rest, and no base
        det = Detections.build(ball_xy_mm=[stop], ball_score=[1.0])
        tracks = tracker.update(det, t)
        t += 1 / FPS
    assert tracks.ball.xy_mm is not None and not tracks.ball.moving
    assert np.hypot(*(tracks.ball.xy_mm - stop)) < 0.5


def test_a_figure_from_the_start_whose_base_goes_unfound_still_hides_a_candidate_on_it():
    """A figure of the ball's colour stood there when the clip began; from then on the
    detector takes its base for a ball (a candidate centred on it) and finds no base there.
    Until motion settles the ball, that figure still counts: the candidate on it is no ball
    (a track born later, unfound as long, is a ghost of the ball; see above)."""
    tracker = Tracker(pitch=PITCH)
    figure = np.array([250.0, -120.0])
    t = 0.0
    for _ in range(5):  # the first searches find the figure's base
        tracks = tracker.update(Detections.build(base_xy_mm=[figure], base_team=[0]), t)
        t += 1 / FPS
    for _ in range(60):  # then only a candidate on it
        tracks = tracker.update(Detections.build(ball_xy_mm=[figure], ball_score=[1.0]), t)
        t += 1 / FPS
    assert not tracker.ball_confirmed
    assert tracks.ball.xy_mm is None


@pytest.mark.parametrize("from_start", [True, False])
def test_a_figure_read_as_a_ball_whose_track_went_elsewhere_is_no_ball_when_flicked(from_start):
    """As above, but the figure's track, its base unfound, is handed a base found 100 mm off
    (another figure, first found a moment later) and leaves the place. The candidate on the
    place is still that figure read as a ball: flicked 80 mm from there, it settles nothing.
    Where no figure stood when the clip began, a candidate standing there and struck as far
    is the ball."""
    tracker = Tracker(pitch=PITCH)
    figure, other = np.array([250.0, -120.0]), np.array([250.0, -20.0])
    t = 0.0
    for _ in range(5):  # the first searches find the figure's base, or nothing
        det = Detections.build(
            base_xy_mm=[figure] if from_start else [], base_team=[0][:from_start]
        )
        tracker.update(det, t)
        t += 1 / FPS
    for k in range(90):  # then a candidate on it, no base there; another base elsewhere
        place = figure + np.array([max(k - 60, 0) * 20.0, 0.0])  # flicked at frame 60
        det = Detections.build(
            ball_xy_mm=[place],
            ball_score=[1.0],
            base_xy_mm=[other] if k >= 20 else [],
            base_team=[0] if k >= 20 else [],
        )
        tracker.update(det, t)
        t += 1 / FPS
    assert tracker.ball_confirmed != from_start


def test_a_rolling_candidate_chosen_is_tracked_rolling_from_that_frame():
    """DESIGN.md section 4, a clip may start anywhere: a clip picked up in a roll shows a
    still candidate that ranks better (a keeper of the ball's colour) and the ball rolling.
    On the update its roll settles the choice the ball's track takes it up rolling, at its
    speed, its roll written back over its sightings: lost until sighted afresh, the
    track's window stayed where the roll settled it, and a small ball rolling two pixels a
    frame was gone from it (never found again on a clip at 1280x720)."""
    tracker = Tracker(pitch=PITCH)
    v = np.array([0.0, 400.0])
    for i in range(60):
        rolling = np.array([100.0, -200.0]) + v * i / 90.0
        det = Detections.build(
            ball_xy_mm=[[-300.0, 150.0], rolling], ball_score=[1.0, 0.7], ball_sigma_mm=[0.3, 0.5]
        )
        ball = tracker.update(det, i / 90.0).ball
        chosen = tracker.hypotheses.chosen_xy_mm
        if chosen is not None and np.hypot(*(chosen - rolling)) < 1.0:
            break
    assert ball.measured and ball.moving, i
    assert np.hypot(*(ball.xy_mm - rolling)) < 1.0
    assert np.hypot(*(ball.v_mm_s - v)) < 40.0
    rolled = ball.rolled_mm
    assert rolled is not None and rolled[-1, 0] == i and rolled[0, 0] <= i - 5
    assert ball.state_since_frame == rolled[0, 0]
    truth = np.array([100.0, -200.0]) + v * rolled[:, :1] / 90.0
    assert np.hypot(*(rolled[:, 1:3] - truth).T).max() < 0.1


@pytest.mark.parametrize(("beside_mm", "born"), [(0.0, False), (30.0, True)])
def test_a_base_found_where_the_settled_ball_rolls_is_the_ball(beside_mm, born):
    """A settled ball of a kit's colour rolls on, read as a base by every other frame's
    search of the whole cloth (its window fit failing there), and stops. No figure stands
    within a base radius of where a ball is rolling: that base is the ball, no figure's track
    is born to hide it, and the ball is followed all the way to its stop. A base 30 mm beside
    its way, seen on every frame, is a figure standing there."""
    tracker = Tracker(pitch=PITCH)
    t = 0.0
    for xy in [(0.0, 0.0)] * 10 + [(5.0 * k, 0.0) for k in range(1, 21)]:
        tracker.update(Detections.build(ball_xy_mm=[xy], ball_score=[1.0]), t)
        t += 1 / FPS
    assert tracker.ball_confirmed
    stop = np.array([200.0, 0.0])
    followed, figures = [], []
    for k in range(60):
        ball = np.array([min(100.0 + 5.0 * (k + 1), stop[0]), 0.0])
        as_base = k % 2 == 1 and k < 30
        base = (ball if beside_mm == 0.0 else stop) + np.array([0.0, beside_mm])
        bases = [base] if as_base or beside_mm else np.zeros((0, 2))
        det = Detections.build(
            ball_xy_mm=np.zeros((0, 2)) if as_base else [ball],
            ball_score=[] if as_base else [1.0],
            base_xy_mm=bases,
            base_team=np.zeros(len(bases), int),
            bases_searched=k % 2 == 1,
        )
        tracks = tracker.update(det, t)
        t += 1 / FPS
        followed.append(tracks.ball.xy_mm is not None and np.hypot(*(tracks.ball.xy_mm - ball)) < 3)
        figures.append(len(tracks.figures))
    assert all(followed)
    assert max(figures) == born
    assert tracker.ball_confirmed and not tracks.ball.moving
    assert np.hypot(*(tracks.ball.xy_mm - stop)) < 0.5
