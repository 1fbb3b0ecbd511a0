"""Errors as a browser and as a script see them: an HTML page with a way back for a page a
browser opened, JSON for the API and for anyone asking for JSON."""

from __future__ import annotations

import pytest

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.mark.parametrize(
    ("path", "headers", "html"),
    [
        ("/review/nope", BROWSER, True),
        ("/review/nope", {"Accept": "application/json"}, False),
        ("/review/nope", {}, False),  # no preference: a script, JSON as before
        ("/api/recordings/nope", BROWSER, False),  # the API always answers JSON
    ],
)
def test_a_missing_recording_is_a_page_for_browsers_and_json_for_the_api(
    client, path, headers, html
):
    response = client.get(path, headers=headers)
    assert response.status_code == 404
    if html:
        assert response.mimetype == "text/html"
        text = response.get_data(as_text=True)
        assert "<h1" in text and "no recording &#39;nope&#39;" in text
        assert 'href="/review"' in text
    else:
        assert response.mimetype == "application/json"
        assert response.get_json()["status"] == 404
