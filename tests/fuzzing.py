"""What the fuzz tests share: any JSON value, and hypothesis settings for tests that use
fixtures and slow cases."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


def fuzz_settings(examples: int) -> settings:
    """``examples`` generated cases a property, without a time limit per case."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
