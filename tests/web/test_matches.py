"""The list of past matches: recorded and live, searchable, each opening its review, report
and export."""

from __future__ import annotations

import pytest


@pytest.fixture
def html(client):
    def get(query: str = "") -> str:
        response = client.get(f"/review?q={query}", headers={"Accept": "text/html"})
        assert response.status_code == 200
        return response.get_data(as_text=True)

    return get


def test_the_list_holds_recorded_and_live_matches_with_their_links(app, client, html, sample):
    app.extensions["tablevar.hub"].control("start")  # a live match in the log
    page = html()
    assert 'href="/review/match1"' in page and 'href="/review/match1/report"' in page
    assert 'href="/api/recordings/match1/export.csv"' in page
    assert "1 – 0" in page  # the recording's score
    assert "Live match 1" in page and 'href="/api/match/1/export.csv"' in page


@pytest.mark.parametrize(
    ("query", "recorded", "live"),
    [("match1", True, False), ("1-0", True, False), ("live", False, True), ("zzz", False, False)],
)
def test_a_search_keeps_the_matches_that_contain_it(app, html, query, recorded, live):
    app.extensions["tablevar.hub"].control("start")
    page = html(query)
    assert ('href="/review/match1"' in page) == recorded
    assert ("Live match 1" in page) == live
