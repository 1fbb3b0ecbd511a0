"""Figure tracker: stable ids through crossings, confirmation, dropping, goalkeepers."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.tables import load_pitch
from tracking.figures import FigureTracker
from vision.detections import Detections

FPS = 60.0


def frames(starts, velocities, teams, n, *, noise_mm=0.2, seed=0):
    """Bases moving at constant velocity: a list of ``(xy (k, 2), team (k,))`` per frame."""
    rng = np.random.default_rng(seed)
    starts, velocities = np.asarray(starts, float), np.asarray(velocities, float)
    out = []
    for i in range(n):
        xy = starts + velocities * i / FPS + rng.normal(0, noise_mm, starts.shape)
        order = rng.permutation(len(xy))  # detection order means nothing
        out.append((xy[order], np.asarray(teams)[order], order))
    return out


def run(seq, tracker=None):
    tracker = tracker or FigureTracker()
    result = []
    for i, (xy, team, _) in enumerate(seq):
        result.append(tracker.update(Detections.build(base_xy_mm=xy, base_team=team), i / FPS))
    return result


def ids_by_truth(tracks, truth_xy):
    """For each truth figure, the id of the nearest track."""
    d = np.linalg.norm(truth_xy[:, None] - tracks.xy_mm[None], axis=2)
    return tracks.id[np.argmin(d, axis=1)]


@pytest.mark.parametrize(
    ("teams", "speed_mm_s"),
    [((0, 1), 300.0), ((0, 0), 300.0), ((1, 1), 900.0)],
)
def test_ids_stay_stable_through_a_crossing(teams, speed_mm_s):
    starts = [[-100.0, 0.0], [100.0, 5.0]]
    vel = [[speed_mm_s, 0.0], [-speed_mm_s, 0.0]]
    n = int(FPS * 200 / speed_mm_s) + 20
    seq = frames(starts, vel, teams, n)
    tracks = run(seq)
    first = ids_by_truth(tracks[5], np.asarray(starts) + np.asarray(vel) * 5 / FPS)
    last = ids_by_truth(tracks[-1], np.asarray(starts) + np.asarray(vel) * (n - 1) / FPS)
    assert len(set(first)) == 2
    assert list(first) == list(last)
    assert len(tracks[-1]) == 2


@pytest.mark.parametrize("fps", [24.0, 60.0])
def test_a_flicked_base_keeps_its_id_from_its_first_step(fps):
    """A base at rest flicked at 700 mm/s: ~29 mm in its first frame at 24 fps, no ghost."""
    tracker = FigureTracker()
    still = Detections.build(base_xy_mm=[[0.0, 0.0], [0.0, 60.0]], base_team=[0, 0])
    for i in range(10):
        tracks = tracker.update(still, i / fps)
    flicked_id = int(tracks.id[np.argmin(np.abs(tracks.xy_mm[:, 1]))])
    for k in range(1, 6):
        x = 700.0 * k / fps
        det = Detections.build(base_xy_mm=[[x, 0.0], [0.0, 60.0]], base_team=[0, 0])
        tracks = tracker.update(det, (9 + k) / fps)
        assert len(tracks) == 2
        row = np.flatnonzero(tracks.id == flicked_id)
        assert len(row) == 1 and tracks.xy_mm[row[0], 0] == pytest.approx(x, abs=0.5)


def test_a_new_base_is_reported_only_after_confirmation():
    tracker = FigureTracker()
    first = Detections.build(base_xy_mm=[[0.0, 100.0]], base_team=[0])
    tracker.update(first, 0.0)
    det = Detections.build(base_xy_mm=[[0.0, 100.0], [0.0, 0.0]], base_team=[0, 1])
    counts = [len(tracker.update(det, i / FPS)) for i in range(1, 5)]
    assert counts == [1, 1, 2, 2]


def test_the_bases_of_the_first_search_are_reported_at_once():
    """They stood on the table before the clip began; one not seen again goes at once."""
    tracker = FigureTracker()
    det = Detections.build(base_xy_mm=[[0.0, 0.0], [80.0, 0.0]], base_team=[0, 1])
    assert len(tracker.update(det, 0.0)) == 2
    one = Detections.build(base_xy_mm=[[0.0, 0.0]], base_team=[0])
    tracks = tracker.update(one, 1 / FPS)
    assert tracks.xy_mm.tolist() == [[0.0, 0.0]]


def test_a_base_of_the_first_search_stands_from_the_start_until_it_moves():
    """Born on the first search and never moved, a figure has stood there since the clip
    began; one that rolls on from there (a ball of a kit's colour read as a base, in a clip
    picked up in play) no longer counts so, nor does one born later."""
    tracker = FigureTracker()
    first = Detections.build(base_xy_mm=[[0.0, 0.0], [80.0, 0.0]], base_team=[0, 1])
    tracks = tracker.update(first, 0.0)
    assert tracks.from_start.tolist() == [True, True]
    for k in range(1, 8):
        xy = [[0.0, 0.0], [80.0 + 400.0 * k / FPS, 0.0], [-90.0, 40.0]]
        det = Detections.build(base_xy_mm=xy, base_team=[0, 1, 0])
        tracks = tracker.update(det, k / FPS)
    by_x = dict(zip(tracks.xy_mm[:, 0].round().tolist(), tracks.from_start.tolist(), strict=True))
    assert by_x == {0.0: True, 127.0: False, -90.0: False}


@pytest.mark.parametrize("pattern", ["101", "110", "1001", "10101"])
def test_a_ghost_seen_now_and_then_is_never_a_figure(pattern):
    """A blob that comes and goes (a hand's knuckle, a misread shadow) is dropped at the first
    search that misses it before it is confirmed."""
    tracker = FigureTracker()
    figure = [[0.0, 0.0]]
    for i, seen in enumerate("0" + pattern * 3):  # (the first search shows the figure only)
        xy = figure + ([[150.0, 40.0]] if seen == "1" else [])
        det = Detections.build(base_xy_mm=xy, base_team=[0] * len(xy))
        tracks = tracker.update(det, i / FPS)
        assert len(tracks) == 1


def test_a_figure_moved_between_whole_searches_leaves_no_ghost():
    """Outside the watched part of the table a base is seen where it stood until the next
    whole-table search finds it ~60 mm on: its track goes there, none stays behind."""
    tracker = FigureTracker()
    standing = [[0.0, 0.0], [300.0, 0.0]]
    for i in range(10):
        before = tracker.update(Detections.build(base_xy_mm=standing, base_team=[0, 1]), i / FPS)
    for k, y in enumerate([60.0, 120.0, 180.0], start=10):
        moved = Detections.build(base_xy_mm=[[0.0, y], [300.0, 0.0]], base_team=[0, 1])
        tracks = tracker.update(moved, k / FPS)
        assert tracks.id.tolist() == before.id.tolist() and tracks.seen.all()
    tracks = tracker.update(Detections.build(base_xy_mm=[[300.0, 0.0]], base_team=[1]), 0.3)
    assert len(tracks) == 2  # the moved figure hidden now: kept a while, not doubled


def test_a_figure_hidden_by_a_hand_keeps_its_id():
    tracker = FigureTracker()
    both = Detections.build(base_xy_mm=[[0.0, 0.0], [100.0, 0.0]], base_team=[0, 1])
    for i in range(10):
        before = tracker.update(both, i / FPS)
    hidden = Detections.build(base_xy_mm=[[100.0, 0.0]], base_team=[1])
    for i in range(10, 70):  # a second under a hand
        tracks = tracker.update(hidden, i / FPS)
        assert tracks.id.tolist() == before.id.tolist()
    tracks = tracker.update(both, 70 / FPS)
    assert tracks.id.tolist() == before.id.tolist() and tracks.seen.all()


def test_a_missing_base_is_kept_then_dropped():
    tracker = FigureTracker()
    det = Detections.build(base_xy_mm=[[0.0, 0.0]], base_team=[0])
    for i in range(10):
        tracker.update(det, i / FPS)
    kept = tracker.update(Detections.empty(), 1.0)
    assert len(kept) == 1 and not kept.seen[0]
    assert len(tracker.update(Detections.empty(), 3.5)) == 0


def test_frames_without_a_base_search_keep_the_tracks():
    tracker = FigureTracker()
    det = Detections.build(base_xy_mm=[[10.0, 0.0], [50.0, 0.0]], base_team=[0, 1])
    for i in range(5):
        tracker.update(det, i / FPS)
    before = tracker.update(Detections.empty(bases_searched=False), 10.0)
    assert len(before) == 2


def test_position_at_rest_averages_noise():
    seq = frames([[30.0, -40.0]], [[0.0, 0.0]], [0], 120, noise_mm=0.5)
    tracks = run(seq)
    assert np.linalg.norm(tracks[-1].xy_mm[0] - [30.0, -40.0]) < 0.25


def test_a_base_that_stops_is_where_it_stands():
    """The last sighting while it moved is no part of where it rests."""
    tracker = FigureTracker()
    for i, x in enumerate([0.0, 5.0, 10.0, 15.0, 16.5, 17.3, 17.3, 17.3]):
        last = tracker.update(Detections.build(base_xy_mm=[[x, 0.0]], base_team=[0]), i / FPS)
    assert abs(last.xy_mm[0, 0] - 17.3) < 0.01


def test_the_same_bases_again_leave_the_tracks_and_still_confirm_a_new_one():
    tracker = FigureTracker()
    still = Detections.build(base_xy_mm=[[10.0, 0.0], [50.0, 0.0]], base_team=[0, 1])
    for i in range(5):
        before = tracker.update(still, i / FPS)
    arrived = Detections.build(
        base_xy_mm=[[10.0, 0.0], [50.0, 0.0], [90.0, 5.0]], base_team=[0, 1, 1]
    )
    counts = [len(tracker.update(arrived, (5 + i) / FPS)) for i in range(4)]
    assert counts == [2, 2, 3, 3]
    after = tracker.update(arrived, 10 / FPS)
    assert np.array_equal(after.xy_mm[:2], before.xy_mm)


def test_teams_never_swap():
    seq = frames([[0.0, 0.0], [0.0, 30.0]], [[0.0, 0.0], [0.0, 0.0]], [0, 1], 20)
    tracker = FigureTracker()
    last = run(seq, tracker)[-1]
    before = dict(zip(last.id.tolist(), last.team.tolist(), strict=True))
    # The two detections swap places: a team mismatch must not steal the tracks.
    swapped = Detections.build(base_xy_mm=[[0.0, 0.0], [0.0, 30.0]], base_team=[1, 0])
    tracks = tracker.update(swapped, 21 / FPS)
    assert dict(zip(tracks.id.tolist(), tracks.team.tolist(), strict=True)) == before
    # A track takes only a base of its own team: never the one now standing where it stood.
    for i in np.flatnonzero(tracks.seen):
        j = int(np.argmin(np.linalg.norm(swapped.base_xy_mm - tracks.xy_mm[i], axis=1)))
        assert tracks.team[i] == swapped.base_team[j]
    assert sorted(tracks.team.tolist()) == [0, 1]


def test_a_resting_base_read_in_the_other_colour_stays_its_figure():
    """A figure never changes team: a resting base whose colours read as the other team's
    for a while (a shirt of that colour, a hand over it) keeps its id and team, and no
    second figure appears where it stands."""
    seq = frames([[0.0, 0.0], [200.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], [0, 1], 20)
    tracker = FigureTracker()
    before = run(seq, tracker)[-1]
    for i in range(10):
        misread = Detections.build(base_xy_mm=[[0.4, -0.3], [200.0, 0.0]], base_team=[1, 1])
        tracks = tracker.update(misread, (21 + i) / FPS)
    assert tracks.id.tolist() == before.id.tolist()
    assert tracks.team.tolist() == before.team.tolist()
    assert tracks.seen.all()


def test_a_running_base_read_in_the_other_colour_stays_one_figure():
    """A blurred base can read in the other team's colour on some frames of its run: it stays
    the one track of its team, and no figure of the other team appears beside it."""
    seq = frames([[0.0, 0.0], [0.0, 200.0]], [[900.0, 0.0], [0.0, 0.0]], [0, 1], 40)
    tracker = FigureTracker()
    first = run(seq[:5], tracker)[-1]
    for i, (xy, team, order) in enumerate(seq[5:], start=5):
        misread = np.where(order == 0, i % 3 == 0, team)  # the runner, every third frame
        tracks = tracker.update(Detections.build(base_xy_mm=xy, base_team=misread), i / FPS)
        assert tracks.id.tolist() == first.id.tolist() and tracks.seen.all()
    assert tracks.team.tolist() == first.team.tolist()


def test_a_track_takes_the_team_its_base_reads_at_rest():
    """A track born on a running base read in the wrong colour takes its team once the base
    stands and reads true."""
    tracker = FigureTracker()
    for i in range(6):  # running, read as the away team
        det = Detections.build(base_xy_mm=[[15.0 * i, 0.0]], base_team=[1])
        tracker.update(det, i / FPS)
    for i in range(6, 16):  # at rest, read as the home team
        tracks = tracker.update(Detections.build(base_xy_mm=[[75.0, 0.0]], base_team=[0]), i / FPS)
    assert len(tracks) == 1 and tracks.team.tolist() == [0]


def test_a_lost_track_does_not_take_another_tracks_base():
    """A track unseen for a few frames reaches farther, but never takes a base from the track
    standing on it."""
    tracker = FigureTracker()
    both = Detections.build(base_xy_mm=[[0.0, 0.0], [60.0, 0.0]], base_team=[0, 0])
    for i in range(10):
        before = tracker.update(both, i / FPS)
    one = Detections.build(base_xy_mm=[[0.0, 0.0]], base_team=[0])
    for i in range(10, 16):
        tracks = tracker.update(one, i / FPS)
    standing = int(np.argmin(np.abs(before.xy_mm[:, 0])))
    assert tracks.seen.tolist() == [i == standing for i in range(2)]
    assert np.allclose(tracks.xy_mm, before.xy_mm, atol=1e-9)


def test_a_track_lost_while_moving_is_dropped_sooner_than_one_at_rest():
    """A flicked figure that vanishes is wherever it went: its track goes after
    ``max_missing_moving_s``, while a resting figure hidden by a hand is kept."""
    tracker = FigureTracker()
    for i in range(10):  # one base runs, one stands
        det = Detections.build(base_xy_mm=[[15.0 * i, 0.0], [0.0, 200.0]], base_team=[0, 1])
        tracker.update(det, i / FPS)
    t0 = 9 / FPS
    limit = tracker.config.max_missing_moving_s
    kept = tracker.update(Detections.empty(), t0 + 0.5 * limit)
    assert len(kept) == 2
    tracks = tracker.update(Detections.empty(), t0 + 2.0 * limit)
    assert len(tracks) == 1 and tracks.team.tolist() == [1]


@pytest.mark.parametrize(
    ("xy", "team", "keeper"),
    [
        ((-570.0, 0.0), 0, True),  # home in front of its own goal (left)
        ((570.0, 10.0), 1, True),  # away in front of its own goal (right)
        ((-300.0, 0.0), 0, False),
    ],
)
def test_goalkeeper_flag(xy, team, keeper):
    tracker = FigureTracker(pitch=load_pitch("fistf"))
    det = Detections.build(base_xy_mm=[xy], base_team=[team])
    for i in range(4):
        tracks = tracker.update(det, i / FPS)
    assert bool(tracks.goalkeeper[0]) is keeper


@pytest.mark.parametrize(
    ("figures", "read", "team", "keeper"),
    [
        # A rod keeper's shirt reads as the other team (FISTF 2.1: only keepers in goal areas).
        ([(-575.0, 10.0)], [1], [0], [True]),
        ([(580.0, -20.0)], [0], [1], [True]),
        # A figure in front of the keeper, inside the goal area: a field figure of its colour.
        ([(575.0, 0.0), (545.0, 40.0)], [1, 0], [1, 0], [True, False]),
        ([(575.0, 0.0), (545.0, 40.0)], [0, 0], [1, 0], [True, False]),
        # Beyond the goal area's reach: field figures whatever they read.
        ([(-450.0, 0.0), (400.0, 0.0)], [1, 0], [1, 0], [False, False]),
    ],
)
def test_a_goalkeeper_takes_the_team_of_its_goal(figures, read, team, keeper):
    tracker = FigureTracker(pitch=load_pitch("fistf"))
    det = Detections.build(base_xy_mm=figures, base_team=read)
    for i in range(4):
        tracks = tracker.update(det, i / FPS)
    order = np.argsort(tracks.id)
    assert tracks.team[order].tolist() == team
    assert tracks.goalkeeper[order].tolist() == keeper


@pytest.mark.parametrize(
    ("reads", "team"),
    [("0001000", 0), ("1101111", 1), ("0110110", 1), ("1001000", 0)],
)
def test_a_track_takes_the_team_most_of_its_resting_sightings_read(reads, team):
    tracker = FigureTracker()
    for i, r in enumerate(reads * 2):
        tracks = tracker.update(Detections.build(base_xy_mm=[[0.0, 0.0]], base_team=[int(r)]), i)
    assert tracks.team.tolist() == [team]


@pytest.mark.parametrize(
    ("xy_mm", "tracked"),
    [
        ((593.2, -76.6), False),  # on the right goal's lower post: its top read as a base
        ((-594.0, 78.0), False),  # on the left goal's upper post
        ((585.0, -92.0), True),  # a figure touching the post from outside stands there
        ((585.0, 0.0), True),  # a goalkeeper in the goal mouth
    ],
)
def test_no_figure_is_tracked_on_a_goal_post(xy_mm, tracked):
    """The posts stand on the goal line beside the mouth (fistf: mouth 150 mm, posts 5 mm);
    a base overlapping one by more than half its own radius cannot be a figure."""
    tracker = FigureTracker(pitch=load_pitch("fistf"))
    seq = [(np.array([xy_mm, (0.0, 0.0)]), np.array([1, 0]), None)] * 10
    tracks = run(seq, tracker)[-1]
    assert len(tracks) == (2 if tracked else 1)
    assert tracked == bool((np.linalg.norm(tracks.xy_mm - xy_mm, axis=1) < 1.0).any())


@pytest.mark.parametrize(("step_mm", "kept"), [(-23.0, False), (-4.0, True)])
def test_a_track_carried_into_a_goal_is_no_figure(step_mm, kept):
    """A keeper's track matched once to a fit a step toward its goal (the ball read as its
    base) moves on by that step while unseen: 23 mm a frame from 8 mm in front of the line
    carries it under the roof net, where no figure stands (beyond a keeper's reach behind
    the line), and it goes; a keeper read a few millimetres back stays on its line."""
    pitch = load_pitch("fistf")
    tracker = FigureTracker(pitch=pitch)
    line_x = pitch.goal("left").x_line_mm
    keeper, field = (line_x + 8.0, 10.0), (0.0, 0.0)
    for i in range(5):
        tracker.update(Detections.build(base_xy_mm=[keeper, field], base_team=[0, 1]), i / FPS)
    moved = (keeper[0] + step_mm, keeper[1] + 0.5 * abs(step_mm))
    tracker.update(Detections.build(base_xy_mm=[moved, field], base_team=[0, 1]), 5 / FPS)
    # Only the running part of the table is searched now: the keeper is not seen.
    unseen = Detections.build(base_xy_mm=np.zeros((0, 2)), base_team=[], bases_searched=False)
    tracks = tracker.update(unseen, 6 / FPS)
    in_goal = tracks.xy_mm[:, 0] < line_x
    assert len(tracks) == (2 if kept else 1)
    assert not in_goal.any() or kept
